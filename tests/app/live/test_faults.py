"""Faults a table must ride out: a move resent after its set ended, the database dropping out
(cut by a TCP proxy of the test's own, tests/app/live/pgproxy.py), a commit cut mid-flight."""

from __future__ import annotations

from typing import Any

from app.rooms.clock import FakeClock
from app.rooms.protocol import Play
from tests.app.live.conftest import LiveTable, restarted, stored_moves, to_move
from tests.app.live.test_table import play_until


async def _second_set(live: LiveTable, api: Any, clock: FakeClock) -> None:
    await play_until(live, clock, lambda: live.table.state.phase == "set_over")
    start = await api.post(f"/api/rooms/{live.code}/start", headers=live.guests[0].headers)
    assert start.status_code == 200, start.text
    await live.settle()
    assert live.table.set_number == 2 and live.table.state.phase == "playing"


async def test_a_move_resent_after_its_set_ended_is_never_applied_again(
    live_table: Any, api: Any, app: Any, clock: FakeClock
) -> None:
    live: LiveTable = await live_table(deals_per_set=1)
    await _second_set(live, api, clock)
    probe = to_move(live)
    seat = live.probes.index(probe)
    moves = await stored_moves(app)
    # One of this seat's moves of set 1, resent now with a tile it can play in set 2.
    old_id = next(m.client_move_id for m in moves if m.seat == seat and m.client_move_id)
    option = probe.view["legal"][0]
    resent = Play(type="play", move_id=old_id, tile=option["tile"], end=option["end"])
    before = len(moves)

    await live.table.request(probe.conn, resent)
    await live.settle()
    assert probe.of_type("error")[-1]["code"] == "move_expired"
    assert [a for a in probe.of_type("ack") if a["set"] == 2] == []
    assert len(await stored_moves(app)) == before and live.table.core.move_seq == 0

    room_id = live.table.room.id
    await live.table.stop()
    async with restarted(app, clock, room_id) as rebuilt:  # another node, or after a restart
        again = type(probe)()
        again.conn.player_id = probe.conn.player_id
        await rebuilt.join(again.conn, None)
        await rebuilt.request(again.conn, resent)
        await rebuilt.settle()
        await again.drain()
        assert again.errors() == ["move_expired"]
        assert len(await stored_moves(app)) == before and rebuilt.core.move_seq == 0
