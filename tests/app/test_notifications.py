"""Stored notifications on both databases: friend requests and acceptances leave them, newest
first with an unread count, marked read by id or all at once, the last 100 kept; bad input
changes nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from app.players.social import KEEP_NOTIFICATIONS
from app.settings import Settings
from tests.conftest import Guest

MakeGuest = Callable[..., Awaitable[Guest]]


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"rate_friends": "1000/minute", "rate_guests": "1000/minute"})


async def inbox(api: httpx.AsyncClient, me: Guest) -> dict[str, Any]:
    response = await api.get("/api/notifications", headers=me.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def read(api: httpx.AsyncClient, me: Guest, body: Any) -> httpx.Response:
    return await api.post("/api/notifications/read", json=body, headers=me.headers)


async def test_a_request_and_its_acceptance_notify(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    assert await inbox(api, budi) == {"notifications": [], "unread": 0}
    await api.post(f"/api/friends/{budi.player_id}", headers=ayu.headers)
    got = await inbox(api, budi)
    assert got["unread"] == 1
    [note] = got["notifications"]
    assert note["kind"] == "friend_request" and note["read"] is False
    assert note["payload"] == {"player_id": ayu.player_id, "name": "Ayu"}
    assert note["id"] >= 1 and note["created_at"]
    assert (await inbox(api, ayu))["unread"] == 0

    await api.post(f"/api/friends/{ayu.player_id}", headers=budi.headers)
    [accepted] = (await inbox(api, ayu))["notifications"]
    assert accepted["kind"] == "friend_accepted"
    assert accepted["payload"] == {"player_id": budi.player_id, "name": "Budi"}
    assert (await inbox(api, budi))["unread"] == 1  # an acceptance tells only the asker


async def test_marking_read_by_id_and_all(api: httpx.AsyncClient, make_guest: MakeGuest) -> None:
    me = await make_guest("Me")
    askers = [await make_guest(f"A{n}") for n in range(3)]
    for asker in askers:
        await api.post(f"/api/friends/{me.player_id}", headers=asker.headers)
    notes = (await inbox(api, me))["notifications"]
    # Newest first.
    assert [n["payload"]["name"] for n in notes] == ["A2", "A1", "A0"]
    assert [n["id"] for n in notes] == sorted((n["id"] for n in notes), reverse=True)

    response = await read(api, me, {"ids": [notes[1]["id"]]})
    assert response.status_code == 200, response.text
    assert response.json() == {"marked": 1, "unread": 2}
    assert [n["read"] for n in (await inbox(api, me))["notifications"]] == [False, True, False]
    assert (await read(api, me, {"ids": [notes[1]["id"]]})).json() == {"marked": 0, "unread": 2}

    # Another player's ids are passed over: theirs stay unread.
    other = await make_guest("Other")
    await api.post(f"/api/friends/{other.player_id}", headers=askers[0].headers)
    theirs = (await inbox(api, other))["notifications"][0]["id"]
    assert (await read(api, me, {"ids": [theirs]})).json() == {"marked": 0, "unread": 2}
    assert (await inbox(api, other))["unread"] == 1

    assert (await read(api, me, {"all": True})).json() == {"marked": 2, "unread": 0}
    assert all(n["read"] for n in (await inbox(api, me))["notifications"])
    assert (await inbox(api, other))["unread"] == 1


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"ids": [1], "all": True},
        {"ids": []},
        {"ids": list(range(1, 102))},  # over-long
        {"ids": ["1"]},
        {"ids": [True]},
        {"ids": [0]},
        {"ids": [2**31]},
        {"all": False},
        {"all": True, "more": 1},
        [1, 2],
    ],
)
async def test_bad_bodies_change_nothing(
    api: httpx.AsyncClient, make_guest: MakeGuest, body: Any
) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    await api.post(f"/api/friends/{budi.player_id}", headers=ayu.headers)
    before = await inbox(api, budi)
    response = await read(api, budi, body)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid"
    assert await inbox(api, budi) == before


async def test_a_token_is_needed(api: httpx.AsyncClient) -> None:
    assert (await api.get("/api/notifications")).status_code == 401
    assert (await api.post("/api/notifications/read", json={"all": True})).status_code == 401


async def test_the_last_100_are_kept(api: httpx.AsyncClient, make_guest: MakeGuest) -> None:
    assert KEEP_NOTIFICATIONS == 100
    me = await make_guest("Me")
    askers = [await make_guest(f"A{n}") for n in range(KEEP_NOTIFICATIONS + 3)]
    for asker in askers:
        await api.post(f"/api/friends/{me.player_id}", headers=asker.headers)
    got = await inbox(api, me)
    assert got["unread"] == KEEP_NOTIFICATIONS
    names = [n["payload"]["name"] for n in got["notifications"]]
    assert names == [f"A{n}" for n in reversed(range(3, KEEP_NOTIFICATIONS + 3))]
