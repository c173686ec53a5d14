"""Resuming after a disconnect: the missed events as they were sent, or an explicit resync."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from app.rooms.clock import FakeClock
from app.rooms.manager import TableManager
from app.rooms.protocol import Play, Resume
from app.rooms.state import TableConfig
from app.rooms.store import SqlGameStore
from tests.app.live.conftest import CONFIG, LiveTable, Probe, to_move

# A small window keeps the tests short; the default (TableConfig) works the same way.
WINDOW = 12
assert TableConfig.resume_window > WINDOW


@pytest.fixture
def live_factory(clock: FakeClock) -> Callable[[Any], TableManager]:
    config = replace(CONFIG, resume_window=WINDOW)
    return lambda app: TableManager(SqlGameStore(app.state.db), clock=clock, config=config)


async def _come_back(live: LiveTable, seat: int, seq: int) -> Probe:
    back = Probe()
    back.conn.player_id = live.guests[seat].player_id
    await live.table.join(back.conn, Resume(set=live.table.set_number, seq=seq))
    await live.settle()
    return back


async def test_replayed_events_carry_the_clock_and_time_they_were_sent_with(
    live_table: Any, clock: FakeClock
) -> None:
    live: LiveTable = await live_table()
    watcher = Probe()  # a spectator who never left sees every public event as it happened
    await live.table.join(watcher.conn, None)
    await live.settle()
    gone = (live.table.state.turn + 2) % 4
    last_seen = int(live.probes[gone].of_type("snapshot")[-1]["seq"])
    live.table.gone(live.probes[gone].conn)
    await live.settle()
    for turn in range(6):  # moves by the three others, each after some thinking time
        if live.table.state.turn == gone:
            clock.advance(15.0)  # the clock plays for the absent seat
            await live.settle()
            continue
        clock.advance(2.0 + turn)
        probe = to_move(live)
        option = probe.view["legal"][0]
        move = Play(type="play", move_id=f"c{turn}", tile=option["tile"], end=option["end"])
        await live.table.request(probe.conn, move)
        await live.settle()
    clock.advance(1.0)

    back = await _come_back(live, gone, last_seen)
    replayed = {f["seq"]: f for f in back.of_type("event")}
    seen = {f["seq"]: f for f in watcher.of_type("event") if f["seq"] > last_seen}
    assert sorted(replayed) == sorted(seen) and len(seen) >= 6
    for seq, frame in seen.items():
        assert (replayed[seq]["clock"], replayed[seq]["server_time"]) == (
            frame["clock"],
            frame["server_time"],
        ), f"event {seq} was replayed with another clock"
    deadlines = {f["clock"]["deadline"] for f in seen.values() if f["clock"]}
    assert len(deadlines) > 1  # the test means something: the clocks differ from event to event
    assert live.table.deadline is not None  # the snapshot has the clock as it stands now
    assert back.of_type("snapshot")[-1]["clock"]["deadline"] == round(live.table.deadline * 1000)


async def test_a_seq_the_set_never_had_gets_a_resync(live_table: Any) -> None:
    live: LiveTable = await live_table()
    seat = live.table.state.turn
    back = await _come_back(live, seat, len(live.table.events) + 5)
    kinds = [f["type"] for f in back.frames]
    assert kinds[:3] == ["welcome", "resync", "snapshot"]
    assert back.of_type("resync")[0]["missed"] == 0


async def _play_on_without(live: LiveTable, clock: FakeClock, gone: int, events: int) -> None:
    """Moves (the clock's for the absent seat) until ``events`` more events were sent."""
    target = len(live.table.events) + events
    for turn in range(4 * events):  # bounded: every turn sends at least one event
        if len(live.table.events) >= target:
            return
        if live.table.state.turn == gone:
            clock.advance(15.0)
            await live.settle()
            continue
        probe = to_move(live)
        option = probe.view["legal"][0]
        move = Play(type="play", move_id=f"w{turn}", tile=option["tile"], end=option["end"])
        await live.table.request(probe.conn, move)
        await live.settle()
    raise AssertionError("the deal sent fewer events than the test needs")


@pytest.mark.parametrize("missed", [WINDOW, WINDOW + 1])
async def test_the_window_decides_between_every_missed_event_and_a_resync(
    live_table: Any, clock: FakeClock, missed: int
) -> None:
    live: LiveTable = await live_table()
    gone = (live.table.state.turn + 1) % 4
    live.table.gone(live.probes[gone].conn)
    await live.settle()
    await _play_on_without(live, clock, gone, missed)
    last_seen = len(live.table.events) - missed  # exactly ``missed`` events after this seq

    back = await _come_back(live, gone, last_seen)
    kinds = [f["type"] for f in back.frames]
    if missed <= WINDOW:  # every missed event, in order, then the snapshot
        assert kinds[0] == "welcome" and "resync" not in kinds
        seqs = [f["seq"] for f in back.of_type("event")]
        assert seqs == list(range(last_seen + 1, last_seen + missed + 1))
    else:  # further behind than the window: an explicit resync, no partial replay
        assert kinds[:3] == ["welcome", "resync", "snapshot"]
        assert back.of_type("resync")[0]["missed"] == missed
        assert back.of_type("event") == []
    assert back.of_type("snapshot")[-1]["seq"] == len(live.table.events)
