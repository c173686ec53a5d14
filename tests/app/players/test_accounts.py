"""Accounts on top of guests: claim, log in elsewhere, log out, rename; usernames and passwords."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.players.sessions import authenticate_token
from app.store.models import Account, Player, PlayerSession
from tests.conftest import Guest

PASSWORD = "kartu-balak-66"

MakeGuest = Callable[..., Awaitable[Guest]]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def claim(
    api: httpx.AsyncClient, guest: Guest, username: str, password: str = PASSWORD
) -> httpx.Response:
    return await api.post(
        "/api/accounts", json={"username": username, "password": password}, headers=guest.headers
    )


async def log_in(api: httpx.AsyncClient, username: str, password: str = PASSWORD) -> httpx.Response:
    return await api.post("/api/sessions", json={"username": username, "password": password})


async def test_a_guest_saves_its_account_and_logs_in_on_a_second_device(
    api: httpx.AsyncClient, app: Any, make_guest: MakeGuest
) -> None:
    guest = await make_guest("Ayu")
    saved = await claim(api, guest, "ayu_66")
    assert saved.status_code == 201, saved.text
    assert saved.json() == {"player_id": guest.player_id, "name": "Ayu", "username": "ayu_66"}
    # The guest's own token keeps working, now as the account.
    me = await api.get("/api/players/me", headers=guest.headers)
    assert me.json() == {"player_id": guest.player_id, "name": "Ayu", "username": "ayu_66"}

    phone = await log_in(api, "ayu_66")
    assert phone.status_code == 201, phone.text
    body = phone.json()
    assert body["player_id"] == guest.player_id and body["username"] == "ayu_66"
    assert body["token"] != guest.token
    second = await api.get("/api/players/me", headers=bearer(body["token"]))
    assert second.status_code == 200 and second.json()["player_id"] == guest.player_id
    # The REST lobby and everything else know the second device as the same player.
    assert (await api.get("/api/guests/me", headers=bearer(body["token"]))).json() == {
        "player_id": guest.player_id,
        "name": "Ayu",
    }

    async with app.state.db.session() as session:
        rows = list(await session.scalars(select(PlayerSession)))
        account = await session.get(Account, guest.player_id)
        # The WebSocket hello authenticates the same way.
        on_phone = await authenticate_token(session, body["token"])
        assert on_phone is not None and on_phone.id == guest.player_id
        assert await authenticate_token(session, body["token"][:-1]) is None
    # Tokens at rest are HMACs, the password an Argon2id hash.
    assert len(rows) == 1 and rows[0].player_id == guest.player_id
    assert body["token"] not in rows[0].token_hash and len(rows[0].token_hash) == 64
    assert account is not None and account.password_hash.startswith("$argon2id$")
    assert PASSWORD not in account.password_hash


async def test_log_out_ends_only_that_token(api: httpx.AsyncClient, make_guest: MakeGuest) -> None:
    guest = await make_guest("Budi")
    assert (await claim(api, guest, "budi")).status_code == 201
    laptop = (await log_in(api, "budi")).json()["token"]
    phone = (await log_in(api, "budi")).json()["token"]

    out = await api.delete("/api/sessions/current", headers=bearer(laptop))
    assert out.status_code == 204 and out.content == b""
    assert (await api.get("/api/players/me", headers=bearer(laptop))).status_code == 401
    assert (await api.get("/api/players/me", headers=bearer(phone))).status_code == 200
    assert (await api.get("/api/players/me", headers=guest.headers)).status_code == 200
    # Logging out twice with the same token: it is no token any more.
    assert (await api.delete("/api/sessions/current", headers=bearer(laptop))).status_code == 401

    # The guest's first token can be logged out too; logging in again brings the player back.
    assert (await api.delete("/api/sessions/current", headers=guest.headers)).status_code == 204
    assert (await api.get("/api/players/me", headers=guest.headers)).status_code == 401
    again = await log_in(api, "budi")
    assert again.json()["player_id"] == guest.player_id


async def test_a_guest_without_an_account_cannot_log_out(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    guest = await make_guest("Citra")
    response = await api.delete("/api/sessions/current", headers=guest.headers)
    assert response.status_code == 409 and response.json()["error"]["code"] == "no_account"
    assert (await api.get("/api/players/me", headers=guest.headers)).status_code == 200
    assert (await api.delete("/api/sessions/current")).status_code == 401


async def test_rename(api: httpx.AsyncClient, app: Any, make_guest: MakeGuest) -> None:
    guest = await make_guest("Dewi")
    body = {"name": "  Dewi S.  "}
    renamed = await api.patch("/api/players/me", json=body, headers=guest.headers)
    assert renamed.status_code == 200
    assert renamed.json() == {"player_id": guest.player_id, "name": "Dewi S.", "username": None}
    assert (await api.get("/api/guests/me", headers=guest.headers)).json()["name"] == "Dewi S."
    for bad in ("", "x" * 25, "tab\tname"):
        response = await api.patch("/api/players/me", json={"name": bad}, headers=guest.headers)
        assert response.status_code == 422 and response.json()["error"]["field"] == "name"
    async with app.state.db.session() as session:
        player = await session.get(Player, guest.player_id)
    assert player is not None and player.name == "Dewi S."
    assert (await api.patch("/api/players/me", json={"name": "X"})).status_code == 401


async def test_usernames_are_unique_whatever_their_case(
    api: httpx.AsyncClient, app: Any, make_guest: MakeGuest
) -> None:
    first, second = await make_guest("Eko"), await make_guest("Eka")
    saved = await claim(api, first, "Eko_Jaya")
    assert saved.status_code == 201 and saved.json()["username"] == "eko_jaya"
    for name in ("eko_jaya", "EKO_JAYA", " Eko_jaya "):
        taken = await claim(api, second, name)
        assert taken.status_code == 409, name
        assert taken.json()["error"] == {
            "code": "username_taken",
            "message": "that username is taken",
            "field": "username",
        }
    # Logging in works in any case too; a second account for the same player does not.
    assert (await log_in(api, "EKO_jaya")).json()["player_id"] == first.player_id
    again = await claim(api, first, "eko_other")
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_saved"
    async with app.state.db.session() as session:
        assert len(list(await session.scalars(select(Account)))) == 1


@pytest.mark.parametrize(
    ("username", "password", "field"),
    [
        ("ab", PASSWORD, "username"),
        ("a" * 21, PASSWORD, "username"),
        ("ayu-66", PASSWORD, "username"),
        ("ayu 66", PASSWORD, "username"),
        ("ayu.66", PASSWORD, "username"),
        ("äyu", PASSWORD, "username"),
        ("ayu", "short77", "password"),
        ("ayu", "x" * 257, "password"),
    ],
)
async def test_bad_usernames_and_passwords_are_422_and_change_nothing(
    api: httpx.AsyncClient,
    app: Any,
    make_guest: MakeGuest,
    username: str,
    password: str,
    field: str,
) -> None:
    guest = await make_guest("Fajar")
    response = await claim(api, guest, username, password)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["field"] == field
    assert password not in response.text
    async with app.state.db.session() as session:
        assert list(await session.scalars(select(Account))) == []


async def test_claiming_needs_a_guest_token(api: httpx.AsyncClient) -> None:
    response = await api.post("/api/accounts", json={"username": "gita", "password": PASSWORD})
    assert response.status_code == 401


async def test_wrong_password_and_unknown_user_get_the_same_answer(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    guest = await make_guest("Hadi")
    assert (await claim(api, guest, "hadi")).status_code == 201
    wrong = await log_in(api, "hadi", "not-the-password")
    unknown = await log_in(api, "nobody_here", PASSWORD)
    malformed = await log_in(api, "x!", PASSWORD)
    for response in (wrong, unknown, malformed):
        assert response.status_code == 401
        assert response.json() == {
            "error": {"code": "bad_credentials", "message": "wrong username or password"}
        }
        assert "token" not in response.text
    assert wrong.headers.get("www-authenticate") == unknown.headers.get("www-authenticate")


async def test_no_password_or_hash_in_any_response_or_log_line(
    api: httpx.AsyncClient, app: Any, make_guest: MakeGuest, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    guest = await make_guest("Indah")
    responses = [
        await claim(api, guest, "indah"),
        await log_in(api, "indah"),
        await log_in(api, "indah", PASSWORD + "x"),
        await log_in(api, "indah", "short"),
        await claim(api, guest, "ab", PASSWORD),
        await api.get("/api/players/me", headers=guest.headers),
        await api.get(f"/api/players/{guest.player_id}"),
    ]
    token = responses[1].json()["token"]
    responses.append(await api.delete("/api/sessions/current", headers=bearer(token)))
    async with app.state.db.session() as session:
        account = await session.get(Account, guest.player_id)
        session_hashes = list(await session.scalars(select(PlayerSession.token_hash)))
    assert account is not None
    secrets = [PASSWORD, account.password_hash, account.password_hash.split("$")[-1]]
    secrets += [guest.token, token, *session_hashes]
    for response in responses:
        for secret in [PASSWORD, account.password_hash, account.password_hash.split("$")[-1]]:
            assert secret not in response.text
        assert "password_hash" not in response.text
    assert caplog.records, "the flow logs something (at least the saved account)"
    logged = "\n".join(
        [record.getMessage() for record in caplog.records]
        + [repr(record.args) for record in caplog.records]
    )
    for secret in secrets:
        assert secret not in logged
