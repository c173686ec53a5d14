"""The operators' API (/api/admin) on SQLite and PostgreSQL: refused without the admin token and
off without the setting; live tables listed with their seats; rooms closed, players removed and
banned, with the live tables told. In process, on a fake clock, sockets as probes; the real server
for the WebSocket handshake, the logs and several nodes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from pydantic import SecretStr
from sqlalchemy import select

from app.main import create_app
from app.rooms.clock import FakeClock
from app.rooms.manager import TableManager
from app.rooms.protocol import CLOSE_BANNED, CLOSE_REMOVED, CLOSE_ROOM_CLOSED
from app.rooms.store import SqlGameStore
from app.settings import Settings
from app.store.models import Player, Room, Seat
from tests.app.documents import validate_component
from tests.app.live.client import Lobby
from tests.app.live.conftest import CONFIG, Probe
from tests.app.live.server import ServerProcess

ADMIN_TOKEN = "operators-only-3f9c2a7e51d04b68"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"admin_token": SecretStr(ADMIN_TOKEN)})


@pytest.fixture
def live_factory() -> Callable[[Any], TableManager]:
    clock = FakeClock()
    return lambda app: TableManager(SqlGameStore(app.state.db), clock=clock, config=CONFIG)


async def spec_of(api: httpx.AsyncClient) -> dict[str, Any]:
    document: dict[str, Any] = (await api.get("/openapi.json")).json()
    return document


def documented(spec: dict[str, Any], path: str, method: str, response: httpx.Response) -> None:
    """The answer is one the operation documents, in the shared Error envelope."""
    assert str(response.status_code) in spec["paths"][path][method]["responses"], response.text
    validate_component(spec, "Error", response.json())


async def joined(app: Any, room_id: str, player_id: str | None) -> Probe:
    table = await app.state.live.get(room_id)
    probe = Probe()
    probe.conn.player_id = player_id
    await table.join(probe.conn, None)
    await table.settle()
    return probe


async def settle(app: Any, room_id: str, *probes: Probe) -> None:
    table = app.state.live.tables.get(room_id)
    if table is not None:
        await table.settle()
        await table.settle()  # a follow-up may post again (a reload after a hand-over)
    for probe in probes:
        await probe.drain()


async def open_room(
    api: httpx.AsyncClient, make_guest: Any, seated: int, public: bool = True
) -> tuple[Any, list[Any]]:
    guests = [await make_guest(f"G{i}") for i in range(seated)]
    body = {"mode": "tunggal", "public": public}
    created = await api.post("/api/rooms", json=body, headers=guests[0].headers)
    assert created.status_code == 201, created.text
    room = created.json()
    for seat, guest in enumerate(guests):
        r = await api.post(f"/api/rooms/{room['code']}/seats/{seat}", headers=guest.headers)
        assert r.status_code == 200, r.text
    return room, guests


async def playing_room(
    api: httpx.AsyncClient, make_guest: Any, public: bool = True
) -> tuple[Any, list[Any]]:
    """Guest 0 (the host) in seat 0, guest 1 in seat 1, bots in seats 2 and 3 (``start`` starts
    the set)."""
    room, guests = await open_room(api, make_guest, 2, public)
    for seat in (2, 3):
        r = await api.post(
            f"/api/rooms/{room['code']}/bots/{seat}", json={}, headers=guests[0].headers
        )
        assert r.status_code == 200, r.text
    return room, guests


async def start(api: httpx.AsyncClient, app: Any, room: Any, host: Any) -> None:
    r = await api.post(f"/api/rooms/{room['code']}/start", headers=host.headers)
    assert r.status_code == 200, r.text
    await settle(app, room["id"])


async def stored_room(app: Any, room_id: str) -> Room:
    async with app.state.db.session() as session:
        room = await session.get(Room, room_id)
        assert room is not None
        return room


async def stored_seats(app: Any, room_id: str) -> dict[int, Seat]:
    async with app.state.db.session() as session:
        rows = await session.scalars(select(Seat).where(Seat.room_id == room_id))
        return {row.seat: row for row in rows}


# --- who may call -----------------------------------------------------------------------------


async def test_calls_without_the_admin_token_are_refused(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    spec = await spec_of(api)
    guest = await make_guest("Ayu")
    answers = [
        await api.get("/api/admin/tables"),
        await api.get("/api/admin/tables", headers={"Authorization": "Bearer wrong-token"}),
        await api.get("/api/admin/tables", headers={"Authorization": f"Bearer {ADMIN_TOKEN}x"}),
        await api.get("/api/admin/tables", headers=guest.headers),  # a player's token is not it
        await api.get("/api/admin/tables", headers={"Authorization": ADMIN_TOKEN}),  # no scheme
    ]
    for response in answers:
        assert response.status_code == 401, response.text
        assert response.json()["error"]["code"] == "unauthorized"
        documented(spec, "/api/admin/tables", "get", response)
    refused_ban = await api.post(f"/api/admin/players/{guest.player_id}/ban", json={})
    assert refused_ban.status_code == 401
    assert (await api.get("/api/guests/me", headers=guest.headers)).status_code == 200  # unchanged
    ok = await api.get("/api/admin/tables", headers=ADMIN)
    assert ok.status_code == 200, ok.text


@pytest.mark.parametrize("value", [None, "", "   "])
async def test_the_admin_api_is_absent_without_the_setting(
    settings: Settings, value: str | None, make_guest: Any
) -> None:
    # A budget of one call: were the absent API still rate limited, the second call would be 429.
    off = Settings(**{**settings.model_dump(), "admin_token": value, "rate_admin": "1/minute"})
    assert off.admin_token is None
    app = create_app(off)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            spec = await spec_of(client)
            page = await client.get("/admin")
            home = await client.get("/")
            guest = (await client.post("/api/guests", json={"name": "Ayu"})).json()
            answers = [
                ("/api/admin/tables", "get", await client.get("/api/admin/tables", headers=ADMIN)),
                (
                    "/api/admin/players/{player_id}/ban",
                    "post",
                    await client.post(
                        f"/api/admin/players/{guest['player_id']}/ban", headers=ADMIN
                    ),
                ),
                (
                    "/api/admin/rooms/{code}",
                    "delete",
                    await client.delete("/api/admin/rooms/ABCDEF", headers=ADMIN),
                ),
            ]
            me = await client.get(
                "/api/guests/me", headers={"Authorization": f"Bearer {guest['token']}"}
            )
    for _path, _method, response in answers:
        assert response.status_code == 404, response.text
        assert response.json()["error"]["code"] == "not_found"
    assert not [path for path in spec["paths"] if path.startswith("/api/admin")]
    assert "admin" not in {
        tag for op in spec["paths"].values() for m in op.values() for tag in m.get("tags", [])
    }
    assert page.status_code == 404 and home.status_code == 200
    assert me.status_code == 200  # the refused ban did nothing


async def test_the_admin_api_and_page_are_there_with_the_setting(api: httpx.AsyncClient) -> None:
    spec = await spec_of(api)
    assert "/api/admin/tables" in spec["paths"]
    page = await api.get("/admin")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")


async def test_admin_calls_are_rate_limited(settings: Settings, live_factory: Any) -> None:
    limited = settings.model_copy(update={"rate_admin": "3/minute"})
    app = create_app(limited, live_factory=live_factory)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            spec = await spec_of(client)
            answers = [await client.get("/api/admin/tables", headers=ADMIN) for _ in range(3)]
            wrong = await client.get("/api/admin/tables", headers={"Authorization": "Bearer x"})
    assert [r.status_code for r in answers] == [200, 200, 200]
    assert wrong.status_code == 429 and "Retry-After" in wrong.headers  # before the token check
    documented(spec, "/api/admin/tables", "get", wrong)


# --- live tables ------------------------------------------------------------------------------


async def test_the_list_shows_a_live_table_with_its_seats_and_sockets(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    room, guests = await open_room(api, make_guest, 2)
    await joined(app, room["id"], guests[0].player_id)  # seat 0 connected, seat 1 not
    await joined(app, room["id"], None)  # a spectator
    r = await api.get("/api/admin/tables", headers=ADMIN)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["node"] == app.state.node_id
    [table] = [t for t in body["tables"] if t["code"] == room["code"]]
    assert table["room_id"] == room["id"] and table["status"] == "open"
    assert table["node"] == app.state.node_id
    assert (table["phase"], table["set_number"], table["deal_number"]) == ("ready", 0, 0)
    assert table["seats"] == [
        {"seat": 0, "player_id": guests[0].player_id, "name": "G0", "bot": None, "connected": True},
        {
            "seat": 1,
            "player_id": guests[1].player_id,
            "name": "G1",
            "bot": None,
            "connected": False,
        },
        {"seat": 2, "player_id": None, "name": None, "bot": None, "connected": False},
        {"seat": 3, "player_id": None, "name": None, "bot": None, "connected": False},
    ]
    assert (table["seat_sockets"], table["spectators"]) == (1, 1)
    assert "token" not in r.text and guests[0].token not in r.text


async def test_the_list_shows_the_set_and_deal_in_play(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    room, guests = await playing_room(api, make_guest)
    await joined(app, room["id"], guests[0].player_id)
    await start(api, app, room, guests[0])
    [table] = (await api.get("/api/admin/tables", headers=ADMIN)).json()["tables"]
    assert (table["status"], table["phase"]) == ("playing", "playing")
    assert (table["set_number"], table["deal_number"]) == (1, 1)
    assert [s["bot"] for s in table["seats"]] == [None, None, "normal", "normal"]
    assert "hand" not in json.dumps(table) and "tiles" not in json.dumps(table)


# --- closing a room ---------------------------------------------------------------------------


async def test_closing_a_room_sends_everyone_away_and_takes_it_out_of_the_lobby(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    room, guests = await playing_room(api, make_guest)
    probes = [await joined(app, room["id"], g.player_id) for g in guests]
    watcher = await joined(app, room["id"], None)
    await start(api, app, room, guests[0])
    listed = (await api.get("/api/rooms")).json()["rooms"]
    assert room["code"] in [r["code"] for r in listed]

    r = await api.delete(f"/api/admin/rooms/{room['code'].lower()}", headers=ADMIN)
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "closed" and r.json()["closed_reason"] == "admin"
    await settle(app, room["id"], *probes, watcher)
    for probe in (*probes, watcher):
        assert probe.of_type("bye")[-1]["reason"] == "room_closed"
        assert probe.closed_with == (CLOSE_ROOM_CLOSED, "room_closed")
    stored = await stored_room(app, room["id"])
    assert (stored.status, stored.closed_reason) == ("closed", "admin")
    listed = (await api.get("/api/rooms")).json()["rooms"]
    assert room["code"] not in [r["code"] for r in listed]
    tables = (await api.get("/api/admin/tables", headers=ADMIN)).json()["tables"]
    assert [t["status"] for t in tables if t["code"] == room["code"]] in ([], ["closed"])

    again = await api.delete(f"/api/admin/rooms/{room['code']}", headers=ADMIN)
    assert again.status_code == 409 and again.json()["error"]["code"] == "room_closed"
    missing = await api.delete("/api/admin/rooms/ZZZZZZ", headers=ADMIN)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "room_not_found"
    spec = await spec_of(api)
    documented(spec, "/api/admin/rooms/{code}", "delete", again)
    documented(spec, "/api/admin/rooms/{code}", "delete", missing)


# --- removing a player ------------------------------------------------------------------------


async def test_removing_a_player_before_the_set_frees_the_seat_and_closes_their_socket(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    room, guests = await open_room(api, make_guest, 2)
    host, removed = [await joined(app, room["id"], g.player_id) for g in guests]
    r = await api.delete(f"/api/admin/rooms/{room['code']}/seats/1", headers=ADMIN)
    assert r.status_code == 200, r.text
    assert r.json()["seats"][1] == {
        "seat": 1,
        "player_id": None,
        "name": None,
        "bot": None,
        "left_by": None,
        "ready": False,
    }
    await settle(app, room["id"], host, removed)
    assert removed.of_type("bye")[-1]["reason"] == "removed"
    assert removed.closed_with == (CLOSE_REMOVED, "removed")
    assert 1 not in await stored_seats(app, room["id"])
    assert host.closed_with is None
    assert host.of_type("room")[-1]["room"]["seats"][1]["player_id"] is None
    [table] = (await api.get("/api/admin/tables", headers=ADMIN)).json()["tables"]
    assert table["seat_sockets"] == 1 and table["seats"][1]["player_id"] is None
    # Not a ban: the player may sit down again.
    back = await api.post(f"/api/rooms/{room['code']}/seats/1", headers=guests[1].headers)
    assert back.status_code == 200, back.text


async def test_removing_a_player_during_a_set_hands_the_seat_to_a_bot(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    room, guests = await playing_room(api, make_guest, public=False)  # no strangers in bots' seats
    host, removed = [await joined(app, room["id"], g.player_id) for g in guests]
    await start(api, app, room, guests[0])
    r = await api.delete(f"/api/admin/rooms/{room['code']}/seats/1", headers=ADMIN)
    assert r.status_code == 200, r.text
    await settle(app, room["id"], host, removed)
    assert removed.of_type("bye")[-1]["reason"] == "removed"
    assert removed.closed_with == (CLOSE_REMOVED, "removed")
    seat = (await stored_seats(app, room["id"]))[1]
    assert (seat.player_id, seat.bot, seat.left_by) == (None, "normal", None)
    assert host.of_type("room")[-1]["room"]["seats"][1]["bot"] == "normal"
    table = app.state.live.tables[room["id"]]
    assert table.core.bot_of(1) == "normal" and table.room.status == "playing"
    # Removed, not left: the seat is not theirs to take back (only the host's allowed bots' seats
    # may be taken, and this host allows none).
    back = await api.post(f"/api/rooms/{room['code']}/seats/1", headers=guests[1].headers)
    assert back.status_code == 409, back.text


async def test_removing_from_a_seat_without_a_player_changes_nothing(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    room, _ = await playing_room(api, make_guest)
    before = await stored_seats(app, room["id"])
    spec = await spec_of(api)
    path = "/api/admin/rooms/{code}/seats/{seat}"
    bot = await api.delete(f"/api/admin/rooms/{room['code']}/seats/2", headers=ADMIN)
    assert bot.status_code == 409 and bot.json()["error"]["code"] == "seat_empty"
    beyond = await api.delete(f"/api/admin/rooms/{room['code']}/seats/4", headers=ADMIN)
    assert beyond.status_code == 422 and beyond.json()["error"]["field"] == "seat"
    for response in (bot, beyond):
        documented(spec, path, "delete", response)
    after = await stored_seats(app, room["id"])
    assert {n: (s.player_id, s.bot) for n, s in after.items()} == {
        n: (s.player_id, s.bot) for n, s in before.items()
    }


# --- bans -------------------------------------------------------------------------------------


async def test_a_banned_guest_is_refused_everywhere_until_unbanned(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    room, guests = await open_room(api, make_guest, 2)
    banned = guests[1]
    socket = await joined(app, room["id"], banned.player_id)
    spec = await spec_of(api)

    r = await api.post(
        f"/api/admin/players/{banned.player_id}/ban", json={"reason": "cheating"}, headers=ADMIN
    )
    assert r.status_code == 200, r.text
    assert r.json()["banned"] is True and r.json()["banned_reason"] == "cheating"
    await settle(app, room["id"], socket)
    assert socket.of_type("bye")[-1]["reason"] == "banned"
    assert socket.closed_with == (CLOSE_BANNED, "banned")

    refused = [
        ("/api/guests/me", "get", await api.get("/api/guests/me", headers=banned.headers)),
        (
            "/api/rooms",
            "post",
            await api.post("/api/rooms", json={}, headers=banned.headers),
        ),
        (
            "/api/rooms/{code}/seats/{seat}",
            "post",
            await api.post(f"/api/rooms/{room['code']}/seats/2", headers=banned.headers),
        ),
    ]
    for path, method, response in refused:
        assert response.status_code == 403, response.text
        assert response.json()["error"]["code"] == "banned"
        documented(spec, path, method, response)
    assert 2 not in await stored_seats(app, room["id"])  # nothing changed

    lifted = await api.delete(f"/api/admin/players/{banned.player_id}/ban", headers=ADMIN)
    assert lifted.status_code == 200 and lifted.json()["banned"] is False
    assert (await api.get("/api/guests/me", headers=banned.headers)).status_code == 200
    async with app.state.db.session() as session:
        row = await session.get(Player, banned.player_id)
        assert row is not None and row.banned_at is None and row.banned_reason is None


async def test_a_ban_stops_login_sessions_and_logging_in(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    guest = await make_guest("Ayu")
    account = {"username": "ayu_main", "password": "correct horse"}
    assert (await api.post("/api/accounts", json=account, headers=guest.headers)).status_code == 201
    login = await api.post("/api/sessions", json=account)
    assert login.status_code == 201, login.text
    session_headers = {"Authorization": f"Bearer {login.json()['token']}"}

    assert (
        await api.post(f"/api/admin/players/{guest.player_id}/ban", headers=ADMIN)
    ).status_code == 200
    for headers in (guest.headers, session_headers):
        me = await api.get("/api/players/me", headers=headers)
        assert me.status_code == 403 and me.json()["error"]["code"] == "banned"
    again = await api.post("/api/sessions", json=account)
    assert again.status_code == 403 and again.json()["error"]["code"] == "banned"
    documented(await spec_of(api), "/api/sessions", "post", again)

    assert (
        await api.delete(f"/api/admin/players/{guest.player_id}/ban", headers=ADMIN)
    ).status_code == 200
    assert (await api.get("/api/players/me", headers=session_headers)).status_code == 200
    assert (await api.post("/api/sessions", json=account)).status_code == 201


async def test_banning_an_unknown_player_is_a_404(api: httpx.AsyncClient) -> None:
    r = await api.post("/api/admin/players/nobody/ban", json={}, headers=ADMIN)
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    long = await api.post("/api/admin/players/x/ban", json={"reason": "x" * 201}, headers=ADMIN)
    assert long.status_code == 422 and long.json()["error"]["field"] == "reason"
    spec = await spec_of(api)
    documented(spec, "/api/admin/players/{player_id}/ban", "post", r)
    documented(spec, "/api/admin/players/{player_id}/ban", "post", long)


# --- the real server: the handshake, the logs, several nodes ----------------------------------


class Socket:
    """A raw table socket: the frames it got and how it was closed."""

    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token
        self.frames: list[dict[str, Any]] = []
        self.ws: Any = None

    async def open(self) -> dict[str, Any]:
        """Say hello; the first frame in answer (``welcome``, or an ``error``)."""
        self.ws = await websockets.connect(self.url)
        await self.ws.send(json.dumps({"type": "hello", "token": self.token}))
        first = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
        self.frames.append(first)
        return dict(first)

    async def closed(self) -> int | None:
        """Read until the server closes the socket; its close code."""
        try:
            while True:
                self.frames.append(json.loads(await asyncio.wait_for(self.ws.recv(), 10)))
        except websockets.ConnectionClosed:
            pass
        code: int | None = self.ws.close_code
        return code

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == kind]


def me_url(server: ServerProcess) -> str:
    return server.base_url.replace("http", "ws", 1) + "/ws/me"


@pytest.fixture
async def admin_server(database_url: str, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    process = ServerProcess(database_url, tmp_path / "server", GAPLE_ADMIN_TOKEN=ADMIN_TOKEN)
    await asyncio.to_thread(process.start)
    try:
        yield process
    finally:
        await asyncio.to_thread(process.stop)


async def test_a_ban_closes_the_open_socket_and_refuses_the_next_hello(
    admin_server: ServerProcess,
) -> None:
    async with Lobby(admin_server.base_url) as lobby:
        host, guest = await lobby.guest("Host"), await lobby.guest("Guest")
        room = await lobby.create_room(host["token"])
        await lobby.sit(guest["token"], room["code"], 1)
        socket = Socket(admin_server.ws_url(room["code"]), guest["token"])
        assert (await socket.open())["type"] == "welcome"
        me = Socket(me_url(admin_server), guest["token"])
        assert (await me.open())["type"] == "welcome_me"
        http = lobby.http

        wrong = await http.get("/api/admin/tables", headers={"Authorization": "Bearer guess"})
        assert wrong.status_code == 401
        listed = (await http.get("/api/admin/tables", headers=ADMIN)).json()["tables"]
        assert [s["connected"] for s in listed[0]["seats"]][:2] == [False, True]

        ban = await http.post(f"/api/admin/players/{guest['player_id']}/ban", headers=ADMIN)
        assert ban.status_code == 200, ban.text
        assert await socket.closed() == CLOSE_BANNED
        assert socket.of_type("bye")[-1]["reason"] == "banned"
        assert await me.closed() == CLOSE_BANNED  # the player's own socket too
        assert me.of_type("bye")[-1]["reason"] == "banned"
        me_again = Socket(me_url(admin_server), guest["token"])
        assert (await me_again.open())["code"] == "banned"

        again = Socket(admin_server.ws_url(room["code"]), guest["token"])
        refused = await again.open()
        assert refused["type"] == "error" and refused["code"] == "banned"
        assert await again.closed() == 1008

        unban = await http.delete(f"/api/admin/players/{guest['player_id']}/ban", headers=ADMIN)
        assert unban.status_code == 200
        back = Socket(admin_server.ws_url(room["code"]), guest["token"])
        assert (await back.open())["type"] == "welcome"
        await back.ws.close()

    log = admin_server.log()
    assert ADMIN_TOKEN not in log and "guess" not in log
    assert (
        f"INFO app.api.admin: admin ban player {guest['player_id']} by admin from 127.0.0.1: ok"
        in log
    )
    assert f"admin unban player {guest['player_id']} by admin from 127.0.0.1: ok" in log
    assert (
        "WARNING app.api.admin: admin auth GET /api/admin/tables by - from 127.0.0.1: unauthorized"
        in log
    )


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_ban_reaches_a_socket_on_another_node(
    database_url: str, redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    nodes = [
        ServerProcess(
            database_url,
            tmp_path / f"node{i}",
            GAPLE_ADMIN_TOKEN=ADMIN_TOKEN,
            GAPLE_REDIS_URL=redis_url,
            GAPLE_REDIS_PREFIX=redis_prefix,
            GAPLE_LEASE_TTL_SECONDS="1.5",
            GAPLE_CLUSTER_CHECK_SECONDS="0.3",
        )
        for i in range(2)
    ]
    try:
        for node in nodes:
            await asyncio.to_thread(node.start)
        async with (
            Lobby(nodes[0].base_url) as lobby,
            httpx.AsyncClient(base_url=nodes[0].base_url) as other,
        ):
            host, guest = await lobby.guest("Host"), await lobby.guest("Guest")
            room = await lobby.create_room(host["token"])
            await lobby.sit(guest["token"], room["code"], 1)
            # The table runs on node 1 (the first socket's node takes it); node 0 has nothing.
            socket = Socket(nodes[1].ws_url(room["code"]), guest["token"])
            assert (await socket.open())["type"] == "welcome"
            me = Socket(me_url(nodes[1]), guest["token"])
            assert (await me.open())["type"] == "welcome_me"
            assert (await other.get("/api/admin/tables", headers=ADMIN)).json()["tables"] == []
            async with httpx.AsyncClient(base_url=nodes[1].base_url) as owner:
                [table] = (await owner.get("/api/admin/tables", headers=ADMIN)).json()["tables"]
            assert table["code"] == room["code"] and table["seat_sockets"] == 1

            ban = await other.post(f"/api/admin/players/{guest['player_id']}/ban", headers=ADMIN)
            assert ban.status_code == 200, ban.text
            assert await socket.closed() == CLOSE_BANNED
            assert socket.of_type("bye")[-1]["reason"] == "banned"
            assert await me.closed() == CLOSE_BANNED  # /ws/me on the other node too
            assert me.of_type("bye")[-1]["reason"] == "banned"
    finally:
        for node in nodes:
            await asyncio.to_thread(node.stop)
