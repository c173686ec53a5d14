"""The room actor on a fake clock, against a real database (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import engine
from app.rooms.clock import FakeClock
from app.rooms.protocol import Leave, Play, Resume
from tests.app.live.conftest import (
    CONFIG,
    LiveTable,
    Probe,
    restarted,
    stored_moves,
    to_move,
)


def play_of(probe: Probe, index: int = 0, move_id: str = "m1") -> Play:
    option = probe.view["legal"][index]
    return Play(type="play", move_id=move_id, tile=option["tile"], end=option["end"])


async def test_the_clock_plays_for_an_idle_seat_at_its_deadline(
    live_table: Any, app: Any, clock: FakeClock
) -> None:
    live: LiveTable = await live_table()
    seat = live.table.state.turn
    snapshot = live.probes[seat].of_type("snapshot")[-1]
    assert snapshot["clock"]["seat"] == seat
    assert snapshot["clock"]["remaining_ms"] == 15_000
    assert snapshot["clock"]["deadline"] == round((clock.now() + 15) * 1000)

    clock.advance(14.9)
    await live.settle()
    assert await stored_moves(app) == []

    clock.advance(0.2)
    await live.settle()
    moves = await stored_moves(app)
    assert [(m.seat, m.tile, m.auto) for m in moves] == [(seat, "6-6", True)]
    for probe in live.probes:
        played = [f["event"] for f in probe.of_type("event") if f["event"]["kind"] == "played"]
        assert played[-1]["auto"] is True and played[-1]["seat"] == seat
    # The next seat's clock starts when the move lands.
    assert live.table.deadline == clock.now() + 15


async def test_a_move_and_a_timeout_for_the_same_turn_never_both_land(
    live_table: Any, app: Any, clock: FakeClock
) -> None:
    live: LiveTable = await live_table()
    # Timeout first: the timer fires and posts into the inbox, then the player's move arrives.
    probe = to_move(live)
    clock.advance(15.0)
    live.table.message(probe.conn, play_of(probe, move_id="late"))
    await live.settle()
    assert len(await stored_moves(app)) == 1
    assert probe.errors() == ["not_your_turn"]

    # Move first: the move is queued, then the deadline passes before the table gets to it.
    probe = to_move(live)
    live.table.message(probe.conn, play_of(probe, move_id="early"))
    clock.advance(15.0)
    await live.settle()
    moves = await stored_moves(app)
    assert len(moves) == 2
    assert moves[1].auto is False and moves[1].client_move_id == "early"
    assert [f["move_id"] for f in probe.of_type("ack")] == ["early"]


async def test_refused_moves_change_nothing(live_table: Any, app: Any) -> None:
    live: LiveTable = await live_table()
    mover = to_move(live)
    other = live.probes[(live.table.state.turn + 1) % 4]
    spectator = Probe()
    await live.table.join(spectator.conn, None)
    await live.settle()
    before_state, before_events = live.table.state, list(live.table.events)

    every_tile = [f"{a}-{b}" for a in range(7) for b in range(a, 7)]
    not_in_hand = next(t for t in every_tile if t not in mover.view["hand"])
    cases = [
        (spectator, Play(type="play", move_id="s", tile="6-6"), "spectator"),
        (other, Play(type="play", move_id="o", tile=other.view["hand"][0]), "not_your_turn"),
        (mover, Play(type="play", move_id="n", tile=not_in_hand), "tile_not_in_hand"),
        (mover, Play(type="play", move_id="b", tile="9-9"), "bad_tile"),
        (spectator, Leave(type="leave"), "spectator"),
    ]
    # The first deal must open with 6-6; the 6-6 holder trying another tile is refused.
    other_tile = next(t for t in mover.view["hand"] if t != "6-6")
    cases.append((mover, Play(type="play", move_id="x", tile=other_tile), "must_open_with_6_6"))
    for probe, message, code in cases:
        await live.table.request(probe.conn, message)
        await live.settle()
        error = probe.of_type("error")[-1]
        assert error["code"] == code, (message, error)
        assert error["message"]
        if isinstance(message, Play):
            assert error["move_id"] == message.move_id
    assert live.table.state == before_state
    assert live.table.events == before_events
    assert await stored_moves(app) == []


async def test_tiles_that_fit_both_ends_need_an_end(live_table: Any, app: Any) -> None:
    live: LiveTable = await live_table()
    # Play legal moves until someone holds a tile that fits both ends, then omit the end.
    for turn in range(40):
        probe = to_move(live)
        both = [o for o in probe.view["legal"] if o["end"] is not None]
        if both:
            before = len(await stored_moves(app))
            await live.table.request(
                probe.conn, Play(type="play", move_id="e", tile=both[0]["tile"])
            )
            await live.settle()
            assert probe.of_type("error")[-1]["code"] == "end_required"
            assert len(await stored_moves(app)) == before
            return
        await live.table.request(probe.conn, play_of(probe, move_id=f"t{turn}"))
        await live.settle()
    raise AssertionError("no tile fitting both ends came up")


async def test_a_resent_move_id_is_acknowledged_again_and_applied_once(
    live_table: Any, app: Any
) -> None:
    live: LiveTable = await live_table()
    probe = to_move(live)
    message = play_of(probe, move_id="same")
    await live.table.request(probe.conn, message)
    await live.table.request(probe.conn, message)
    await live.settle()
    acks = probe.of_type("ack")
    assert len(acks) == 2 and acks[0] == acks[1]
    assert len(await stored_moves(app)) == 1


async def test_spectators_and_seats_only_see_their_own_tiles(live_table: Any) -> None:
    live: LiveTable = await live_table()
    spectator = Probe()
    await live.table.join(spectator.conn, None)
    await live.settle()
    hands = [set(p.view["hand"]) for p in live.probes]
    assert set().union(*hands) == {f"{a}-{b}" for a in range(7) for b in range(a, 7)}
    assert spectator.view["hand"] is None
    for seat, probe in enumerate(live.probes):
        text = json.dumps(probe.frames)
        for other in range(4):
            if other != seat:
                leaked = [t for t in hands[other] if f'"{t}"' in text]
                assert leaked == [], (seat, other, leaked)
    assert "seed" not in json.dumps(spectator.frames + [f for p in live.probes for f in p.frames])


async def test_bots_move_after_a_pause_and_a_leaver_is_replaced_by_a_bot(
    live_table: Any, app: Any, clock: FakeClock
) -> None:
    live: LiveTable = await live_table(bots=(1, 2, 3))
    human = live.probes[0]
    for _ in range(60):
        if live.table.state.turn == 0 or live.table.state.phase != "playing":
            break
        clock.advance(CONFIG.bot_max_delay)
        await live.settle()
    assert live.table.state.turn == 0
    assert all(not m.auto for m in await stored_moves(app))

    await live.table.request(human.conn, Leave(type="leave"))
    await live.settle()
    assert human.of_type("welcome")[-1]["role"] == "spectator"
    moves_before = len(await stored_moves(app))
    clock.advance(CONFIG.bot_max_delay)
    await live.settle()
    assert len(await stored_moves(app)) > moves_before


async def test_a_restarted_server_rebuilds_the_table_from_stored_moves(
    live_table: Any, app: Any, clock: FakeClock
) -> None:
    live: LiveTable = await live_table(mode="ganda")
    for turn in range(9):
        probe = to_move(live)
        await live.table.request(probe.conn, play_of(probe, move_id=f"r{turn}"))
        await live.settle()
    clock.advance(4.0)  # part of the next turn's time has gone
    room_id = live.table.room.id

    async with restarted(app, clock, room_id) as rebuilt:
        assert rebuilt.state == live.table.state
        assert rebuilt.events == live.table.events
        assert rebuilt.deadline == live.table.deadline
        assert rebuilt.acks == live.table.acks


async def play_until(live: LiveTable, clock: FakeClock, done: Any, limit: int = 400) -> None:
    for turn in range(limit):
        if done():
            return
        if live.table.state.phase == "deal_over":
            clock.advance(CONFIG.deal_pause)  # the result is shown, then the next deal starts
        else:
            probe = to_move(live)
            await live.table.request(probe.conn, play_of(probe, move_id=f"u{turn}"))
        await live.settle()
    raise AssertionError("the table did not get there")


async def test_presence_and_resuming_after_a_disconnect(live_table: Any) -> None:
    live: LiveTable = await live_table()
    gone = (live.table.state.turn + 3) % 4  # the last of the next four to move
    leaver = live.probes[gone]
    live.table.gone(leaver.conn)
    await live.settle()
    presence = live.probes[(gone + 1) % 4].of_type("presence")[-1]
    assert [s["connected"] for s in presence["seats"]] == [s != gone for s in range(4)]

    last_seen = leaver.of_type("snapshot")[-1]["seq"]
    for turn in range(2):
        probe = to_move(live)
        await live.table.request(probe.conn, play_of(probe, move_id=f"p{turn}"))
        await live.settle()
    back = Probe()
    back.conn.player_id = live.guests[gone].player_id
    await live.table.join(back.conn, Resume(set=live.table.set_number, seq=last_seen))
    await live.settle()
    kinds = [f["type"] for f in back.frames]
    missed = [f["seq"] for f in back.of_type("event")]
    assert missed == list(range(last_seen + 1, len(live.table.events) + 1))
    assert kinds[0] == "welcome" and kinds.index("snapshot") > kinds.index("event")
    assert back.view == engine.view(live.table.state, gone)  # the seat's view as it now stands
    presence = live.probes[(gone + 1) % 4].of_type("presence")[-1]
    assert [s["connected"] for s in presence["seats"]] == [True, True, True, True]


async def test_a_set_runs_to_its_end_and_the_host_starts_the_next(
    live_table: Any, api: Any, clock: FakeClock
) -> None:
    live: LiveTable = await live_table(deals_per_set=2)
    await play_until(live, clock, lambda: live.table.state.phase == "set_over")
    assert live.table.room.status == "open"
    result = live.probes[1].view["set_result"]
    assert result is not None and result["deals"] >= 1

    # The next set starts the way the first did: the host's REST call (the socket has no start).
    start = f"/api/rooms/{live.code}/start"
    refused = await api.post(start, headers=live.guests[1].headers)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_host"
    assert live.table.set_number == 1
    assert (await api.post(start, headers=live.guests[0].headers)).status_code == 200
    await live.settle()
    assert live.table.set_number == 2 and live.table.state.phase == "playing"
    assert live.table.room.status == "playing"
    assert live.probes[3].of_type("snapshot")[-1]["set"] == 2


async def test_between_deals_the_snapshot_says_when_the_next_deal_starts(
    live_table: Callable[..., Awaitable[LiveTable]], clock: FakeClock
) -> None:
    live = await live_table()
    watcher = live.probes[0]
    assert watcher.of_type("snapshot")[-1]["next_deal"] is None  # a deal in play: no countdown
    for _ in range(200):  # nobody moves: the clock plays the deal out
        if live.table.state.phase != "playing":
            break
        clock.advance(15.1)
        await live.settle()
    assert live.table.state.phase == "deal_over"
    ended_at = clock.now()
    after = watcher.of_type("snapshot")[-1]
    assert after["view"]["phase"] == "deal_over" and after["clock"] is None
    assert after["next_deal"] == {
        "deadline": round((ended_at + CONFIG.deal_pause) * 1000),
        "remaining_ms": round(CONFIG.deal_pause * 1000),
    }
    clock.advance(CONFIG.deal_pause)
    await live.settle()
    assert live.table.state.phase == "playing"
    assert watcher.of_type("snapshot")[-1]["next_deal"] is None


async def test_every_viewer_s_score_sheet_lists_the_set_s_finished_deals(
    live_table: Any, api: Any, clock: FakeClock
) -> None:
    live: LiveTable = await live_table(deals_per_set=2)
    await play_until(
        live,
        clock,
        lambda: live.table.state.deal_number == 2 and live.table.state.phase == "playing",
    )
    keys = ("end", "result", "winner", "seat", "points")
    for probe in live.probes:
        ended = [f["event"] for f in probe.of_type("event") if f["event"]["kind"] == "deal_ended"]
        rows = [{"deal": e["deal_number"], **{k: e[k] for k in keys}} for e in ended]
        assert probe.view["deals"] == rows and len(rows) == 1
        assert probe.view["deal_number"] == 2  # the deal in play is not on the sheet

    await play_until(live, clock, lambda: live.table.state.phase == "set_over")
    view = live.probes[0].view
    assert [d["deal"] for d in view["deals"]] == list(range(1, view["set_result"]["deals"] + 1))
    totals = [sum(d["points"][s] for d in view["deals"]) for s in range(4)]
    assert totals == view["scores"] == view["set_result"]["scores"]

    # The next set starts a new sheet.
    start = f"/api/rooms/{live.code}/start"
    assert (await api.post(start, headers=live.guests[0].headers)).status_code == 200
    await live.settle()
    assert live.probes[3].of_type("snapshot")[-1]["view"]["deals"] == []
