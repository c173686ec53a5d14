"""Blocks on both databases: what a block ends, a blocked player's request answered as for an
unknown player, quick play never seating a blocked pair (concurrent calls included), and table
talk filtered for the blocker over real sockets (a uvicorn subprocess)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.settings import Settings
from app.store import social
from app.store.models import Seat
from tests.app.live.client import Lobby, TableClient
from tests.app.live.conftest import server
from tests.app.live.server import ServerProcess
from tests.conftest import Guest

__all__ = ["server"]  # the fixture, used by name

MakeGuest = Callable[..., Awaitable[Guest]]


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={
            "rate_friends": "1000/minute",
            "rate_guests": "1000/minute",
            "rate_quickplay": "1000/minute",
        }
    )


async def post(api: httpx.AsyncClient, path: str, me: Guest) -> httpx.Response:
    return await api.post(path, headers=me.headers)


async def lists(api: httpx.AsyncClient, me: Guest) -> dict[str, list[str]]:
    body = (await api.get("/api/friends", headers=me.headers)).json()
    return {key: [entry["player_id"] for entry in body[key]] for key in body}


async def blocked(api: httpx.AsyncClient, me: Guest) -> list[str]:
    response = await api.get("/api/blocks", headers=me.headers)
    assert response.status_code == 200, response.text
    return [entry["player_id"] for entry in response.json()["blocked"]]


NOTHING: dict[str, list[str]] = {"friends": [], "incoming": [], "outgoing": []}


@pytest.mark.parametrize("tie", ["friends", "my_request", "their_request"])
async def test_a_block_ends_the_tie_and_withdraws_requests(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest, tie: str
) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    first, second = (ayu, budi) if tie != "their_request" else (budi, ayu)
    await post(api, f"/api/friends/{second.player_id}", first)
    if tie == "friends":
        await post(api, f"/api/friends/{first.player_id}", second)
    response = await post(api, f"/api/blocks/{budi.player_id}", ayu)
    assert response.status_code == 204, response.text
    assert await blocked(api, ayu) == [budi.player_id]
    assert await blocked(api, budi) == []  # nobody is told
    assert await lists(api, ayu) == NOTHING and await lists(api, budi) == NOTHING
    async with app.state.db.session() as session:
        for who in (ayu, budi) if tie != "friends" else ():  # a request takes its notification
            kinds = [
                n.kind for n in await social.notifications_of(session, player_id=who.player_id)
            ]
            assert "friend_request" not in kinds
    entry = (await api.get("/api/blocks", headers=ayu.headers)).json()["blocked"][0]
    assert entry["name"] == "Budi" and entry["since"]


async def test_a_blocked_players_request_is_answered_as_for_nobody(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    assert (await post(api, f"/api/blocks/{budi.player_id}", ayu)).status_code == 204
    to_blocker = await post(api, f"/api/friends/{ayu.player_id}", budi)
    to_nobody = await post(api, f"/api/friends/{'0' * 32}", budi)
    assert to_blocker.status_code == to_nobody.status_code == 404
    assert to_blocker.json() == to_nobody.json()
    assert to_blocker.json()["error"]["code"] == "player_not_found"
    assert await lists(api, ayu) == NOTHING and await lists(api, budi) == NOTHING
    # The blocker asking the one they block is told to unblock first.
    refused = await post(api, f"/api/friends/{budi.player_id}", ayu)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "player_blocked"
    # Unblocked, they may ask again (what the block ended does not come back by itself).
    assert (
        await api.delete(f"/api/blocks/{budi.player_id}", headers=ayu.headers)
    ).status_code == 204
    assert await blocked(api, ayu) == []
    response = await post(api, f"/api/friends/{ayu.player_id}", budi)
    assert response.status_code == 200 and response.json()["state"] == "outgoing"


async def test_bad_block_calls_change_nothing(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    for method in ("POST", "DELETE"):
        mine = await api.request(method, f"/api/blocks/{ayu.player_id}", headers=ayu.headers)
        assert mine.status_code == 422 and mine.json()["error"]["code"] == "not_yourself"
        nobody = await api.request(method, f"/api/blocks/{'0' * 32}", headers=ayu.headers)
        assert nobody.status_code == 404
        assert nobody.json()["error"]["code"] == "player_not_found"
        long = await api.request(method, f"/api/blocks/{'x' * 33}", headers=ayu.headers)
        assert long.status_code == 422
        assert (await api.request(method, f"/api/blocks/{budi.player_id}")).status_code == 401
    assert await blocked(api, ayu) == []
    # Blocking twice, and unblocking someone not blocked, change nothing.
    for _ in range(2):
        assert (await post(api, f"/api/blocks/{budi.player_id}", ayu)).status_code == 204
    assert await blocked(api, ayu) == [budi.player_id]
    for _ in range(2):
        response = await api.delete(f"/api/blocks/{budi.player_id}", headers=ayu.headers)
        assert response.status_code == 204
    assert await blocked(api, ayu) == []


# --- quick play ----------------------------------------------------------------------------------


async def quick_play(api: httpx.AsyncClient, me: Guest) -> str:
    response = await api.post("/api/quickplay", json={"mode": "tunggal"}, headers=me.headers)
    assert response.status_code == 200, response.text
    return str(response.json()["room"]["code"])


@pytest.mark.parametrize("direction", ["first_blocks", "second_blocks"])
async def test_quick_play_never_seats_a_blocked_pair(
    api: httpx.AsyncClient, make_guest: MakeGuest, direction: str
) -> None:
    ayu, budi, citra = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("C")
    blocker, other = (ayu, budi) if direction == "first_blocks" else (budi, ayu)
    await post(api, f"/api/blocks/{other.player_id}", blocker)
    first = await quick_play(api, ayu)
    second = await quick_play(api, budi)
    assert first != second  # a table of its own rather than the blocker's
    assert await quick_play(api, citra) == first  # others still join the longest-waiting one


async def test_concurrent_quick_play_never_seats_a_blocked_pair(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    for round_ in range(3):
        players = [await make_guest(f"R{round_}P{n}") for n in range(6)]
        pairs = [(players[0], players[1]), (players[2], players[3]), (players[4], players[1])]
        for blocker, other in pairs:
            await post(api, f"/api/blocks/{other.player_id}", blocker)
        codes = await asyncio.gather(*(quick_play(api, p) for p in players))
        where = {p.player_id: code for p, code in zip(players, codes, strict=True)}
        for blocker, other in pairs:
            assert where[blocker.player_id] != where[other.player_id], (round_, where)
        async with app.state.db.session() as session:  # what is stored agrees
            for blocker, other in pairs:
                rooms_of = [
                    set(await session.scalars(select(Seat.room_id).where(Seat.player_id == p)))
                    for p in (blocker.player_id, other.player_id)
                ]
                assert not rooms_of[0] & rooms_of[1]
        for p in players:  # leave, so that the next round starts from empty tables
            code = where[p.player_id]
            room = (await api.get(f"/api/rooms/{code}")).json()
            seat = next(s["seat"] for s in room["seats"] if s["player_id"] == p.player_id)
            await api.delete(f"/api/rooms/{code}/seats/{seat}", headers=p.headers)


# --- table talk over real sockets ---------------------------------------------------------------


def heard(client: TableClient) -> list[Any]:
    """What the client heard of the table's talk, in order: texts, emoji and phrase ids."""
    said = [m for m in client.received if m["type"] in ("chat", "react", "phrase")]
    return [m.get("text") or m.get("emoji") or m.get("id") for m in said]


