"""The database dropping out under a live table: PostgreSQL behind a TCP proxy of the test's own
(tests/app/live/pgproxy.py), cut and resumed; the shared server is never stopped."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app.rooms.clock import FakeClock
from app.settings import Settings
from app.store.models import Room
from tests.app.live.conftest import CONFIG, LiveTable, stored_moves, to_move
from tests.app.live.pgproxy import PgProxy
from tests.app.live.test_table import play_of, play_until
from tests.conftest import TEST_SECRET_KEY

pytestmark = pytest.mark.parametrize("database_url", ["postgres"], indirect=True)


@pytest.fixture
async def pg_proxy(database_url: str) -> AsyncIterator[PgProxy]:
    proxy = PgProxy(database_url)
    proxy.proxied_url = await proxy.start()  # type: ignore[attr-defined]
    try:
        yield proxy
    finally:
        await proxy.close()


@pytest.fixture
def settings(pg_proxy: PgProxy, tmp_path: Path) -> Settings:
    return Settings(
        database_url=pg_proxy.proxied_url,  # type: ignore[attr-defined]
        data_dir=tmp_path / "data",
        secret_key=TEST_SECRET_KEY,
        migrate_on_start=False,
        redis_url=None,
        public_url=None,
        production=False,
    )


async def _until(condition: Any, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


async def test_a_move_whose_commit_was_cut_is_acked_when_resent_and_the_table_is_kept(
    live_table: Any, app: Any, pg_proxy: PgProxy
) -> None:
    live: LiveTable = await live_table()
    probe = to_move(live)
    move = play_of(probe, move_id="cut")
    pg_proxy.cut_after(b"COMMIT")
    await live.table.request(probe.conn, move)  # stored, but the answer never came
    await live.settle()
    assert pg_proxy.cuts == 1
    pg_proxy.resume()
    if probe.errors()[-1:] == ["unavailable"]:
        await live.table.request(probe.conn, move)  # the client sends the same move id again
        await live.settle()
    acks = probe.of_type("ack")
    assert [a["move_id"] for a in acks] == ["cut"]
    assert not live.table.lost and all(p.closed_with is None for p in live.probes)
    assert [m.client_move_id for m in await stored_moves(app)] == ["cut"]
    assert live.table.core.move_seq == 1


async def _outage(live: LiveTable, clock: FakeClock, proxy: PgProxy, seconds: float) -> None:
    """The database is cut off for ``seconds`` of the table's clock, in steps of 0.25 s."""
    proxy.cut()
    for _ in range(int(seconds / 0.25)):
        clock.advance(0.25)
        await live.settle()
        await asyncio.sleep(0.01)  # a refused connection is answered by the event loop
    proxy.resume()


async def _back(live: LiveTable, clock: FakeClock, done: Any, within: float = 2.0) -> float:
    """Advance the clock in small steps until ``done()``; returns how long it took."""
    start = clock.now()
    while not done():
        assert clock.now() - start <= within, "the table did not move again in time"
        assert not live.table.lost, "the table was given up"
        clock.advance(0.05)
        await asyncio.wait_for(live.settle(), 5)  # a table given up answers no more
        await asyncio.sleep(0.01)
    return clock.now() - start


async def test_the_next_deal_due_during_an_outage_starts_once_the_database_is_back(
    live_table: Any, clock: FakeClock, pg_proxy: PgProxy
) -> None:
    live: LiveTable = await live_table(mode="ganda")
    await play_until(live, clock, lambda: live.table.state.phase == "deal_over")
    await _outage(live, clock, pg_proxy, CONFIG.deal_pause + 3)  # the next deal fell due in it
    assert live.table.state.phase == "deal_over"
    await _back(live, clock, lambda: live.table.state.phase == "playing")
    assert live.table.state.deal_number == 2 and not live.table.lost


async def test_a_turn_that_ran_out_during_an_outage_is_played_once_it_is_back(
    live_table: Any, app: Any, clock: FakeClock, pg_proxy: PgProxy
) -> None:
    live: LiveTable = await live_table()
    seat = live.table.state.turn
    await _outage(live, clock, pg_proxy, 15 + 3)  # the turn's 15 s ran out in it
    assert live.table.state.turn == seat and await_nothing_stored(live)
    await _back(live, clock, lambda: live.table.state.turn != seat)
    moves = await stored_moves(app)
    assert [(m.seat, m.auto) for m in moves] == [(seat, True)]


def await_nothing_stored(live: LiveTable) -> bool:
    return live.table.core.move_seq == 0


async def test_bots_play_on_after_an_outage(
    live_table: Any, app: Any, clock: FakeClock, pg_proxy: PgProxy
) -> None:
    live: LiveTable = await live_table(bots=(0, 1, 2, 3))
    await _outage(live, clock, pg_proxy, 3)  # each bot's 0.5 s pause ends in it
    assert live.table.core.move_seq == 0
    await _back(live, clock, lambda: live.table.core.move_seq >= 3)
    assert len(await stored_moves(app)) >= 3


