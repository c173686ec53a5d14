"""POST /api/guests, bearer authentication, authenticate_token."""

from __future__ import annotations

import httpx
import pytest

from app.players.sessions import authenticate_token, hash_token
from tests.conftest import TEST_SECRET_KEY, Guest


async def test_create_guest_returns_token_that_authenticates(api: httpx.AsyncClient, app) -> None:  # type: ignore[no-untyped-def]
    response = await api.post("/api/guests", json={"name": "  Budi Santoso  "})
    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "Budi Santoso"
    assert len(body["player_id"]) == 32 and len(body["token"]) >= 40

    me = await api.get("/api/guests/me", headers={"Authorization": f"Bearer {body['token']}"})
    assert me.status_code == 200
    assert me.json() == {"player_id": body["player_id"], "name": "Budi Santoso"}

    async with app.state.db.session() as session:
        player = await authenticate_token(session, body["token"])
        assert player is not None and player.id == body["player_id"]
        # Only the HMAC is stored, never the token itself.
        assert player.token_hash == hash_token(body["token"], secret_key=TEST_SECRET_KEY)
        assert body["token"] not in player.token_hash
        assert await authenticate_token(session, body["token"] + "x") is None
        assert await authenticate_token(session, "") is None


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("x" * 25, "at most 24"),
        ("bad\x00name", "control"),
        ("tab\tname", "control"),
        ("line\nbreak", "control"),
    ],
)
async def test_bad_names_are_422_with_field(api: httpx.AsyncClient, name: str, reason: str) -> None:
    response = await api.post("/api/guests", json={"name": name})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid" and error["field"] == "name"
    assert reason in error["message"]


async def test_name_limits_and_unicode(api: httpx.AsyncClient) -> None:
    ok = await api.post("/api/guests", json={"name": "Ñoño 🀄 " + "x" * 17})
    assert ok.status_code == 201 and len(ok.json()["name"]) == 24


@pytest.mark.parametrize("body", [{}, {"name": 5}, {"name": "a", "extra": 1}, None])
async def test_malformed_body_uses_error_shape(api: httpx.AsyncClient, body: object) -> None:
    response = await api.post("/api/guests", json=body)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid"


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"}, {"Authorization": ""}],
)
async def test_401_without_valid_token(api: httpx.AsyncClient, headers: dict[str, str]) -> None:
    response = await api.get("/api/guests/me", headers=headers)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert response.headers["www-authenticate"] == "Bearer"


async def test_tokens_are_unique(make_guest) -> None:  # type: ignore[no-untyped-def]
    a: Guest = await make_guest("A")
    b: Guest = await make_guest("A")
    assert a.token != b.token and a.player_id != b.player_id