def history(client: TableClient) -> list[Any]:
    frames = [m for m in client.received if m["type"] == "chat_history"]
    return [m.get("text") or m.get("id") for m in frames[0]["lines"]] if frames else []


async def test_the_blocker_does_not_hear_the_blocked_at_a_shared_table(
    server: ServerProcess,
) -> None:
    lobby = Lobby(server.base_url)
    guests = [await lobby.guest(name) for name in ("Ayu", "Budi", "Citra", "Dewi", "Fan")]
    ayu, budi, _, dewi, fan = guests
    code = (await lobby.create_room(ayu["token"]))["code"]
    for seat, guest in enumerate(guests[:4]):
        await lobby.sit(guest["token"], code, seat)

    def client(guest: dict[str, Any], name: str) -> TableClient:
        return TableClient(server.ws_url(code), guest["token"], name=name)

    seats = [client(g, g["name"]) for g in guests[:4]]
    watcher = client(fan, "fan")
    try:
        for each in [*seats, watcher]:
            await each.connect()
        auth = {"Authorization": f"Bearer {ayu['token']}"}
        before = len(seats[1].received)
        response = await lobby.http.post(f"/api/blocks/{budi['player_id']}", headers=auth)
        assert response.status_code == 204, response.text

        await seats[1].send({"type": "chat", "text": "dari Budi"})
        await seats[1].send({"type": "react", "emoji": "🔥"})
        await seats[1].send({"type": "phrase", "id": "mantap"})
        await seats[2].send({"type": "chat", "text": "dari Citra"})
        # The table handles them in order: once Citra's line is there, Budi's would be too.
        for each in [*seats, watcher]:
            await each.wait_for(lambda c=each: "dari Citra" in heard(c))
        assert heard(seats[0]) == ["dari Citra"]
        # Budi is told nothing: no room frame came with the block (a reload would send one).
        assert "room" not in {m["type"] for m in seats[1].received[before:]}
        for each in [*seats[1:], watcher]:  # everyone else hears both; spectating is unaffected
            assert heard(each) == ["dari Budi", "🔥", "mantap", "dari Citra"]
        await seats[0].send({"type": "chat", "text": "dari Ayu"})
        await seats[1].wait_for(lambda: "dari Ayu" in heard(seats[1]))  # Budi still hears Ayu

        # The history after welcome leaves Budi's lines out for Ayu, and only for her.
        await seats[0].close()
        await seats[3].close()
        seats[0], seats[3] = client(ayu, "Ayu again"), client(dewi, "Dewi again")
        for each in (seats[0], seats[3]):
            await each.connect()
            await each.wait_for(lambda c=each: bool(history(c)))
        assert history(seats[0]) == ["dari Citra", "dari Ayu"]
        assert history(seats[3]) == ["dari Budi", "mantap", "dari Citra", "dari Ayu"]

        # Unblocked: Ayu hears Budi again, at once.
        response = await lobby.http.delete(f"/api/blocks/{budi['player_id']}", headers=auth)
        assert response.status_code == 204
        await seats[1].send({"type": "chat", "text": "Budi lagi"})
        await seats[0].wait_for(lambda: "Budi lagi" in heard(seats[0]))
    finally:
        for each in [*seats, watcher]:
            await each.close()
        await lobby.close()
