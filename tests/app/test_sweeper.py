"""The sweeper on its own: what it closes and fills, and two nodes sweeping at once. Time is an
input (``sweep(now=...)``), so nothing waits. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from app.rooms import lifecycle
from app.rooms.sweeper import Sweeper
from app.settings import Settings
from app.store import players, rooms
from app.store.db import Database
from app.store.models import GameSet
from app.store.types import utcnow
from tests.app.test_rooms import RecordingLive


@pytest.fixture
async def dbs(database_url: str) -> AsyncIterator[list[Database]]:
    """Two nodes' databases: two engines, two pools, one database."""
    nodes = [Database(database_url, secret_key="k") for _ in range(2)]
    yield nodes
    for db in nodes:
        await db.dispose()


async def _rooms(db: Database, count: int, *, quickplay: bool, humans: int = 1) -> list[str]:
    ids = []
    async with db.session() as s:
        for n in range(count):
            host = await players.create_player(s, name=f"H{n}", token_hash=f"{quickplay}-{n}")
            room = await rooms.create_room(
                s,
                code=f"{'Q' if quickplay else 'R'}{n:05d}",
                host_id=host.id,
                settings={"preset": "pordi", "mode": "tunggal", "turn_seconds": 15},
                quickplay=quickplay,
            )
            for seat in range(humans):
                guest = (
                    host
                    if seat == 0
                    else await players.create_player(
                        s, name="G", token_hash=f"{quickplay}-{n}-{seat}"
                    )
                )
                await rooms.put_in_seat(s, room_id=room.id, seat=seat, player_id=guest.id)
            ids.append(room.id)
        await s.commit()
    return ids


def _sweeper(db: Database, settings: Settings, live: RecordingLive) -> Sweeper:
    return Sweeper(db, live, settings)


async def test_what_a_sweep_does(dbs: list[Database], settings: Settings) -> None:
    db = dbs[0]
    live = RecordingLive()
    sweeper = _sweeper(db, settings, live)  # idle 300 s, bot fill 20 s
    [idle] = await _rooms(db, 1, quickplay=False)
    [waiting] = await _rooms(db, 1, quickplay=True, humans=2)
    now = utcnow()
    assert (await sweeper.sweep(now=now + timedelta(seconds=10))).closed == []
    # 20 s after the last human sat down: bots fill the quick-play table and it starts.
    swept = await sweeper.sweep(now=now + timedelta(seconds=21))
    assert (swept.closed, swept.filled) == ([], [waiting])
    assert live.calls == [("seats_changed", waiting), ("room_started", waiting)]
    async with db.session() as s:
        room = await rooms.get_room(s, room_id=waiting)
        assert room is not None and room.status == "playing"
        seats = await rooms.get_seats(s, room_id=waiting)
        assert [(x.seat, x.bot) for x in seats] == [
            (0, None),
            (1, None),
            (2, "normal"),
            (3, "normal"),
        ]
        # A human connected keeps an open room open however long it waits.
        await rooms.set_presence(s, room_id=idle, humans_online=1, at=now)
        await s.commit()
    assert (await sweeper.sweep(now=now + timedelta(seconds=3600))).closed == []
    async with db.session() as s:
        await rooms.set_presence(s, room_id=idle, humans_online=0, at=now)
        await s.commit()
    assert (await sweeper.sweep(now=now + timedelta(seconds=299))).closed == []
    assert (await sweeper.sweep(now=now + timedelta(seconds=301))).closed == [idle]
    assert live.calls[-1] == ("room_closed", idle)
    async with db.session() as s:
        room = await rooms.get_room(s, room_id=idle)
        assert room is not None and (room.status, room.closed_reason) == ("closed", "idle")
    # Playing tables are not the sweeper's: the live tables decide when they are abandoned.
    assert (await sweeper.sweep(now=now + timedelta(days=1))).closed == []


async def test_an_empty_quick_play_table_is_not_filled(
    dbs: list[Database], settings: Settings
) -> None:
    # Its last human left: nobody would play, so no bots; it closes as idle instead.
    [empty] = await _rooms(dbs[0], 1, quickplay=True, humans=0)
    swept = await _sweeper(dbs[0], settings, RecordingLive()).sweep(
        now=utcnow() + timedelta(seconds=400)
    )
    assert (swept.filled, swept.closed) == ([], [empty])


async def test_two_nodes_sweeping_at_once_handle_each_room_once(
    dbs: list[Database], settings: Settings
) -> None:
    idle = await _rooms(dbs[0], 6, quickplay=False)
    waiting = await _rooms(dbs[0], 6, quickplay=True)
    lives = [RecordingLive(), RecordingLive()]
    sweepers = [_sweeper(db, settings, live) for db, live in zip(dbs, lives, strict=True)]
    later = utcnow() + timedelta(seconds=400)
    a, b = await asyncio.gather(*(s.sweep(now=later) for s in sweepers))
    assert sorted(a.closed + b.closed) == sorted(idle)
    assert sorted(a.filled + b.filled) == sorted(waiting)
    calls: list[Any] = lives[0].calls + lives[1].calls
    assert sorted(r for name, r in calls if name == "room_started") == sorted(waiting)
    async with dbs[1].session() as s:
        for room_id in waiting:
            assert len(await rooms.get_seats(s, room_id=room_id)) == 4


async def _play_a_set(db: Database, room_id: str) -> None:
    """The room's set started and ended: a stored set, the room open again."""
    async with db.session() as s:
        await lifecycle.start_set(s, room_id=room_id, by=None)
        s.add(GameSet(room_id=room_id, number=1, rules={}, started_at=utcnow()))
        await lifecycle.end_set(s, room_id=room_id)
        await s.commit()


async def test_a_quick_play_table_after_its_set_is_not_started_again(
    dbs: list[Database], settings: Settings
) -> None:
    # Four humans played a set: the room is open again, its seats full. It is not waiting for
    # players, so no new set starts by itself however long the result is shown.
    db = dbs[0]
    [full, filled] = await _rooms(db, 2, quickplay=True, humans=2)
    async with db.session() as s:
        for seat in (2, 3):
            guest = await players.create_player(s, name="G", token_hash=f"full-{seat}")
            await rooms.put_in_seat(s, room_id=full, seat=seat, player_id=guest.id)
        await s.commit()
    await _play_a_set(db, full)
    live = RecordingLive()
    sweeper = _sweeper(db, settings, live)
    now = utcnow()
    assert (await sweeper.sweep(now=now + timedelta(seconds=21))).filled == [filled]
    async with db.session() as s:
        await lifecycle.end_set(s, room_id=filled)  # the bots' set is over too
        s.add(GameSet(room_id=filled, number=1, rules={}, started_at=now))
        await s.commit()
    for later in (21, 60, 250):
        swept = await sweeper.sweep(now=now + timedelta(seconds=later))
        assert (swept.filled, swept.closed) == ([], [])
    async with db.session() as s:
        for room_id in (full, filled):
            room = await rooms.get_room(s, room_id=room_id)
            assert room is not None and room.status == "open"
