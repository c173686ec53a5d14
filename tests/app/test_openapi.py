"""The OpenAPI document is valid and tells the truth about errors: one ``Error`` component that the
server's real 401/403/404/409/422/500/503 answers match; explicit operation ids; and every
error, the database being down included, in the JSON envelope."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from app.api.errors import ERROR_CODES
from app.main import create_app
from app.settings import Settings

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
    assert error["properties"]["code"]["enum"] == list(ERROR_CODES)
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
    Draft202012Validator(spec["components"]["schemas"]["Error"]).validate(response.json())


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
