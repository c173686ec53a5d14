"""The OpenAPI document is valid and tells the truth about errors: one ``Error`` component that the
server's real 401/403/404/409/422/500/503 answers match; explicit operation ids; every error, the
database being down included, in the JSON envelope; and each value set named once, as a component
every use refers to."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openapi_spec_validator import validate

from app.api.errors import ERROR_CODES
from app.api.openapi import ENUMS, enum_values, name_enums
from app.main import create_app
from app.settings import Settings
from tests.app.documents import validate_component

ERROR_REF = "#/components/schemas/Error"
METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture
async def spec(api: httpx.AsyncClient) -> dict[str, Any]:
    response = await api.get("/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, item in spec["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def test_the_document_is_valid_openapi(spec: dict[str, Any]) -> None:
    validate(spec)  # raises on any violation of the OpenAPI 3.1 schema


def test_operation_ids_are_the_endpoint_names(spec: dict[str, Any]) -> None:
    ids = [operation["operationId"] for _, _, operation in _operations(spec)]
    assert len(ids) == len(set(ids))
    assert "create_guest" in ids and "readyz" in ids
    for operation_id in ids:  # FastAPI's default appends the path and method
        assert not operation_id.endswith(("_get", "_post", "_patch", "_delete")), operation_id


def test_every_error_response_is_the_shared_component(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    assert "HTTPValidationError" not in schemas and "ValidationError" not in schemas
    error = schemas["Error"]["properties"]["error"]
    assert error["properties"]["code"] == {"$ref": "#/components/schemas/ErrorCode"}
    assert schemas["ErrorCode"]["enum"] == list(ERROR_CODES)
    assert "details" in error["properties"]
    for path, method, operation in _operations(spec):
        responses = operation["responses"]
        assert "500" in responses, (path, method)
        if path.startswith("/api/"):
            assert "503" in responses, (path, method)
        for status, response in responses.items():
            if int(status) >= 400:
                schema = response["content"]["application/json"]["schema"]
                assert schema == {"$ref": ERROR_REF}, (path, method, status)


def _check(spec: dict[str, Any], path: str, method: str, response: httpx.Response) -> None:
    """The answer is documented for that operation and matches the Error component."""
    status = str(response.status_code)
    assert status in spec["paths"][path][method]["responses"], (path, method, status)
    assert response.headers["content-type"] == "application/json"
    validate_component(spec, "Error", response.json())


async def test_real_errors_match_what_is_documented(
    api: httpx.AsyncClient, spec: dict[str, Any], make_guest: Any
) -> None:
    host, other = await make_guest("Ayu"), await make_guest("Budi")
    room = (await api.post("/api/rooms", json={}, headers=host.headers)).json()
    code = room["code"]
    seat = "/api/rooms/{code}/seats/{seat}"
    answers = [
        ("/api/guests/me", "get", await api.get("/api/guests/me")),  # 401
        ("/api/guests", "post", await api.post("/api/guests", json={})),  # 422
        ("/api/guests", "post", await api.post("/api/guests", json={"name": 7, "x": 1})),
        ("/api/rooms/{code}", "get", await api.get("/api/rooms/ZZZZZZ")),  # 404
        (seat, "post", await api.post(f"/api/rooms/{code}/seats/0", headers=host.headers)),
        (seat, "post", await api.post(f"/api/rooms/{code}/seats/0", headers=other.headers)),
        (
            "/api/rooms/{code}/start",
            "post",
            await api.post(f"/api/rooms/{code}/start", headers=other.headers),  # 403
        ),
    ]
    statuses = {response.status_code for *_, response in answers[:4]} | {
        answers[-2][2].status_code,
        answers[-1][2].status_code,
    }
    assert {401, 403, 404, 409, 422} <= statuses
    for path, method, response in answers:
        if response.status_code >= 400:
            _check(spec, path, method, response)
    details = answers[2][2].json()["error"]["details"]
    assert len(details) >= 2  # every problem, not just the first


async def test_an_unexpected_error_is_a_json_500(settings: Settings) -> None:
    app = create_app(settings)

    async def broken() -> None:
        raise RuntimeError("a bug")

    app.add_api_route("/api/broken", broken)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            spec = (await client.get("/openapi.json")).json()
            response = await client.get("/api/broken")
    assert response.status_code == 500
    _check(spec, "/api/broken", "get", response)
    assert response.json()["error"]["code"] == "internal"
    assert "a bug" not in response.text  # no internals to the client


@pytest.mark.parametrize("url", ["postgresql+asyncpg://postgres@127.0.0.1:1/nothing"])
async def test_database_down_answers_503_in_the_envelope(url: str, tmp_path: Path) -> None:
    settings = Settings(database_url=url, data_dir=tmp_path, secret_key="k", migrate_on_start=False)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            spec = (await client.get("/openapi.json")).json()
            answers = [
                ("/api/rooms", "get", await client.get("/api/rooms")),
                ("/api/guests", "post", await client.post("/api/guests", json={"name": "Ayu"})),
                ("/api/health", "get", await client.get("/api/health")),
            ]
    for path, method, response in answers:
        assert response.status_code == 503, (path, response.text)
        _check(spec, path, method, response)
        assert response.json()["error"]["code"] == "unavailable"


# --- the value sets -------------------------------------------------------------------------------


def _enums(node: Any, where: str = "") -> Iterator[tuple[str, tuple[Any, ...]]]:
    """(JSON pointer of the schema, its values) for every schema in ``node`` with an ``enum``."""
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list):
            yield where, tuple(node["enum"])
        for key, value in node.items():
            yield from _enums(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _enums(value, f"{where}/{index}")


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


@pytest.fixture
def full_spec(settings: Settings) -> dict[str, Any]:
    """The document with every router in it, the admin API's included."""
    app = create_app(settings.model_copy(update={"admin_token": "a" * 32}))
    assert any(path.startswith("/api/admin/") for path in app.openapi()["paths"])
    return app.openapi()