async def test_an_outage_logs_one_line_per_failure_kind_and_table_not_a_traceback_a_retry(
    live_table: Any, clock: FakeClock, pg_proxy: PgProxy, caplog: pytest.LogCaptureFixture
) -> None:
    live: LiveTable = await live_table()
    mover = to_move(live)
    caplog.set_level(logging.INFO)
    pg_proxy.cut()
    for _ in range(40):  # a client sending its move again and again, and the clock running out
        await live.table.request(mover.conn, play_of(mover, move_id="again"))
        clock.advance(0.5)
        await live.settle()
        await asyncio.sleep(0.01)
    assert mover.errors().count("unavailable") == 40
    pg_proxy.resume()
    await _back(live, clock, lambda: live.table.core.move_seq == 1)
    mine = [r for r in caplog.records if r.name == "app.rooms.table"]
    assert all(r.exc_info is None for r in mine if r.levelno >= logging.INFO)
    lines = [r.getMessage() for r in mine if r.levelno >= logging.INFO]
    failed = [line for line in lines if " failing: " in line]
    again = [line for line in lines if "works again after" in line]
    assert len(failed) == len(again) == 2, lines  # a player's move, and the clock's (StoreMove)
    assert any("a player's move works again after 40 failures" in line for line in again), lines


async def _humans_online(app: Any, room_id: str) -> int:
    async with app.state.db.session() as session:
        value = await session.scalar(select(Room.humans_online).where(Room.id == room_id))
    return int(value)


async def test_presence_that_changed_during_an_outage_is_stored_once_it_is_back(
    live_table: Any, app: Any, clock: FakeClock, pg_proxy: PgProxy
) -> None:
    live: LiveTable = await live_table()
    room_id = live.table.room.id
    assert await _humans_online(app, room_id) == 4
    pg_proxy.cut()
    live.table.gone(live.probes[((live.table.state.turn or 0) + 1) % 4].conn)
    await live.settle()
    await asyncio.sleep(0.05)
    pg_proxy.resume()
    for _ in range(40):  # 2 s of the table's clock
        clock.advance(0.05)
        await live.settle()
        await asyncio.sleep(0.01)
        if await _humans_online(app, room_id) == 3:
            break
    assert await _humans_online(app, room_id) == 3


async def test_the_clocks_move_whose_commit_was_cut_counts_once_and_the_table_is_kept(
    live_table: Any, app: Any, clock: FakeClock, pg_proxy: PgProxy
) -> None:
    live: LiveTable = await live_table()
    seat = live.table.state.turn
    pg_proxy.cut_after(b"COMMIT")
    clock.advance(15.1)  # the clock plays the opening for the idle seat; its answer is lost
    await live.settle()
    assert pg_proxy.cuts == 1 and live.table.core.move_seq == 0
    await asyncio.sleep(0.3)
    pg_proxy.resume()
    await _back(live, clock, lambda: live.table.core.move_seq == 1)
    assert not live.table.lost and all(p.closed_with is None for p in live.probes)
    assert [(m.seat, m.auto) for m in await stored_moves(app)] == [(seat, True)]
    assert live.table.state.turn != seat


async def test_the_sweeper_logs_an_outage_once_not_a_traceback_a_sweep(
    pg_proxy: PgProxy, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    from app.rooms.sweeper import Sweeper
    from app.store.db import Database
    from tests.app.test_rooms import RecordingLive

    db = Database(pg_proxy.proxied_url, secret_key="k")  # type: ignore[attr-defined]
    sweeper = Sweeper(db, RecordingLive(), settings.model_copy(update={"sweep_seconds": 0.02}))
    caplog.set_level(logging.DEBUG, logger="app.rooms.sweeper")
    sweeper.start()
    try:
        await asyncio.sleep(0.1)  # a few sweeps that work
        pg_proxy.cut()
        await _until(
            lambda: sum(r.levelno == logging.DEBUG for r in caplog.records) >= 10, timeout=20
        )
        pg_proxy.resume()
        await _until(lambda: any("works again" in r.getMessage() for r in caplog.records), 20)
    finally:
        await sweeper.aclose()
        await db.dispose()
    loud = [r for r in caplog.records if r.levelno >= logging.INFO]
    lines = [r.getMessage() for r in loud]
    assert len(lines) == 2 and all(r.exc_info is None for r in loud), lines
    assert "the room sweep failing: " in lines[0], lines
    assert "the room sweep works again after" in lines[1], lines
    failed = sum(r.levelno == logging.DEBUG and r.exc_info is not None for r in caplog.records)
    assert failed >= 10  # every failed sweep keeps its traceback, at DEBUG
