"""Live-table fixtures: the real TableManager on a fake clock, and probe connections."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr
from sqlalchemy import select

from app.rooms.clock import FakeClock
from app.rooms.connection import Connection
from app.rooms.manager import TableManager
from app.rooms.state import TableConfig
from app.rooms.store import SqlGameStore
from app.rooms.table import Table
from app.settings import Settings
from app.store.models import Move
from tests.app.live.server import ServerProcess
from tests.conftest import TEST_SECRET_KEY

CONFIG = TableConfig.from_settings(
    Settings(
        secret_key=SecretStr(TEST_SECRET_KEY),
        deal_pause_seconds=2.0,
        bot_min_delay=0.5,
        bot_max_delay=0.5,
    )
)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def live_factory(clock: FakeClock) -> Callable[[Any], TableManager]:
    return lambda app: TableManager(SqlGameStore(app.state.db), clock=clock, config=CONFIG)


@dataclass(eq=False)
class Probe:
    """An in-process socket: records every frame the table sends it."""

    frames: list[dict[str, Any]] = field(default_factory=list)
    closed_with: tuple[int, str] | None = None
    conn: Connection = field(init=False)

    def __post_init__(self) -> None:
        async def send_text(frame: str) -> None:
            self.frames.append(json.loads(frame))

        async def close(code: int, reason: str) -> None:
            self.closed_with = (code, reason)

        self.conn = Connection(send_text=send_text, close=close)

    async def drain(self) -> None:
        for _ in range(100):
            if self.conn.pending == 0:
                break
            await asyncio.sleep(0)
        await asyncio.sleep(0)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == kind]

    @property
    def view(self) -> dict[str, Any]:
        return dict(self.of_type("snapshot")[-1]["view"])

    def errors(self) -> list[str]:
        return [f["code"] for f in self.of_type("error")]


@dataclass
class LiveTable:
    table: Table
    code: str
    guests: list[Any]
    probes: list[Probe]

    async def settle(self) -> None:
        await self.table.settle()
        for probe in self.probes:
            await probe.drain()


@pytest.fixture
def live_table(
    api: Any, app: Any, make_guest: Callable[..., Awaitable[Any]]
) -> Callable[..., Awaitable[LiveTable]]:
    """A guest (or a bot) in every seat of a started table, each guest with a probe joined.

    ``seed`` fixes every deal's secret (``fixed_secret(seed, deal)``, and the table's own random
    choices) when a test needs a known position; by default deals are random as in play."""

    async def make(
        mode: str = "tunggal",
        bots: tuple[int, ...] = (),
        seats: int = 4,
        seed: int | None = None,
        **settings: Any,
    ) -> LiveTable:
        guests = [await make_guest(f"P{i}") for i in range(seats)]
        host = guests[0]
        body = {"mode": mode, "turn_seconds": 15, **settings}
        response = await api.post("/api/rooms", json=body, headers=host.headers)
        assert response.status_code == 201, response.text
        code = response.json()["code"]
        room_id = response.json()["id"]
        for seat, guest in enumerate(guests):
            if seat in bots:
                r = await api.post(f"/api/rooms/{code}/bots/{seat}", json={}, headers=host.headers)
            else:
                r = await api.post(f"/api/rooms/{code}/seats/{seat}", headers=guest.headers)
            assert r.status_code in (200, 201), r.text
        table = await app.state.live.get(room_id)
        if seed is not None:
            deals = itertools.count(1)
            table.new_secret = lambda: fixed_secret(seed, next(deals))
            table.rng = random.Random(11)
        probes = []
        for seat, guest in enumerate(guests):
            probe = Probe()
            probe.conn.player_id = None if seat in bots else guest.player_id
            await table.join(probe.conn, None)
            probes.append(probe)
        r = await api.post(f"/api/rooms/{code}/start", headers=host.headers)
        assert r.status_code == 200, r.text
        live = LiveTable(table=table, code=code, guests=guests, probes=probes)
        await live.settle()
        return live

    return make


def fixed_secret(n: int, deal: int = 1) -> str:
    """Deal ``deal``'s secret for a test that needs known deals: 64 lowercase hex characters,
    a fresh one for every deal (as at a real table)."""
    text = f"test secret {n}" if deal == 1 else f"test secret {n} deal {deal}"
    return hashlib.sha256(text.encode()).hexdigest()


@contextlib.asynccontextmanager
async def restarted(app: Any, clock: FakeClock, room_id: str) -> AsyncIterator[Table]:
    """The room's table as a node starting afresh rebuilds it from storage: the only table in
    play, restored with its clock. The node is closed at the end."""
    fresh = TableManager(SqlGameStore(app.state.db), clock=clock, config=CONFIG)
    assert await fresh.restore_all() == 1
    try:
        yield fresh.tables[room_id]
    finally:
        await fresh.close()


async def stored_moves(app: Any) -> list[Move]:
    async with app.state.db.session() as session:
        return list(await session.scalars(select(Move).order_by(Move.id)))


def to_move(live: LiveTable) -> Probe:
    turn = live.table.state.turn
    assert turn is not None
    return live.probes[turn]


@pytest.fixture
async def server(database_url: str, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    """The real server (a uvicorn subprocess) on the test's database."""
    process = ServerProcess(database_url, tmp_path / "server")
    await asyncio.to_thread(process.start)
    try:
        yield process
    finally:
        await asyncio.to_thread(process.stop)
