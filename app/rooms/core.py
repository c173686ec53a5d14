"""The table's logic, without I/O: ``handle(state, command, now) -> (state, effects)``.

In the style of python-websockets' ``protocol.py`` and h11: the core owns a table's state and
decides everything — who may play, what is stored, what each viewer is sent, which timers run —
and the asyncio shell (app/rooms/table.py) only runs the inbox and carries out the effects. Time
(``now``) and randomness (``state.rng``, ``state.new_secret``) are inputs, so every race is a plain
unit test: a late move and the clock for the same turn are two commands, and whichever the core
handles first changes the turn, so the other finds it stale.

A move is stored before anyone hears of it: the core asks the engine for the new state, and asks
the shell to store the move (``StoreMove``); only the follow-up ``MoveStored`` commits the new
state and shapes the frames. A store that fails leaves the state as it was.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import engine
from app.presets import with_defaults
from app.rooms import frames, seating, talk
from app.rooms.effects import (
    FOLLOW_UPS,
    Abandoned,
    Arm,
    BotMoved,
    ChooseBotMove,
    Closed,
    Command,
    CreateDeal,
    CreateSet,
    DealCreated,
    Effect,
    EndSet,
    Gone,
    HostAway,
    Join,
    LoadRoom,
    Message,
    Metric,
    MoveStored,
    MuteChanged,
    NextDeal,
    PendingMove,
    PresenceDue,
    PutBot,
    RoomChanged,
    RoomLoaded,
    Send,
    SendAway,
    SendPlayerAway,
    SetCreated,
    StoreMove,
    Token,
    TurnDue,
    Unattended,
    YourTurn,
)
from app.rooms.protocol import (
    CLOSE_ROOM_CLOSED,
    Chat,
    ClientCommand,
    Hello,
    Leave,
    Phrase,
    Play,
    React,
)
from app.rooms.state import BOT_KIND, TableError, TableState, Viewer, rules_of, utc
from app.store.records import MoveRecord, RoomInfo

log = logging.getLogger(__name__)

Result = tuple[TableState, list[Effect]]

# Commands of a set in play that change neither who is connected nor the room's status (unless
# they end the set), so the presence watch (seating.with_watch) need not look after them.
_IN_PLAY = (Message, TurnDue, BotMoved, NextDeal, MoveStored, PresenceDue)


def handle(state: TableState, command: Command, now: float) -> Result:
    """Apply one command. Raises TableError or engine.EngineError only for a Join/Message that
    the shell awaits; a refused client message is answered with an ``error`` frame instead."""
    fx: list[Effect] = []
    match command:
        case Join(conn, player_id, resume, name, muted_until):
            if state.room.status == "closed":
                return state, [SendAway(conn, "room_closed", CLOSE_ROOM_CLOSED)]
            fx += seating.replace_older(state, player_id)
            seat = state.room.seat_of(player_id)
            state.viewers.add(conn, Viewer(player_id, seat, name, muted_until))
            fx.append(Send((conn,), (_welcome(state, conn, now),)))
            history = state.history(now)
            after = resume.seq if resume is not None and resume.set == state.set_number else None
            sent = history.catch_up(seat, after) if after is not None else [history.snapshot(seat)]
            sent += talk.history(state, state.viewers[conn])
            fx.append(Send((conn,), tuple(sent)))
            fx += _presence_changed(state, joined=conn)
        case Gone(conn):
            if state.viewers.pop(conn) is not None:
                fx += _presence_changed(state, joined=None)
        case PresenceDue():
            state.presence_due = False
            if _presence_of(state) != state.presence_shown:
                fx.append(_presence(state))
        case Message(conn, message, received):
            fx += _on_message(state, conn, message, received, now)
        case TurnDue(token, bot):
            if not state.final:
                fx += _turn_due(state, token, bot=bot, now=now)
        case BotMoved(token, seat, move):
            # The bot's seat may have been taken back meanwhile, or the turn played: drop it.
            live = token == state.token and state.game.turn == seat and not state.final
            if live and state.bot_of(seat):
                fx += _apply(state, seat, move, kind="bot", now=now)
        case NextDeal(token):
            if (
                not state.final
                and state.game.phase == "deal_over"
                and token
                == (
                    state.set_number,
                    state.game.deal_number,
                )
            ):
                fx += _start_deal(state, now)
        case RoomChanged(started):
            fx.append(LoadRoom("started" if started else "changed"))
        case SendPlayerAway():
            if state.final:
                return state, []
            fx += seating.send_player_away(state, command)
        case MuteChanged(player_id, until):
            for conn in state.viewers.of_player(player_id):
                state.viewers[conn].muted_until = until
        case RoomLoaded(room, purpose):
            fx += _room_loaded(state, room, purpose, now)
        case HostAway() | Unattended() | Abandoned() | Closed():
            fx += seating.handle(state, command, now)
        case SetCreated(number, set_id):
            state.game = engine.new_match(rules_of(state.room))
            state.set_number, state.set_id = number, set_id
            state.events, state.stamps = [], []
            state.auto_seqs = set()
            state.earlier_ids.update(state.acks)  # recognised for the room's life, never replayed
            state.acks = {}
            state.timeouts = {}
            state.deal_id, state.move_seq, state.deadline = None, 0, None
            fx += _start_deal(state, now)
        case DealCreated(deal_id, game, events):
            state.game, state.deal_id, state.move_seq = game, deal_id, 0
            state.turn_started = now
            first = len(state.events)
            state.events.extend(events)
            fx.append(schedule(state, now))
            fx += _broadcast_events(state, first, now)
        case MoveStored(move):
            fx += _committed(state, move, now)
    fx = _tell_absent_turn(state, fx)
    if isinstance(command, _IN_PLAY) and state.game.phase != "set_over":
        return state, fx  # presence and status unchanged: the hot path skips the watch
    return state, seating.with_watch(state, fx, now)


def _tell_absent_turn(state: TableState, fx: list[Effect]) -> list[Effect]:
    """``fx`` plus a ``YourTurn`` when the turn is a human's who has no socket here, once per
    turn (before a follow-up, which stays last)."""
    seat = state.game.turn
    if (
        seat is None
        or state.game.phase != "playing"
        or state.final
        or state.turn_told == state.token
        or state.bot_of(seat) is not None
        or seat in state.humans
    ):
        return fx
    player = next((s.player_id for s in state.room.seats if s.seat == seat), None)
    if player is None:
        return fx
    state.turn_told = state.token
    told = YourTurn(player, state.room.code)
    if fx and isinstance(fx[-1], FOLLOW_UPS):
        return [*fx[:-1], told, fx[-1]]
    return [*fx, told]


# --- client messages -----------------------------------------------------------------------


def _on_message(
    state: TableState,
    conn: int,
    message: ClientCommand,
    received: float,
    now: float,
) -> list[Effect]:
    viewer = state.viewers.get(conn)
    if viewer is None:
        return []  # the socket left before its message was read
    try:
        match message:
            case Play():
                return _play(state, conn, viewer, message, received, now)
            case Leave():
                if viewer.seat is None:
                    raise TableError("spectator", "spectators hold no seat")
                if state.game.phase not in ("playing", "deal_over") or state.final:
                    raise TableError("not_playing", "leave a seat before the set through the lobby")
                return [PutBot(viewer.seat, BOT_KIND, viewer.player_id), LoadRoom("changed")]
            case Chat() | React() | Phrase():
                return talk.on_message(state, conn, viewer, message, now)
            case Hello():
                raise TableError("bad_message", "hello was already received")
    except (TableError, engine.EngineError, talk.ChatRefused) as exc:
        move_id = message.move_id if isinstance(message, Play) else None
        log.info("table %s refused %s from %s: %s", state.room.code, message.type, conn, exc)
        left = getattr(exc, "seconds_left", None)
        return [Send((conn,), (frames.error(exc.code, exc.message, move_id, left),))]


def _play(
    state: TableState, conn: int, viewer: Viewer, message: Play, received: float, now: float
) -> list[Effect]:
    seat = viewer.seat
    if seat is None:
        raise TableError("spectator", "spectators cannot play")
    known = state.acks.get((seat, message.move_id))
    if known is not None:  # a resent move: answered again, applied once
        return [Send((conn,), (frames.ack(message.move_id, state.set_number, known),))]
    if (seat, message.move_id) in state.earlier_ids:  # played in an earlier set: never again
        raise TableError("move_expired", "that move was played in an earlier set")
    if state.bot_of(seat) is not None:
        raise TableError("not_your_turn", f"seat {seat} is played by a bot")
    move = engine.Move(engine.Tile.parse(message.tile), message.end)
    return _apply(
        state,
        seat,
        move,
        kind="player",
        now=now,
        move_id=message.move_id,
        reply_to=conn,
        received=received,
    )


# --- the game ------------------------------------------------------------------------------


def _turn_due(state: TableState, token: Token, *, bot: bool, now: float) -> list[Effect]:
    seat = state.game.turn
    if token != state.token or seat is None:
        return []  # the turn was played meanwhile
    if bot:
        kind = state.bot_of(seat)
        if kind is None:
            return []
        return [ChooseBotMove(token, seat, kind, engine.view(state.game, seat))]
    move = engine.random_legal_move(state.game, state.rng)
    log.info("table %s: seat %s ran out of time; auto-playing %s", state.room.code, seat, move.tile)
    return _apply(state, seat, move, kind="auto", now=now)


def _start_deal(state: TableState, now: float) -> list[Effect]:
    assert state.set_id is not None
    secret = state.new_secret()
    game, events = engine.start_deal(state.game, secret=secret)
    assert game.turn is not None  # a new deal always has someone to open it
    return [CreateDeal(state.set_id, game.deal_number, secret, game.turn, now, game, tuple(events))]


def _apply(
    state: TableState,
    seat: int,
    move: engine.Move,
    *,
    kind: Any,
    now: float,
    move_id: str | None = None,
    reply_to: int | None = None,
    received: float = 0.0,
) -> list[Effect]:
    """Ask the engine, then ask for the move to be stored; nothing changes until it is."""
    if state.final:
        raise TableError("room_closed", f"the room is {state.room.status}")
    if state.deal_id is None or state.game.phase != "playing":
        raise TableError("not_playing", "there is no deal in progress")
    game, events = engine.play(state.game, seat, move)
    record = MoveRecord(
        deal_id=state.deal_id,
        seq=state.move_seq + 1,
        seat=seat,
        tile=str(move.tile),
        end=move.end,
        auto=kind == "auto",
        client_move_id=move_id,
        at=utc(now),
    )
    ended = {ev.kind: ev.to_dict() for ev in events if ev.kind in ("deal_ended", "set_ended")}
    if "deal_ended" in ended:
        record = replace(
            record, deal_result=ended["deal_ended"], set_id=state.set_id, scores=list(game.scores)
        )
    if "set_ended" in ended:
        record = replace(record, set_result=ended["set_ended"])
    pending = PendingMove(
        seat, game, tuple(events), kind == "auto", move_id, reply_to, kind, received
    )
    return [StoreMove(record, pending)]


def _committed(state: TableState, move: PendingMove, now: float) -> list[Effect]:
    """The move is stored: from here on it is part of the table's history."""
    fx: list[Effect] = []
    first = len(state.events)
    state.game, state.move_seq = move.game, state.move_seq + 1
    state.turn_started = now
    state.events.extend(move.events)
    played_seq = first + 1  # the move's own event comes first (played, or discarded)
    if move.auto:
        state.auto_seqs.add(played_seq)
    if move.move_id is not None:
        state.acks[(move.seat, move.move_id)] = played_seq
        if move.reply_to is not None:  # the mover hears first that its move counts
            fx.append(
                Send((move.reply_to,), (frames.ack(move.move_id, state.set_number, played_seq),))
            )
    over = state.game.phase == "set_over"
    if over:
        fx.append(EndSet())
        state.room = replace(state.room, status="open")
    fx.append(schedule(state, now))
    fx += _broadcast_events(state, first, now)
    if over:
        fx.append(_broadcast(state, frames.room(state.room, state.spectators, now)))
    fx.append(Metric(move.kind, move.received))
    return fx + seating.after_move(state, move, over=over)


