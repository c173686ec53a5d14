"""/ws/me against the real server on both databases: friends' presence on and off (and what
GET /api/friends says), privacy, a replaced socket, bad hellos, notifications pushed live, and
``your_turn`` for a seat whose player is away from the table."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tests.app.live.client import Lobby, MeClient, TableClient
from tests.app.live.server import ServerProcess

Guest = dict[str, Any]


@pytest.fixture
async def server(database_url: str, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    process = ServerProcess(
        database_url,
        tmp_path / "server",
        GAPLE_RATE_FRIENDS="1000/minute",
        GAPLE_RATE_GUESTS="1000/minute",
    )
    await asyncio.to_thread(process.start)
    try:
        yield process
    finally:
        await asyncio.to_thread(process.stop)


def ws(server: ServerProcess) -> str:
    return server.base_url.replace("http", "ws")


def auth(guest: Guest) -> dict[str, str]:
    return {"Authorization": f"Bearer {guest['token']}"}


async def befriend(lobby: Lobby, a: Guest, b: Guest) -> None:
    for asker, other in ((a, b), (b, a)):
        r = await lobby.http.post(f"/api/friends/{other['player_id']}", headers=auth(asker))
        assert r.status_code == 200, r.text


async def listed(lobby: Lobby, me: Guest) -> dict[str, tuple[bool, str | None]]:
    r = await lobby.http.get("/api/friends", headers=auth(me))
    assert r.status_code == 200, r.text
    return {f["player_id"]: (f["online"], f["table"]) for f in r.json()["friends"]}


async def set_visible(lobby: Lobby, me: Guest, visible: Any) -> httpx.Response:
    return await lobby.http.put(
        "/api/players/me/presence", json={"visible": visible}, headers=auth(me)
    )


async def test_friends_see_presence_on_and_off(server: ServerProcess) -> None:
    async with Lobby(server.base_url) as lobby:
        ayu, budi = await lobby.guest("Ayu"), await lobby.guest("Budi")
        await befriend(lobby, ayu, budi)
        assert await listed(lobby, ayu) == {budi["player_id"]: (False, None)}
        mine = MeClient(ws(server), ayu["token"])
        await mine.connect()
        [welcome] = mine.of_type("welcome_me")
        assert welcome["player_id"] == ayu["player_id"] and welcome["presence_visible"] is True
        assert welcome["unread"] == 1  # Budi's acceptance
        assert mine.shown(budi["player_id"]) == (False, None)

        theirs = MeClient(ws(server), budi["token"])
        await theirs.connect()
        await mine.wait_for(lambda: mine.shown(budi["player_id"]) == (True, None))
        await theirs.wait_for(lambda: theirs.shown(ayu["player_id"]) == (True, None))
        assert await listed(lobby, ayu) == {budi["player_id"]: (True, None)}

        room = await lobby.create_room(budi["token"])
        await lobby.sit(budi["token"], room["code"], 0)
        table = TableClient(f"{ws(server)}/ws/rooms/{room['code']}", budi["token"])
        await table.connect()
        await mine.wait_for(lambda: mine.shown(budi["player_id"]) == (True, room["code"]))
        assert await listed(lobby, ayu) == {budi["player_id"]: (True, room["code"])}

        r = await set_visible(lobby, budi, False)
        assert r.status_code == 200 and r.json() == {"visible": False}
        await mine.wait_for(lambda: mine.shown(budi["player_id"]) == (False, None))
        assert await listed(lobby, ayu) == {budi["player_id"]: (False, None)}
        r = await lobby.http.get("/api/players/me/presence", headers=auth(budi))
        assert r.json() == {"visible": False}
        assert (await set_visible(lobby, budi, "no")).status_code == 422  # nothing changes
        assert (await lobby.http.get("/api/players/me/presence", headers=auth(budi))).json() == {
            "visible": False
        }
        # The hidden player still sees their friends.
        assert theirs.shown(ayu["player_id"]) == (True, None)

        assert (await set_visible(lobby, budi, True)).json() == {"visible": True}
        await mine.wait_for(lambda: mine.shown(budi["player_id"]) == (True, room["code"]))
        await table.close()
        await mine.wait_for(lambda: mine.shown(budi["player_id"]) == (True, None))
        await theirs.close()
        await mine.wait_for(lambda: mine.shown(budi["player_id"]) == (False, None))
        assert await listed(lobby, ayu) == {budi["player_id"]: (False, None)}
        await mine.close()


async def test_presence_goes_to_friends_only(server: ServerProcess) -> None:
    async with Lobby(server.base_url) as lobby:
        ayu, budi, cici = [await lobby.guest(n) for n in ("Ayu", "Budi", "Cici")]
        await befriend(lobby, ayu, budi)
        # Cici asked Budi (a request is no friendship) and is asked by nobody.
        await lobby.http.post(f"/api/friends/{budi['player_id']}", headers=auth(cici))
        friend, stranger = MeClient(ws(server), ayu["token"]), MeClient(ws(server), cici["token"])
        await friend.connect()
        await stranger.connect()
        budis = MeClient(ws(server), budi["token"])
        await budis.connect()
        await friend.wait_for(lambda: friend.shown(budi["player_id"]) == (True, None))
        await stranger.sync()
        assert stranger.of_type("presence") == []
        assert budi["player_id"] not in await listed(lobby, cici)

        # Friends no more: the former friend is shown offline and hears nothing further.
        r = await lobby.http.delete(f"/api/friends/{budi['player_id']}", headers=auth(ayu))
        assert r.status_code == 204
        await friend.wait_for(lambda: friend.shown(budi["player_id"]) == (False, None))
        await budis.close()
        await friend.sync()
        assert friend.shown(budi["player_id"]) == (False, None)
        assert len(friend.of_type("presence")) == 2
        for client in (friend, stranger):
            await client.close()


async def test_a_second_socket_replaces_the_first(server: ServerProcess) -> None:
    async with Lobby(server.base_url) as lobby:
        ayu, budi = await lobby.guest("Ayu"), await lobby.guest("Budi")
        first, second = MeClient(ws(server), ayu["token"]), MeClient(ws(server), ayu["token"])
        await first.connect()
        await second.connect()
        await first.wait_closed()
        assert first.of_type("bye") == [{"type": "bye", "reason": "replaced"}]
        assert first.closed_with == 4001
        await lobby.http.post(f"/api/friends/{ayu['player_id']}", headers=auth(budi))
        await second.wait_for(lambda: bool(second.of_type("notification")))
        assert first.of_type("notification") == []
        await second.close()


@pytest.mark.parametrize(
    ("first", "code"),
    [
        ({"type": "ping"}, "hello_required"),
        ({"type": "hello"}, "bad_token"),
        ({"type": "hello", "token": "x" * 43}, "bad_token"),
        ({"type": "hello", "token": "t", "extra": 1}, "bad_message"),
    ],
)
async def test_bad_hellos_are_refused(server: ServerProcess, first: Any, code: str) -> None:
    async with websockets.connect(f"{ws(server)}/ws/me") as sock:
        await sock.send(json.dumps(first))
        answer = json.loads(await asyncio.wait_for(sock.recv(), 15))
        assert answer["type"] == "error" and answer["code"] == code
        if code == "bad_message":  # answered; the hello is still awaited on the same socket
            await sock.send(json.dumps({"type": "hello", "token": "x" * 43}))
            answer = json.loads(await asyncio.wait_for(sock.recv(), 15))
            assert answer["code"] == "bad_token"
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(sock.recv(), 15)
        assert sock.close_code == 1008


async def test_a_friend_request_arrives_live_and_is_stored(server: ServerProcess) -> None:
    async with Lobby(server.base_url) as lobby:
        ayu, budi = await lobby.guest("Ayu"), await lobby.guest("Budi")
        mine = MeClient(ws(server), ayu["token"])
        await mine.connect()
        await lobby.http.post(f"/api/friends/{ayu['player_id']}", headers=auth(budi))
        await mine.wait_for(lambda: bool(mine.of_type("notification")))
        [live] = mine.of_type("notification")
        r = await lobby.http.get("/api/notifications", headers=auth(ayu))
        [stored] = r.json()["notifications"]
        assert live == {"type": "notification", **stored}
        assert live["kind"] == "friend_request"
        assert live["payload"] == {"player_id": budi["player_id"], "name": "Budi"}
        await mine.sync()
        await mine.send({"type": "chat", "text": "hi"})  # only ping is sent on /ws/me
        await mine.wait_for(lambda: bool(mine.of_type("error")))
        assert mine.of_type("error")[0]["code"] == "bad_message"
        await mine.close()
        again = MeClient(ws(server), ayu["token"])
        await again.connect()
        assert again.of_type("welcome_me")[0]["unread"] == 1
        await again.close()


async def test_your_turn_reaches_a_player_away_from_the_table(server: ServerProcess) -> None:
    async with Lobby(server.base_url) as lobby:
        ayu = await lobby.guest("Ayu")
        room = await lobby.create_room(ayu["token"], turn_seconds=60)
        await lobby.sit(ayu["token"], room["code"], 0)
        for seat in (1, 2, 3):
            await lobby.seat_bot(ayu["token"], room["code"], seat)
        mine = MeClient(ws(server), ayu["token"])
        await mine.connect()
        await lobby.start(ayu["token"], room["code"])
        await mine.wait_for(lambda: bool(mine.of_type("notification")))
        [told] = mine.of_type("notification")
        assert told["kind"] == "your_turn" and told["id"] is None
        assert told["payload"] == {"table": room["code"]}
        # Once per turn: it is still that turn (60 s), and nothing more comes.
        await mine.sync()
        assert len(mine.of_type("notification")) == 1
        # At the table, the turn is the player's: no notification for it.
        table = TableClient(f"{ws(server)}/ws/rooms/{room['code']}", ayu["token"])
        await table.connect()
        assert table.view is not None and table.view.get("turn") == 0
        await mine.sync()
        assert len(mine.of_type("notification")) == 1
        await table.close()
        await mine.close()