def test_the_named_document_is_valid_openapi(full_spec: dict[str, Any]) -> None:
    validate(full_spec)


def test_each_value_set_is_one_named_component(full_spec: dict[str, Any]) -> None:
    found = list(_enums(full_spec))
    # No enum outside the components that name the sets: each set is written once...
    assert {where for where, _ in found} == {f"/components/schemas/{name}" for name in ENUMS}
    # ...a generated client makes one type per set: as many distinct value lists as enums...
    assert len({values for _, values in found}) == len(found) == len(ENUMS)
    # ...and each component lists its type's values, in their declared order.
    schemas = full_spec["components"]["schemas"]
    for name in ENUMS:
        assert schemas[name]["enum"] == enum_values(name), name
        assert schemas[name]["type"] in {"string", "integer"}


def test_every_named_set_is_used(full_spec: dict[str, Any]) -> None:
    schemas = full_spec["components"]["schemas"]
    outside = {**full_spec, "components": {"schemas": {}}}
    used = set(_refs(outside)) | {
        ref for name, schema in schemas.items() if name not in ENUMS for ref in _refs(schema)
    }
    for name in ENUMS:
        assert f"#/components/schemas/{name}" in used, f"{name} is named but never used"


def test_the_shared_sets_are_referenced_where_they_were_inlined(full_spec: dict[str, Any]) -> None:
    schemas = full_spec["components"]["schemas"]
    mode = {"$ref": "#/components/schemas/Mode"}
    assert schemas["LeaderboardOut"]["properties"]["mode"]["$ref"] == mode["$ref"]
    leaderboard = full_spec["paths"]["/api/leaderboard"]["get"]["parameters"]
    (query,) = [parameter for parameter in leaderboard if parameter["name"] == "mode"]
    assert query["schema"] == {**mode, "default": "tunggal"}  # the default stays beside it
    stuck = schemas["RoomSettings"]["properties"]["stuck"]
    assert {"$ref": "#/components/schemas/Stuck"} in stuck["anyOf"]
    assert "description" in stuck


def test_name_enums_swaps_only_a_named_set() -> None:
    document = {
        "paths": {},
        "components": {
            "schemas": {
                "A": {
                    "properties": {
                        "mode": {"enum": ["tunggal", "ganda"], "type": "string", "title": "M"},
                        "order": {"enum": ["ganda", "tunggal"], "type": "string"},
                        "other": {"enum": ["x", "y"], "type": "string"},
                        "seconds": {"enum": [15, 30, 60], "type": "integer", "default": 15},
                    }
                }
            }
        },
    }
    named = name_enums(document)
    properties = named["components"]["schemas"]["A"]["properties"]
    assert properties["mode"] == {"$ref": "#/components/schemas/Mode"}
    assert properties["seconds"] == {"$ref": "#/components/schemas/TurnSeconds", "default": 15}
    # Another order is another list for a client, and an unknown set is left as it is.
    assert properties["order"] == document["components"]["schemas"]["A"]["properties"]["order"]
    assert properties["other"] == {"enum": ["x", "y"], "type": "string"}
    assert named["components"]["schemas"]["TurnSeconds"] == {
        "title": "TurnSeconds",
        "type": "integer",
        "enum": [15, 30, 60],
    }
    # The input is left alone.
    assert "enum" in document["components"]["schemas"]["A"]["properties"]["mode"]


async def test_the_probes_answer_their_named_models(
    api: httpx.AsyncClient, spec: dict[str, Any]
) -> None:
    for path in ("/livez", "/readyz"):
        ok = spec["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
        assert ok["schema"] == {"$ref": "#/components/schemas/ProbeOut"}, path
        response = await api.get(path)
        assert response.status_code == 200
        validate_component(spec, "ProbeOut", response.json())