def schedule(state: TableState, now: float) -> Arm:
    """The timers that follow from the current state (turn clock, bot, next deal)."""
    state.deadline = state.next_deal_at = None
    started = state.turn_started if state.turn_started is not None else now
    game, config = state.game, state.config
    if game.phase == "playing" and game.turn is not None:
        token = state.token
        state.deadline = started + int(with_defaults(state.room.settings)["turn_seconds"])
        timers: list[tuple[float, Command]] = [(state.deadline - now, TurnDue(token, False))]
        if state.bot_of(game.turn) is not None:
            pause = state.rng.uniform(config.bot_min_delay, config.bot_max_delay)
            timers.append((pause, TurnDue(token, True)))
        return Arm("game", tuple(timers))
    if game.phase == "deal_over":
        deal = NextDeal((state.set_number, game.deal_number))
        state.next_deal_at = started + config.deal_pause
        return Arm("game", ((state.next_deal_at - now, deal),))
    return Arm("game")


# --- seats and the room --------------------------------------------------------------------


def _room_loaded(
    state: TableState, room: RoomInfo | None, purpose: str, now: float
) -> list[Effect]:
    before = state.room
    if room is not None:
        state.room = room
        if (
            purpose != "started"
            and (room.blocks, room.muted) != (before.blocks, before.muted)
            and replace(room, blocks=before.blocks, muted=before.muted) == before
        ):
            # Only who blocks whom (or who is muted) changed: that is the blocker's (the
            # operators') business, and a room frame out of nowhere would tell the table
            # something happened.
            return []
    if state.room.status == "closed":
        return seating.handle(state, Closed(), now)
    fx: list[Effect] = []
    ruled = False  # before the first set the host may change the rules (Klasik: 4 or 5 seats)
    if state.set_number == 0 and state.game.phase == "ready":
        rules = rules_of(state.room)
        ruled = rules != state.game.rules
        if ruled:
            state.game = engine.new_match(rules)
    for conn, viewer in state.viewers.items():
        seat = state.room.seat_of(viewer.player_id)
        if seat != viewer.seat:
            state.viewers.seat(conn, seat)
            history = state.history(now)
            fx.append(Send((conn,), (_welcome(state, conn, now), history.snapshot(seat))))
        elif ruled:
            fx.append(Send((conn,), (state.history(now).snapshot(seat),)))
    fx.append(_broadcast(state, frames.room(state.room, state.spectators, now)))
    fx.append(_presence(state))
    if (
        purpose == "started"
        and state.room.status == "playing"
        and state.game.phase in ("ready", "set_over")
    ):
        # The next set's number: the table has the room's last set (restored, or its own).
        fx.append(
            CreateSet(state.room.id, state.set_number + 1, rules_of(state.room).to_dict(), now)
        )
    else:
        fx.append(schedule(state, now))  # a seat may have turned into a bot's
        fx += seating.host_left_seat(before, state)
    return fx


