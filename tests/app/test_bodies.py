"""Request bodies: one that cannot be read as JSON is a 422 ``invalid``, one longer than
GAPLE_MAX_BODY_BYTES a 413 ``too_large``, both in the error envelope, and neither changes
anything."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from app.settings import Settings
from tests.app.documents import validate_component


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"max_body_bytes": 4096})


async def rooms_of(api: httpx.AsyncClient, guest: Any) -> list[Any]:
    listed = await api.get("/api/rooms", headers=guest.headers)
    assert listed.status_code == 200, listed.text
    return list(listed.json()["rooms"])


def enveloped(spec: dict[str, Any], response: httpx.Response, code: str) -> None:
    validate_component(spec, "Error", response.json())
    assert response.json()["error"]["code"] == code


async def test_json_nested_too_deeply_is_invalid(api: httpx.AsyncClient, make_guest: Any) -> None:
    spec = (await api.get("/openapi.json")).json()
    host = await make_guest("Host")
    headers = {**host.headers, "Content-Type": "application/json"}
    nested = "[" * 2000 + "]" * 2000  # 4,000 bytes: under the cap, too deep for the parser
    response = await api.post("/api/rooms", content=nested, headers=headers)
    assert response.status_code == 422, response.text
    enveloped(spec, response, "invalid")
    assert response.json()["error"]["message"] == "the request body could not be read as JSON"
    assert await rooms_of(api, host) == []


@pytest.mark.parametrize("chunked", [False, True])
async def test_a_body_over_the_cap_is_too_large(
    api: httpx.AsyncClient, make_guest: Any, chunked: bool
) -> None:
    spec = (await api.get("/openapi.json")).json()
    host = await make_guest("Host")
    headers = {**host.headers, "Content-Type": "application/json"}
    body = b'{"mode": "tunggal", "public": true, "pad": "' + b"x" * 4096 + b'"}'

    async def pieces() -> AsyncIterator[bytes]:  # no Content-Length: counted as it arrives
        for start in range(0, len(body), 1000):
            yield body[start : start + 1000]

    content: Any = pieces() if chunked else body
    response = await api.post("/api/rooms", content=content, headers=headers)
    assert response.status_code == 413, response.text
    enveloped(spec, response, "too_large")
    assert "413" in spec["paths"]["/api/rooms"]["post"]["responses"]  # documented
    assert await rooms_of(api, host) == []
    # Every REST call has the cap, not only this one.
    named = await api.post("/api/guests", content=body, headers=headers)
    assert named.status_code == 413
    enveloped(spec, named, "too_large")


async def test_a_body_at_the_cap_is_read(api: httpx.AsyncClient, make_guest: Any) -> None:
    host = await make_guest("Host")
    headers = {**host.headers, "Content-Type": "application/json"}
    prefix, suffix = b'{"mode": "tunggal", "public": true', b"}"
    body = prefix + b" " * (4096 - len(prefix) - len(suffix)) + suffix
    assert len(body) == 4096
    response = await api.post("/api/rooms", content=body, headers=headers)
    assert response.status_code == 201, response.text
