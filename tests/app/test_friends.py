"""Friends over REST on both databases: every transition of a pair's state machine (none ->
requested -> friends -> none; declined, cancelled, ended), double and crossing requests, the
limit on friends, bad input and floods refused without changing anything."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app.main import create_app
from app.settings import Settings
from app.store import social
from app.store.models import Friendship, Notification
from tests.conftest import Guest

MakeGuest = Callable[..., Awaitable[Guest]]


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # Room for the calls of a test from one address; the flood test sets its own budget.
    return settings.model_copy(
        update={"rate_friends": "1000/minute", "rate_guests": "100/minute", "max_friends": 2}
    )


async def befriend(api: httpx.AsyncClient, me: Guest, other: str) -> httpx.Response:
    return await api.post(f"/api/friends/{other}", headers=me.headers)


async def unfriend(api: httpx.AsyncClient, me: Guest, other: str) -> httpx.Response:
    return await api.delete(f"/api/friends/{other}", headers=me.headers)


async def lists(api: httpx.AsyncClient, me: Guest) -> dict[str, list[str]]:
    """The caller's lists, as the other players' ids."""
    response = await api.get("/api/friends", headers=me.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    return {key: [entry["player_id"] for entry in body[key]] for key in body}


async def kinds(app: Any, me: Guest) -> list[tuple[str, str]]:
    """The player's stored notifications, newest first, as (kind, the other player's id)."""
    async with app.state.db.session() as session:
        rows = await social.notifications_of(session, player_id=me.player_id)
    return [(row.kind, row.payload["player_id"]) for row in rows]


NOTHING: dict[str, list[str]] = {"friends": [], "incoming": [], "outgoing": []}


async def test_request_then_accept(app: Any, api: httpx.AsyncClient, make_guest: MakeGuest) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    response = await befriend(api, ayu, budi.player_id)
    assert response.status_code == 200, response.text
    assert response.json() == {"player_id": budi.player_id, "state": "outgoing"}
    assert await lists(api, ayu) == {**NOTHING, "outgoing": [budi.player_id]}
    assert await lists(api, budi) == {**NOTHING, "incoming": [ayu.player_id]}
    assert await kinds(app, budi) == [("friend_request", ayu.player_id)]
    assert await kinds(app, ayu) == []

    response = await befriend(api, budi, ayu.player_id)  # accepts the waiting request
    assert response.json() == {"player_id": ayu.player_id, "state": "friends"}
    assert await lists(api, ayu) == {**NOTHING, "friends": [budi.player_id]}
    assert await lists(api, budi) == {**NOTHING, "friends": [ayu.player_id]}
    assert await kinds(app, ayu) == [("friend_accepted", budi.player_id)]
    friend = (await api.get("/api/friends", headers=ayu.headers)).json()["friends"][0]
    assert friend["name"] == "Budi" and friend["online"] is False and friend["table"] is None


async def test_asking_again_or_asking_a_friend_changes_nothing(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    for _ in range(2):
        assert (await befriend(api, ayu, budi.player_id)).json()["state"] == "outgoing"
    assert await kinds(app, budi) == [("friend_request", ayu.player_id)]  # one, not two
    await befriend(api, budi, ayu.player_id)
    for me, other in ((ayu, budi), (budi, ayu)):
        assert (await befriend(api, me, other.player_id)).json()["state"] == "friends"
    assert await kinds(app, ayu) == [("friend_accepted", budi.player_id)]
    assert await kinds(app, budi) == [("friend_request", ayu.player_id)]
    assert await count(app, Friendship) == 1


async def count(app: Any, model: Any) -> int:
    async with app.state.db.session() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def test_requests_crossing_each_other_make_a_friendship(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    for round_ in range(3):
        ayu, budi = await make_guest(f"Ayu{round_}"), await make_guest(f"Budi{round_}")
        answers = await asyncio.gather(
            befriend(api, ayu, budi.player_id), befriend(api, budi, ayu.player_id)
        )
        assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
        # One of them asked first, the other's request accepted it.
        assert sorted(a.json()["state"] for a in answers) == ["friends", "outgoing"]
        assert await lists(api, ayu) == {**NOTHING, "friends": [budi.player_id]}
        assert await lists(api, budi) == {**NOTHING, "friends": [ayu.player_id]}
        notes = sorted(await kinds(app, ayu) + await kinds(app, budi))
        assert [kind for kind, _ in notes] == ["friend_accepted", "friend_request"]


@pytest.mark.parametrize("who", ["asked", "asker", "friend"])
async def test_decline_cancel_and_end(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest, who: str
) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    await befriend(api, ayu, budi.player_id)
    if who == "friend":
        await befriend(api, budi, ayu.player_id)
    leaver, other = (budi, ayu) if who == "asked" else (ayu, budi)
    response = await unfriend(api, leaver, other.player_id)
    assert response.status_code == 204, response.text
    assert await lists(api, ayu) == NOTHING and await lists(api, budi) == NOTHING
    assert await count(app, Friendship) == 0
    if who != "friend":  # a request that goes takes its notification with it
        assert await kinds(app, budi) == []
    # Nothing between them now: removing again changes nothing, asking again starts afresh.
    assert (await unfriend(api, leaver, other.player_id)).status_code == 204
    assert (await befriend(api, budi, ayu.player_id)).json()["state"] == "outgoing"
    assert await lists(api, ayu) == {**NOTHING, "incoming": [budi.player_id]}


async def test_bad_input_is_refused_and_changes_nothing(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu = await make_guest("Ayu")
    for call in (befriend, unfriend):
        response = await call(api, ayu, ayu.player_id)
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "not_yourself"
        assert response.json()["error"]["field"] == "player_id"
        response = await call(api, ayu, "0" * 32)
        assert response.status_code == 404
        assert response.json()["error"] == {
            "code": "player_not_found",
            "message": "no such player",
            "field": "player_id",
        }
        response = await call(api, ayu, "x" * 33)  # longer than any player id
        assert response.status_code == 422 and response.json()["error"]["code"] == "invalid"
    response = await api.post(f"/api/friends/{ayu.player_id}")  # no token
    assert response.status_code == 401
    assert (await api.get("/api/friends")).status_code == 401
    assert await lists(api, ayu) == NOTHING
    assert await count(app, Friendship) == 0 and await count(app, Notification) == 0


async def test_the_limit_on_friends(
    settings: Settings, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    assert settings.max_friends == 2
    ayu, hana, dewi = await make_guest("Ayu"), await make_guest("Hana"), await make_guest("Dewi")
    await befriend(api, ayu, hana.player_id)  # asked while Ayu had room
    friends = [await make_guest(f"F{n}") for n in range(2)]
    for friend in friends:
        await befriend(api, friend, ayu.player_id)
        assert (await befriend(api, ayu, friend.player_id)).json()["state"] == "friends"
    full = {**NOTHING, "friends": [f.player_id for f in friends], "outgoing": [hana.player_id]}
    assert await lists(api, ayu) == full

    refused = await befriend(api, ayu, dewi.player_id)  # a new request from a full player
    assert refused.status_code == 409
    assert refused.json()["error"] == {
        "code": "friend_limit",
        "message": "you have 2 friends, the most there can be",
    }
    # Anyone may ask a full player, who cannot accept until a friendship ends.
    assert (await befriend(api, dewi, ayu.player_id)).json()["state"] == "outgoing"
    refused = await befriend(api, ayu, dewi.player_id)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "friend_limit"
    # Accepting the request of a player who is full meanwhile: refused for their side.
    refused = await befriend(api, hana, ayu.player_id)
    assert refused.status_code == 409
    assert refused.json()["error"]["message"] == "they have 2 friends, the most there can be"
    assert await lists(api, ayu) == {**full, "incoming": [dewi.player_id]}
    assert await lists(api, hana) == {**NOTHING, "incoming": [ayu.player_id]}

    assert (await unfriend(api, ayu, friends[0].player_id)).status_code == 204
    assert (await befriend(api, hana, ayu.player_id)).json()["state"] == "friends"


async def test_guests_keep_their_friends_when_they_save_an_account(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    await befriend(api, ayu, budi.player_id)
    await befriend(api, budi, ayu.player_id)
    saved = await api.post(
        "/api/accounts",
        json={"username": "ayu_1", "password": "correct horse"},
        headers=ayu.headers,
    )
    assert saved.status_code == 201, saved.text
    login = await api.post("/api/sessions", json={"username": "ayu_1", "password": "correct horse"})
    again = Guest(ayu.player_id, login.json()["token"], "Ayu")
    assert await lists(api, again) == {**NOTHING, "friends": [budi.player_id]}


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[Any]:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


def client(app: Any, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


async def test_a_flood_of_requests_is_refused_and_changes_nothing(settings: Settings) -> None:
    limited = settings.model_copy(update={"rate_friends": "3/minute"})
    async with running(limited) as app, client(app, "192.0.2.10") as one:
        made = [await one.post("/api/guests", json={"name": f"P{n}"}) for n in range(6)]
        me, *others = [Guest(**r.json()) for r in made]
        for other in others[:3]:
            assert (await befriend(one, me, other.player_id)).status_code == 200
        refused = await befriend(one, me, others[3].player_id)
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "rate_limited"
        assert int(refused.headers["Retry-After"]) >= 1
        assert await lists(one, me) == {**NOTHING, "outgoing": [o.player_id for o in others[:3]]}
        assert await kinds(app, others[3]) == []
        # The player's own budget holds from any address ...
        async with client(app, "192.0.2.20") as two:
            refused = await befriend(two, me, others[4].player_id)
            assert refused.status_code == 429
            # ... and the address's budget for anyone calling from it.
            refused = await befriend(one, others[4], me.player_id)
            assert refused.status_code == 429
            assert (await befriend(two, others[4], me.player_id)).status_code == 200
        assert await count(app, Friendship) == 4


async def test_a_player_is_found_by_username_in_any_case(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    ayu = await make_guest("Ayu")
    saved = await api.post(
        "/api/accounts",
        json={"username": "ayu_66", "password": "a long secret"},
        headers=ayu.headers,
    )
    assert saved.status_code == 201, saved.text
    for typed in ("ayu_66", "AYU_66"):
        found = await api.get(f"/api/players/by-username/{typed}")
        assert found.status_code == 200, found.text
        assert (found.json()["player_id"], found.json()["name"]) == (ayu.player_id, "Ayu")
    for typed in ("nobody_here", "no way!", "x"):
        missing = await api.get(f"/api/players/by-username/{typed}")
        assert missing.status_code == 404, typed
        assert missing.json()["error"]["code"] == "player_not_found"


async def test_looking_players_up_by_username_is_rate_limited(
    app: Any, api: httpx.AsyncClient
) -> None:
    app.state.settings.rate_lookups = "2/minute"
    for _ in range(2):
        assert (await api.get("/api/players/by-username/someone")).status_code == 404
    limited = await api.get("/api/players/by-username/someone")
    assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate_limited"
    assert "Retry-After" in limited.headers