# --- what goes out -------------------------------------------------------------------------


def _welcome(state: TableState, conn: int, now: float) -> str:
    viewer = state.viewers[conn]
    return frames.welcome(state.room, viewer.seat, viewer.player_id, state.spectators, now)


def _broadcast(state: TableState, frame: str) -> Send:
    return Send(tuple(state.viewers), (frame,))


def _presence_of(state: TableState) -> tuple[frozenset[int], int]:
    return frozenset(state.humans), state.spectators


def _presence(state: TableState, to: tuple[int, ...] | None = None) -> Send:
    """``presence`` to everyone (remembered as shown), or only to ``to``."""
    connected, spectators = _presence_of(state)
    frame = frames.presence(state.room, set(connected), spectators)
    if to is not None:
        return Send(to, (frame,))
    state.presence_shown = (connected, spectators)
    return _broadcast(state, frame)


def _presence_changed(state: TableState, *, joined: int | None) -> list[Effect]:
    """A socket joined (``joined``) or left. A seat's socket is told to everyone at once. A
    spectator's changes only the count, which everyone hears at most once per
    ``presence_every`` seconds: thousands joining a watched final would otherwise cost a frame
    to every socket each. The one who joined hears the current presence at once."""
    shown = state.presence_shown
    now_is = _presence_of(state)
    if shown is None or now_is[0] != shown[0]:
        return [_presence(state)]
    fx: list[Effect] = [] if joined is None else [_presence(state, (joined,))]
    if now_is != shown and not state.presence_due:
        state.presence_due = True
        fx.append(Arm("presence", ((state.config.presence_every, PresenceDue()),)))
    return fx


def _broadcast_events(state: TableState, first: int, now: float) -> list[Effect]:
    """events[first:] and then the new view, to every socket (see frames.History.fan_out)."""
    by_viewer: dict[int | None, list[int]] = {}
    for conn, viewer in state.viewers.seated.items():
        by_viewer.setdefault(viewer.seat, []).append(conn)
    if state.viewers.watching:
        by_viewer[None] = list(state.viewers.watching)
    history = state.history(now)
    out = history.fan_out(first, by_viewer)
    stamp = (history.clock, history.server_time)
    state.stamps.extend([stamp] * (len(state.events) - len(state.stamps)))
    return [Send(tuple(by_viewer[viewer]), tuple(sent)) for viewer, sent in out.items()]
