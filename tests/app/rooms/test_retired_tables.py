"""Closed and abandoned tables leave memory: once a room is over and its last socket is gone
(closing a room sends every socket away),
its table is out of the registry and the live-table gauge, the operators' list no longer shows
it, and the table object itself is garbage (a weak reference to it dies). In process, on a fake
clock, on SQLite and PostgreSQL; sockets are probes."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from app.rooms.clock import FakeClock
from app.rooms.manager import TableManager
from app.rooms.protocol import CLOSE_ROOM_CLOSED
from app.rooms.store import SqlGameStore
from app.rooms.table import Table
from app.settings import Settings
from tests.app.live.conftest import CONFIG, Probe

ADMIN = {"Authorization": "Bearer " + "a" * 32}
ROOMS = 20


@pytest.fixture
def settings(settings: Settings) -> Settings:
    many = "10000/minute"
    return settings.model_copy(
        update={
            "admin_token": SecretStr("a" * 32),
            "rate_guests": many,
            "rate_rooms": many,
            "rate_seats": many,
            "rate_admin": many,
        }
    )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def live_factory(clock: FakeClock) -> Callable[[Any], TableManager]:
    return lambda app: TableManager(
        SqlGameStore(app.state.db), clock=clock, config=CONFIG, metrics=app.state.metrics
    )


async def ended(table: Table) -> None:
    """Wait (a few seconds at most) for the table's task to end by itself."""
    task = table._task
    assert task is not None
    await asyncio.wait_for(asyncio.shield(task), 10)


def live_gauge(app: Any) -> float:
    value = app.state.metrics.registry.get_sample_value("gaple_tables_live")
    assert value is not None
    return float(value)


async def playing(api: httpx.AsyncClient, make_guest: Any) -> tuple[dict[str, Any], Any]:
    """A started Tunggal room: its host in seat 0, bots in seats 1-3."""
    host = await make_guest("Host")
    room = (await api.post("/api/rooms", json={"public": False}, headers=host.headers)).json()
    code = room["code"]
    assert (await api.post(f"/api/rooms/{code}/seats/0", headers=host.headers)).status_code == 200
    for seat in (1, 2, 3):
        bot = await api.post(f"/api/rooms/{code}/bots/{seat}", json={}, headers=host.headers)
        assert bot.status_code == 200, bot.text
    started = await api.post(f"/api/rooms/{code}/start", headers=host.headers)
    assert started.status_code == 200, started.text
    return room, host


async def test_closed_tables_are_freed_once_their_sockets_are_gone(
    api: httpx.AsyncClient, app: Any, make_guest: Any, clock: FakeClock
) -> None:
    manager: TableManager = app.state.live
    before = live_gauge(app)
    refs: list[weakref.ref[Table]] = []
    for _ in range(ROOMS):
        room, host = await playing(api, make_guest)
        table = manager.tables[room["id"]]
        assert isinstance(table, Table)
        seat, watcher = Probe(), Probe()
        seat.conn.player_id = host.player_id
        for probe in (seat, watcher):
            await table.join(probe.conn, None)
        closed = await api.delete(f"/api/admin/rooms/{room['code']}", headers=ADMIN)
        assert closed.status_code == 200, closed.text
        await ended(table)  # it ends by itself
        for probe in (seat, watcher):  # every socket was sent away first
            await probe.drain()
            assert probe.closed_with == (CLOSE_ROOM_CLOSED, "room_closed")
        assert table.retired and room["id"] not in manager.tables
        table.gone(seat.conn)  # the endpoints' goodbyes, after the fact, change nothing
        table.gone(watcher.conn)
        refs.append(weakref.ref(table))
        del table
    assert live_gauge(app) == before
    listed = (await api.get("/api/admin/tables", headers=ADMIN)).json()["tables"]
    assert listed == []
    # The fake clock keeps a cancelled timer (and the table it would post to) until it falls
    # due; asyncio's loop, the real clock, lets go of a cancelled handle's callback at once.
    clock.advance(24 * 3600)
    gc.collect()
    assert [ref for ref in refs if ref() is not None] == []  # nothing holds them: memory is back


async def test_an_abandoned_table_is_freed(
    api: httpx.AsyncClient, app: Any, make_guest: Any, clock: FakeClock
) -> None:
    manager: TableManager = app.state.live
    before = live_gauge(app)
    room, _host = await playing(api, make_guest)  # the host never connects
    table = manager.tables[room["id"]]
    assert isinstance(table, Table)
    assert live_gauge(app) == before + 1
    clock.advance(CONFIG.abandoned_after + 1)
    await ended(table)
    assert table.retired and room["id"] not in manager.tables
    assert live_gauge(app) == before
    assert (await api.get(f"/api/rooms/{room['code']}")).json()["status"] == "abandoned"


async def test_a_socket_to_a_closed_room_gets_a_table_of_its_own(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    manager: TableManager = app.state.live
    room, host = await playing(api, make_guest)
    old = manager.tables[room["id"]]
    assert isinstance(old, Table)
    closed = await api.delete(f"/api/admin/rooms/{room['code']}", headers=ADMIN)
    assert closed.status_code == 200
    await ended(old)
    assert old.retired
    # A handshake that found the old table just before it retired hears that the room is closed
    late = Probe()
    await old.join(late.conn, None)
    await late.drain()
    assert late.frames == [{"type": "bye", "reason": "room_closed"}]
    assert late.closed_with == (CLOSE_ROOM_CLOSED, "room_closed")
    # ... and a socket that comes later finds a new table, which says so too, then goes.
    new = await manager.get(room["id"])
    assert isinstance(new, Table) and new is not old
    probe = Probe()
    probe.conn.player_id = host.player_id
    await new.join(probe.conn, None)
    await probe.drain()
    assert probe.of_type("bye")[-1]["reason"] == "room_closed"
    new.gone(probe.conn)
    await ended(new)
    assert room["id"] not in manager.tables
