"""The table core without asyncio: commands in, effects out, no event loop, no store, no clock.

The store's answers (the ids of a new set and deal, "the move is stored") are fed back as the
follow-up commands the shell would hand back; everything else is the real core and engine.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import replace
from typing import Any

import pytest
from pydantic import SecretStr

import engine
from app.presets import DEFAULT_TURN_SECONDS
from app.rooms.core import handle, schedule
from app.rooms.effects import (
    Arm,
    BotMoved,
    ChooseBotMove,
    Command,
    CreateDeal,
    CreateSet,
    DealCreated,
    Effect,
    Gone,
    Join,
    KeepChat,
    LoadRoom,
    Message,
    MoveStored,
    NextDeal,
    PresenceDue,
    RoomChanged,
    RoomLoaded,
    Send,
    SetCreated,
    StoreMove,
    TurnDue,
)
from app.rooms.protocol import Chat, Phrase, Play, React
from app.rooms.state import TableConfig, TableState, Viewer, Viewers
from app.settings import Settings
from app.store.records import RoomInfo, SeatInfo
from tests.conftest import TEST_SECRET_KEY

T0 = 1_800_000_000.0
SETTINGS = {"preset": "pordi", "mode": "tunggal", "turn_seconds": 15}
# The service's defaults (a secret key given, so that no key file is written).
CONFIG = TableConfig.from_settings(Settings(secret_key=SecretStr(TEST_SECRET_KEY)))


def room(status: str = "open", bots: tuple[int, ...] = ()) -> RoomInfo:
    seats = tuple(
        SeatInfo(s, None, None, "heuristic") if s in bots else SeatInfo(s, f"p{s}", f"P{s}", None)
        for s in range(4)
    )
    return RoomInfo("r1", "ABCDEF", "p0", status, dict(SETTINGS), seats)


def run(state: TableState, command: Command, now: float) -> list[Effect]:
    """Handle a command and every follow-up the way the shell would, answering the store's calls
    with fixed ids; returns all the effects in order. Stops at a bot's move (the shell would run
    the bot) and at a stored move only when ``store`` is off."""
    out: list[Effect] = []
    next_command: Command | None = command
    while next_command is not None:
        _, effects = handle(state, next_command, now)
        out += effects
        next_command = None
        last = effects[-1] if effects else None
        if isinstance(last, LoadRoom):
            next_command = RoomLoaded(replace(state.room, status="playing"), last.purpose)
        elif isinstance(last, CreateSet):
            next_command = SetCreated(1, 10)
        elif isinstance(last, CreateDeal):
            next_command = DealCreated(100 + last.number, last.game, last.events)
        elif isinstance(last, StoreMove):
            next_command = MoveStored(last.move)
    return out


def started(bots: tuple[int, ...] = ()) -> TableState:
    state = TableState(room(bots=bots), CONFIG, random.Random(5), lambda: "5" * 64)
    for seat in range(4):
        if seat not in bots:
            handle(state, Join(seat, f"p{seat}"), T0)
    handle(state, Join(9, None), T0)  # a spectator
    run(state, RoomChanged(started=True), T0)
    assert state.game.phase == "playing" and state.deadline == T0 + 15
    return state


def play(state: TableState, move_id: str, seat: int | None = None) -> Message:
    seat = state.game.turn if seat is None else seat
    assert seat is not None
    option = engine.view(state.game, seat)["legal"][0]
    message = Play(type="play", move_id=move_id, tile=option["tile"], end=option["end"])
    return Message(seat, message)  # the seat's socket is the connection with id == seat


def sent_to(effects: list[Effect], conn: int) -> list[dict[str, Any]]:
    return [
        json.loads(f) for e in effects if isinstance(e, Send) and conn in e.to for f in e.frames
    ]


def stored(effects: list[Effect]) -> list[StoreMove]:
    return [e for e in effects if isinstance(e, StoreMove)]


def test_the_core_needs_no_event_loop() -> None:
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()
    state = started()
    assert sent_to([], 0) == []
    assert state.events and state.events[0].kind == "deal_started"


def test_a_late_move_after_the_clock_ran_out_is_refused() -> None:
    state = started()
    mover = state.game.turn
    late = play(state, "late")
    timeout = run(state, TurnDue(state.token, bot=False), T0 + 15)
    assert [s.record.auto for s in stored(timeout)] == [True]
    assert state.game.turn != mover and state.move_seq == 1

    refused = run(state, late, T0 + 15.1)
    assert stored(refused) == []
    assert [f["code"] for f in sent_to(refused, mover)] == ["not_your_turn"]
    assert state.move_seq == 1


def test_the_clock_runs_for_the_room_setting_or_its_default() -> None:
    state = started()
    stored_without = {k: v for k, v in SETTINGS.items() if k != "turn_seconds"}
    for settings, seconds in (
        ({**SETTINGS, "turn_seconds": 60}, 60),
        (stored_without, DEFAULT_TURN_SECONDS),
    ):
        state.room = replace(state.room, settings=settings)
        state.turn_started = T0 + 1
        schedule(state, T0 + 2)
        assert state.deadline == T0 + 1 + seconds


def test_the_clock_for_a_turn_already_played_does_nothing() -> None:
    state = started()
    token = state.token
    moved = run(state, play(state, "early"), T0 + 14.9)
    assert [s.record.client_move_id for s in stored(moved)] == ["early"]
    assert run(state, TurnDue(token, bot=False), T0 + 15) == []
    assert state.move_seq == 1


def test_nothing_changes_until_the_move_is_stored() -> None:
    state = started()
    before, events = state.game, list(state.events)
    _, effects = handle(state, play(state, "m1"), T0 + 1)
    assert [type(e) for e in effects] == [StoreMove]
    assert state.game == before and state.events == events and state.acks == {}


def test_the_ack_goes_out_before_the_moves_events_and_snapshot() -> None:
    state = started()
    mover = state.game.turn
    assert mover is not None
    frames = sent_to(run(state, play(state, "m1"), T0 + 1), mover)
    kinds = [f["type"] for f in frames]
    assert kinds[0] == "ack" and kinds[-1] == "snapshot" and set(kinds[1:-1]) == {"event"}
    assert frames[0]["seq"] == frames[1]["seq"] and frames[1]["event"]["kind"] == "played"


def test_a_resent_move_id_is_acknowledged_again_and_applied_once() -> None:
    state = started()
    message = play(state, "same")
    first = run(state, message, T0 + 1)
    again = run(state, message, T0 + 2)
    assert len(stored(first)) == 1 and stored(again) == []
    ack = [f for f in sent_to(first, message.conn) if f["type"] == "ack"]
    assert sent_to(again, message.conn) == ack
    assert state.move_seq == 1


def test_a_seat_handed_to_a_bot_is_played_by_it() -> None:
    state = started()
    seat = state.game.turn
    assert seat is not None
    gone_to_bot = room("playing", bots=(seat,))
    effects = run(state, RoomLoaded(gone_to_bot, "changed"), T0 + 1)
    welcome = [f for f in sent_to(effects, seat) if f["type"] == "welcome"]
    assert welcome[-1]["role"] == "spectator"
    arm = [e for e in effects if isinstance(e, Arm)][-1]
    assert [c for _, c in arm.timers] == [TurnDue(state.token, False), TurnDue(state.token, True)]

    chose = run(state, TurnDue(state.token, bot=True), T0 + 2)
    assert [type(e) for e in chose] == [ChooseBotMove]
    bot = chose[0]
    assert isinstance(bot, ChooseBotMove) and bot.view["hand"] is not None
    move = engine.BOTS[bot.kind].choose(bot.view, state.rng)
    assert len(stored(run(state, BotMoved(bot.token, bot.seat, move), T0 + 3))) == 1


def test_a_bot_move_for_a_seat_taken_back_meanwhile_is_dropped() -> None:
    state = started(bots=(0, 1, 2, 3))
    chose = run(state, TurnDue(state.token, bot=True), T0 + 1)
    bot = chose[0]
    assert isinstance(bot, ChooseBotMove)
    back = room("playing", bots=tuple(s for s in range(4) if s != bot.seat))
    handle(state, Join(bot.seat, f"p{bot.seat}"), T0 + 1)
    effects = run(state, RoomLoaded(back, "changed"), T0 + 1)
    frames = sent_to(effects, bot.seat)
    assert frames[-1]["type"] == "presence"
    snapshot = [f for f in frames if f["type"] == "snapshot"][-1]
    assert snapshot["view"]["hand"] == engine.view(state.game, bot.seat)["hand"]

    move = engine.BOTS[bot.kind].choose(bot.view, state.rng)
    assert run(state, BotMoved(bot.token, bot.seat, move), T0 + 2) == []
    assert state.move_seq == 0


def _snapshots(effects: list[Effect], conn: int) -> list[dict[str, Any]]:
    return [f["view"] for f in sent_to(effects, conn) if f["type"] == "snapshot"]


def test_the_score_sheet_lists_each_finished_deal_and_no_tile() -> None:
    state = started()
    n = 0
    ended: list[dict[str, Any]] = []
    while not ended:
        effects = run(state, play(state, f"m{n}"), T0 + 1 + n)
        n += 1
        for conn in (0, 1, 2, 3, 9):
            views = _snapshots(effects, conn)
            assert views, conn
            if views[-1]["phase"] == "playing":
                assert views[-1]["deals"] == []  # the deal in play is nobody's to see yet
        ended = [
            f["event"]
            for f in sent_to(effects, 9)
            if f["type"] == "event"
            if f["event"]["kind"] == "deal_ended"
        ]
    first = ended[0]
    row = {key: first[key] for key in ("end", "result", "winner", "seat", "points")}
    for conn in (0, 1, 2, 3, 9):
        (sheet,) = _snapshots(effects, conn)[-1]["deals"]
        assert sheet == {"deal": 1, **row}
        # The sheet holds no tile: the hands and the last tile stay in last_result.
        assert "-" not in json.dumps(sheet)

    # The next deal keeps the sheet of the set while its own result is unknown.
    nxt = run(state, NextDeal((state.set_number, 1)), T0 + 100)
    later = _snapshots(nxt, 9)[-1]
    assert later["phase"] == "playing" and later["deal_number"] == 2
    assert later["deals"] == [{"deal": 1, **row}]


def test_a_move_id_of_an_earlier_set_is_refused_and_never_applied_again() -> None:
    state = started()
    message = play(state, "early")
    run(state, message, T0 + 1)
    run(state, SetCreated(2, 11), T0 + 2)  # the next set, and the seat may hold that tile again
    assert state.set_number == 2 and state.move_seq == 0
    resent = Message(message.conn, message.message)
    effects = run(state, resent, T0 + 3)
    assert stored(effects) == []
    assert [f["code"] for f in sent_to(effects, message.conn)] == ["move_expired"]
    assert state.move_seq == 0


def test_a_block_reloaded_changes_who_hears_whom_and_tells_nobody() -> None:
    state = started()  # p0..p3 in seats 0..3 (connections 0..3), a spectator on connection 9
    blocked = replace(state.room, blocks=frozenset({("p0", "p1")}))
    assert run(state, RoomLoaded(blocked, "changed"), T0 + 1) == []  # no room frame, no presence
    assert state.room.blocks == {("p0", "p1")}
    said = run(state, Message(1, Chat(type="chat", text="halo")), T0 + 2)
    assert sent_to(said, 0) == []  # p0 blocks p1
    for conn in (1, 2, 3, 9):  # the sender, the other seats, the spectator
        assert [f["text"] for f in sent_to(said, conn)] == ["halo"]
    answered = run(state, Message(0, Chat(type="chat", text="hai")), T0 + 3)
    assert [f["text"] for f in sent_to(answered, 1)] == ["hai"]  # one direction only
    # A seat change alongside is announced as ever.
    moved = replace(blocked, blocks=frozenset(), status="closed")
    assert run(state, RoomLoaded(moved, "changed"), T0 + 4) != []


@pytest.mark.parametrize(
    ("rated", "tournament", "kept"),
    [(False, False, False), (True, False, True), (False, True, True)],
)
def test_a_rated_or_tournament_table_keeps_what_was_said_and_nothing_else(
    rated: bool, tournament: bool, kept: bool
) -> None:
    info = replace(
        room(), settings={**SETTINGS, "rated": rated}, tournament_id=7 if tournament else None
    )
    state = TableState(info, CONFIG, random.Random(5), lambda: "5" * 64)
    handle(state, Join(0, "p0", name="P0"), T0)
    handle(state, Join(9, "fan", name="Fan"), T0)  # a spectator
    said = run(state, Message(0, Chat(type="chat", text="halo")), T0 + 1)
    said += run(state, Message(9, Phrase(type="phrase", id="mantap")), T0 + 2)
    said += run(state, Message(0, React(type="react", emoji="🔥")), T0 + 3)
    lines = [e for e in said if isinstance(e, KeepChat)]
    expected = [
        KeepChat(None, "p0", "P0", 0, "chat", "halo", T0 + 1),
        KeepChat(None, "fan", "Fan", None, "phrase", "mantap", T0 + 2),
    ]
    assert lines == (expected if kept else [])


def _frames_out(effects: list[Effect]) -> int:
    return sum(len(e.to) * len(e.frames) for e in effects if isinstance(e, Send))


def test_spectators_joining_a_watched_table_cost_a_frame_each_and_the_count_follows() -> None:
    state = started()
    # started()'s spectator armed a count; the room frame and presence at the start told it.
    assert state.presence_due and handle(state, PresenceDue(), T0 + 1)[1] == []
    watchers = range(100, 1100)  # a thousand spectators arrive ...
    joined = [e for conn in watchers for e in handle(state, Join(conn, None), T0 + 1)[1]]
    per_join = [f["type"] for f in sent_to(joined, 100)]
    assert per_join == ["welcome", "snapshot", "presence"]  # ... each hears where things stand
    arms = [e for e in joined if isinstance(e, Arm)]
    assert arms == [Arm("presence", ((CONFIG.presence_every, PresenceDue()),))]  # one timer
    # What they cost: their own welcome, snapshot and presence, not a frame to everyone each.
    assert _frames_out(joined) == 3 * len(watchers)

    _, told = handle(state, PresenceDue(), T0 + 1 + CONFIG.presence_every)
    assert [e.to for e in told if isinstance(e, Send)] == [tuple(state.viewers)]
    assert [f["spectators"] for f in sent_to(told, 0)] == [1 + len(watchers)]
    assert handle(state, PresenceDue(), T0 + 3)[1] == []  # nothing changed since

    # A seat's socket going is news at once; a spectator's leaving waits for the next count.
    _, left = handle(state, Gone(100), T0 + 4)
    assert sent_to(left, 0) == [] and [type(e) for e in left] == [Arm]
    _, dropped = handle(state, Gone(2), T0 + 4)
    presence = sent_to(dropped, 0)
    assert [p["seats"][2]["connected"] for p in presence] == [False]
    assert [p["spectators"] for p in presence] == [len(watchers)]  # the count caught up too
    assert handle(state, PresenceDue(), T0 + 5)[1] == []


def test_a_spectator_who_leaves_and_one_who_comes_leave_the_count_as_it_was() -> None:
    state = started()
    handle(state, PresenceDue(), T0 + 1)
    handle(state, Join(100, None), T0 + 1)
    handle(state, Gone(100), T0 + 1)
    assert handle(state, PresenceDue(), T0 + 2)[1] == []  # the table heard of nobody
    assert not state.presence_due


def test_the_viewers_index_agrees_with_a_plain_scan() -> None:
    viewers, rng = Viewers(), random.Random(3)
    for _ in range(2_000):
        conn, action = rng.randrange(30), rng.random()
        if action < 0.5:
            viewers.add(conn, Viewer(rng.choice(["a", "b", "c", None]), rng.choice([0, 1, None])))
        elif action < 0.8:
            viewers.pop(conn)
        elif conn in viewers:
            viewers.seat(conn, rng.choice([0, 1, None]))
        assert dict(viewers.seated) == {c: v for c, v in viewers.items() if v.seat is not None}
        assert dict(viewers.watching) == {c: v for c, v in viewers.items() if v.seat is None}
        for player in ("a", "b", "c"):
            mine = [c for c, v in viewers.items() if v.player_id == player]
            assert sorted(viewers.of_player(player)) == sorted(mine)
