"""The room actor: one per live table, one inbox, one writer.

Every change to a table — a player's move, the turn clock running out, a bot's move, a seat
changing hands, the next deal — is a command posted into the table's inbox and applied one at a
time by a single task. A late move and a timeout for the same turn therefore cannot both land: the
first one changes the turn, and the second finds it stale.

A move is stored before anyone hears of it: the actor asks the engine for the new state, appends
the move (and whatever it concluded) to the store, and only then commits the new state and
broadcasts the events, each viewer getting only what engine.views lets it see.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import engine
from app.metrics import Metrics
from app.rooms.clock import Clock, Timer
from app.rooms.connection import Connection
from app.rooms.settings import rule_settings
from app.rooms.store import GameStore, MoveRecord, RoomInfo, StoreConflict, StoredSet
from app.ws.messages import Hello, Leave, NextSet, Play, Resume, Start, dumps, error_message

log = logging.getLogger(__name__)

BOT_KIND = "heuristic"
MOVE_EVENTS = ("played", "discarded")  # the event a stored move makes, one per move


@dataclass(frozen=True)
class TableConfig:
    deal_pause: float = 5.0
    bot_min_delay: float = 0.6
    bot_max_delay: float = 1.6
    send_queue: int = 256


class TableError(Exception):
    """A refused request; ``code`` is one of the protocol's stable error codes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# --- inbox commands --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Join:
    conn: Connection
    resume: Resume | None


@dataclass(frozen=True)
class _Gone:
    conn: Connection


@dataclass(frozen=True)
class _Message:
    conn: Connection
    message: Play | Start | NextSet | Leave | Hello
    received: float = field(default_factory=time.perf_counter)


@dataclass(frozen=True)
class _TurnDue:
    """The clock ran out (``bot`` False) or a bot's thinking pause ended (``bot`` True)."""

    token: tuple[int, int, int]
    bot: bool


@dataclass(frozen=True)
class _NextDeal:
    token: tuple[int, int]


@dataclass(frozen=True)
class _RoomChanged:
    started: bool


@dataclass(frozen=True)
class _Stop:
    lost: bool = False  # the lease went to another node: also send the clients away


@dataclass(frozen=True)
class _Settle:
    pass


Command = _Join | _Gone | _Message | _TurnDue | _NextDeal | _RoomChanged | _Stop | _Settle


def _utc(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, UTC)


class Table:
    def __init__(
        self,
        room: RoomInfo,
        *,
        store: GameStore,
        clock: Clock,
        config: TableConfig | None = None,
        rng: random.Random | None = None,
        new_seed: Callable[[], int] | None = None,
        on_lost: Callable[[Table], None] | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.room = room
        self.store = store
        self.clock = clock
        self.config = config or TableConfig()
        self.rng = rng or random.Random(secrets.randbits(64))
        self.new_seed = new_seed or (lambda: secrets.randbits(63))
        self.state = engine.new_match(self._rules())
        self.set_number = 0
        self.set_id: int | None = None
        self.deal_id: int | None = None
        self.move_seq = 0  # placements stored in the current deal
        # This set's events, seq = index + 1: the engine's compact events, turned into dicts
        # only when a frame is made (a long set holds hundreds of them per table).
        self._event_objs: list[engine.Event] = []
        self.auto_seqs: set[int] = set()
        self.acks: dict[tuple[int, str], int] = {}
        self.conns: set[Connection] = set()
        self.deadline: float | None = None
        self._turn_started: float | None = None
        self._timers: list[Timer] = []
        self._inbox: asyncio.Queue[tuple[Command, asyncio.Future[Any] | None]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._on_lost = on_lost
        self.metrics = metrics or Metrics(process=False)
        self.lost = False

    @property
    def events(self) -> list[dict[str, Any]]:
        """This set's events so far, as stored (not as any viewer sees them)."""
        return [ev.to_dict() for ev in self._event_objs]

    # --- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name=f"table-{self.room.code}"
        )

    async def stop(self, *, lost: bool = False) -> None:
        if self._task is None or self._task.done():
            return
        await self.call(_Stop(lost))
        await self._task

    async def restore(self) -> None:
        """Rebuild the table from stored moves (after a restart), then re-arm its clock."""
        stored = await self.store.load_current_set(self.room.id)
        if stored is None:
            return
        self._rebuild(stored)
        self._schedule()

    def _rebuild(self, stored: StoredSet) -> None:
        rules = engine.RuleSet.from_dict(stored.rules)
        deals = [
            (deal.seed, [engine.Move(engine.Tile.parse(m.tile), m.end) for m in deal.moves])
            for deal in stored.deals
        ]
        state, events = engine.replay_match(rules, deals)
        self.state = state
        self.set_number = stored.number
        self.set_id = stored.id
        self._event_objs = list(events)
        moves = [m for deal in stored.deals for m in deal.moves]
        played = [i + 1 for i, ev in enumerate(events) if ev.kind in MOVE_EVENTS]
        for seq, move in zip(played, moves, strict=True):
            if move.auto:
                self.auto_seqs.add(seq)
            if move.client_move_id is not None:
                self.acks[(move.seat, move.client_move_id)] = seq
        last = stored.deals[-1] if stored.deals else None
        if last is not None:
            self.deal_id = last.id
            self.move_seq = len(last.moves)
            latest = last.moves[-1].created_at if last.moves else last.started_at
            self._turn_started = latest.timestamp()

    # --- the inbox ----------------------------------------------------------------------------

    def post(self, command: Command) -> None:
        self._inbox.put_nowait((command, None))

    async def call(self, command: Command) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inbox.put_nowait((command, future))
        return await future

    async def _run(self) -> None:
        while True:
            command, future = await self._inbox.get()
            if isinstance(command, _Stop):
                self._cancel_timers()
                if command.lost:
                    self._lose()
                if future is not None:
                    future.set_result(None)
                return
            try:
                result = await self._handle(command)
            except StoreConflict as exc:
                log.warning("table %s: another node owns it now (%s)", self.room.code, exc)
                if future is not None and not future.done():
                    future.set_exception(exc)
                self._lose()
                return
            except Exception as exc:
                if not isinstance(exc, TableError | engine.EngineError):
                    log.exception("table %s: %s failed", self.room.code, type(command).__name__)
                if future is not None and not future.done():
                    future.set_exception(exc)
            else:
                if future is not None and not future.done():
                    future.set_result(result)

    def _lose(self) -> None:
        """This node no longer owns the table: stop, and send its clients elsewhere."""
        self.lost = True
        self._cancel_timers()
        for conn in list(self.conns):
            conn.send_away("table_moved")
        self.conns.clear()
        if self._on_lost is not None:
            self._on_lost(self)

    async def _handle(self, command: Command) -> Any:
        match command:
            case _Join(conn, resume):
                self._join(conn, resume)
            case _Gone(conn):
                self._gone(conn)
            case _Message(conn, message, received):
                await self._on_message(conn, message, received)
            case _TurnDue(token, bot):
                await self._turn_due(token, bot=bot)
            case _NextDeal(token):
                if self.state.phase == "deal_over" and token == (
                    self.set_number,
                    self.state.deal_number,
                ):
                    await self._start_deal()
            case _RoomChanged(started):
                await self._room_changed(started=started)
        return None

    # --- public entry points for the socket endpoint and the lobby -------------------------------

    async def join(self, conn: Connection, resume: Resume | None) -> None:
        await self.call(_Join(conn, resume))

    def gone(self, conn: Connection) -> None:
        self.post(_Gone(conn))

    def message(self, conn: Connection, message: Play | Start | NextSet | Leave | Hello) -> None:
        self.post(_Message(conn, message))

    async def request(
        self, conn: Connection, message: Play | Start | NextSet | Leave | Hello
    ) -> None:
        """Like ``message`` but returns once the table has handled it."""
        await self.call(_Message(conn, message))

    async def settle(self) -> None:
        """Return once everything posted so far has been handled (the inbox is FIFO)."""
        await self.call(_Settle())

    async def room_changed(self, *, started: bool = False) -> None:
        await self.call(_RoomChanged(started))

    @property
    def spectators(self) -> int:
        return sum(1 for c in self.conns if c.seat is None)

    @property
    def busy(self) -> bool:
        return bool(self.conns) or self.state.phase in ("playing", "deal_over")

    # --- handlers -----------------------------------------------------------------------------

    def _join(self, conn: Connection, resume: Resume | None) -> None:
        conn.seat = self.room.seat_of(conn.player_id)
        self.conns.add(conn)
        self._welcome(conn)
        if resume is not None and resume.set == self.set_number:
            for seq in range(resume.seq + 1, len(self._event_objs) + 1):
                frame = self._event_frame(seq, conn.seat)
                if frame is not None:
                    conn.send(frame)
        self._send_snapshot(conn)
        self._broadcast_presence()

    def _gone(self, conn: Connection) -> None:
        if conn in self.conns:
            self.conns.discard(conn)
            self._broadcast_presence()

    async def _on_message(
        self, conn: Connection, message: Play | Start | NextSet | Leave | Hello, received: float
    ) -> None:
        try:
            match message:
                case Play():
                    if await self._play(conn, message):
                        latency = time.perf_counter() - received
                        self.metrics.record_move("player", latency=latency)
                case Start():
                    await self._host_start(conn)
                case NextSet():
                    await self._host_next_set(conn)
                case Leave():
                    await self._leave(conn)
                case Hello():
                    raise TableError("bad_message", "hello was already received")
        except (TableError, engine.EngineError) as exc:
            move_id = message.move_id if isinstance(message, Play) else None
            log.info("table %s refused %s from %s: %s", self.room.code, message.type, conn.id, exc)
            conn.send(dumps(error_message(exc.code, exc.message, move_id)))
        except StoreConflict:
            raise
        except Exception:
            # Storage failed: nothing was applied; the client may send the same move id again.
            log.exception("table %s: %s from %s failed", self.room.code, message.type, conn.id)
            move_id = message.move_id if isinstance(message, Play) else None
            conn.send(dumps(error_message("unavailable", "try again in a moment", move_id)))

    async def _play(self, conn: Connection, message: Play) -> bool:
        """Apply a player's move; False when it was a resent move id (answered, not applied)."""
        seat = conn.seat
        if seat is None:
            raise TableError("spectator", "spectators cannot play")
        known = self.acks.get((seat, message.move_id))
        if known is not None:
            conn.send(self._ack_frame(message.move_id, known))
            return False
        if self._bot_of(seat) is not None:
            raise TableError("not_your_turn", f"seat {seat} is played by a bot")
        tile = engine.Tile.parse(message.tile)
        seq = await self._apply(
            seat, engine.Move(tile, message.end), auto=False, move_id=message.move_id
        )
        conn.send(self._ack_frame(message.move_id, seq))
        return True

    async def _host_start(self, conn: Connection) -> None:
        self._require_host(conn)
        if self.room.status != "open":
            raise TableError("set_in_progress", "the set has already started")
        if any(s.player_id is None and s.bot is None for s in self.room.seats):
            raise TableError("seats_not_filled", "every seat needs a player or a bot")
        await self.store.set_room_status(self.room.id, "playing")
        await self._reload_room()
        await self._start_set()

    async def _host_next_set(self, conn: Connection) -> None:
        self._require_host(conn)
        if self.state.phase != "set_over":
            raise TableError("set_in_progress", "the current set has not ended")
        await self.store.set_room_status(self.room.id, "playing")
        await self._reload_room()
        await self._start_set()

    def _require_host(self, conn: Connection) -> None:
        if conn.player_id != self.room.host_id:
            raise TableError("not_host", "only the host can do that")

    async def _leave(self, conn: Connection) -> None:
        seat = conn.seat
        if seat is None:
            raise TableError("spectator", "spectators hold no seat")
        if self.state.phase not in ("playing", "deal_over"):
            raise TableError("not_playing", "leave a seat before the set through the lobby")
        await self.store.put_bot_in_seat(self.room.id, seat, BOT_KIND)
        await self._room_changed(started=False)

    async def _room_changed(self, *, started: bool) -> None:
        await self._reload_room()
        ruled = False  # before the first set the host may change the rules (Klasik: 4 or 5 seats)
        if self.set_number == 0 and self.state.phase == "ready":
            rules = self._rules()
            ruled = rules != self.state.rules
            if ruled:
                self.state = engine.new_match(rules)
        for conn in list(self.conns):
            seat = self.room.seat_of(conn.player_id)
            if seat != conn.seat:
                conn.seat = seat
                self._welcome(conn)
                self._send_snapshot(conn)
            elif ruled:
                self._send_snapshot(conn)
        self._broadcast(dumps({"type": "room", "room": self.room.public(self.spectators)}))
        self._broadcast_presence()
        if started and self.room.status == "playing" and self.state.phase in ("ready", "set_over"):
            await self._start_set()
        else:
            self._schedule()  # a seat may have turned into a bot's

    async def _reload_room(self) -> None:
        room = await self.store.load_room(self.room.id)
        if room is not None:
            self.room = room

    # --- the game -----------------------------------------------------------------------------

    def _rules(self) -> engine.RuleSet:
        return engine.rules_from_settings(rule_settings(self.room.settings))

    async def _start_set(self) -> None:
        rules = self._rules()
        number = await self.store.last_set_number(self.room.id) + 1
        set_id = await self.store.create_set(
            room_id=self.room.id, number=number, rules=rules.to_dict(), at=_utc(self.clock.now())
        )
        self.state = engine.new_match(rules)
        self.set_number, self.set_id = number, set_id
        self._event_objs = []
        self.auto_seqs.clear()
        self.acks.clear()
        self.deal_id, self.move_seq, self.deadline = None, 0, None
        await self._start_deal()

    async def _start_deal(self) -> None:
        assert self.set_id is not None
        seed = self.new_seed()
        state, events = engine.start_deal(self.state, seed)
        assert state.turn is not None  # a new deal always has someone to open it
        now = self.clock.now()
        deal_id = await self.store.create_deal(
            set_id=self.set_id, number=state.deal_number, seed=seed, opener=state.turn, at=_utc(now)
        )
        self.state, self.deal_id, self.move_seq = state, deal_id, 0
        self._turn_started = now
        self._commit_events(events)
        self._schedule()
        self._broadcast_events(len(self._event_objs) - len(events))

    async def _apply(self, seat: int, move: engine.Move, *, auto: bool, move_id: str | None) -> int:
        """Play, store, then broadcast; returns the seq of the move's ``played`` event."""
        if self.deal_id is None or self.state.phase != "playing":
            raise TableError("not_playing", "there is no deal in progress")
        state, events = engine.play(self.state, seat, move)
        record = MoveRecord(
            deal_id=self.deal_id,
            seq=self.move_seq + 1,
            seat=seat,
            tile=str(move.tile),
            end=move.end,
            auto=auto,
            client_move_id=move_id,
            at=_utc(self.clock.now()),
        )
        ended = {ev.kind: ev.to_dict() for ev in events if ev.kind in ("deal_ended", "set_ended")}
        if "deal_ended" in ended:
            record = replace(
                record,
                deal_result=ended["deal_ended"],
                set_id=self.set_id,
                scores=list(state.scores),
            )
        if "set_ended" in ended:
            record = replace(record, set_result=ended["set_ended"])
        await self.store.record_move(record)
        # Stored: from here on the move is part of the table's history.
        first = len(self._event_objs)
        self.state, self.move_seq = state, self.move_seq + 1
        self._turn_started = self.clock.now()
        self._commit_events(events)
        played_seq = first + 1  # the move's own event comes first (played, or discarded)
        if auto:
            self.auto_seqs.add(played_seq)
        if move_id is not None:
            self.acks[(seat, move_id)] = played_seq
        if state.phase == "set_over":
            await self.store.set_room_status(self.room.id, "open")  # set over: open again
            await self._reload_room()
        self._schedule()
        self._broadcast_events(first)
        if state.phase == "set_over":
            self._broadcast(dumps({"type": "room", "room": self.room.public(self.spectators)}))
        return played_seq

    async def _turn_due(self, token: tuple[int, int, int], *, bot: bool) -> None:
        if token != self._turn_token() or self.state.turn is None:
            return  # the turn was played meanwhile
        seat = self.state.turn
        if bot:
            kind = self._bot_of(seat)
            if kind is None:
                return
            move = engine.BOTS[kind].choose(engine.view(self.state, seat), self.rng)
            await self._apply(seat, move, auto=False, move_id=None)
            self.metrics.record_move("bot")
        else:
            move = engine.random_legal_move(self.state, self.rng)
            log.info(
                "table %s: seat %s ran out of time; auto-playing %s",
                self.room.code,
                seat,
                move.tile,
            )
            await self._apply(seat, move, auto=True, move_id=None)
            self.metrics.record_move("auto")

    def _turn_token(self) -> tuple[int, int, int]:
        return (self.set_number, self.state.deal_number, self.move_seq)

    def _bot_of(self, seat: int) -> str | None:
        for s in self.room.seats:
            if s.seat == seat:
                return s.bot
        return None

    def _schedule(self) -> None:
        """Arm the timers that follow from the current state (turn clock, bot, next deal)."""
        self._cancel_timers()
        self.deadline = None
        now = self.clock.now()
        started = self._turn_started if self._turn_started is not None else now
        if self.state.phase == "playing" and self.state.turn is not None:
            token = self._turn_token()
            self.deadline = started + int(self.room.settings.get("turn_seconds", 15))
            self._timers.append(
                self.clock.call_later(
                    self.deadline - now, lambda: self.post(_TurnDue(token, False))
                )
            )
            if self._bot_of(self.state.turn) is not None:
                pause = self.rng.uniform(self.config.bot_min_delay, self.config.bot_max_delay)
                self._timers.append(
                    self.clock.call_later(pause, lambda: self.post(_TurnDue(token, True)))
                )
        elif self.state.phase == "deal_over":
            deal_token = (self.set_number, self.state.deal_number)
            self._timers.append(
                self.clock.call_later(
                    started + self.config.deal_pause - now, lambda: self.post(_NextDeal(deal_token))
                )
            )

    def _cancel_timers(self) -> None:
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()

    # --- what goes out ------------------------------------------------------------------------

    def _commit_events(self, events: list[engine.Event]) -> None:
        self._event_objs.extend(events)

    def _clock(self) -> dict[str, Any] | None:
        if self.deadline is None or self.state.turn is None:
            return None
        remaining = max(0, round((self.deadline - self.clock.now()) * 1000))
        return {
            "seat": self.state.turn,
            "deadline": round(self.deadline * 1000),
            "remaining_ms": remaining,
        }

    def _server_time(self) -> int:
        return round(self.clock.now() * 1000)

    def _event_message(
        self, seq: int, viewer: int | None, clock: dict[str, Any] | None, server_time: int
    ) -> dict[str, Any] | None:
        shown = engine.event_view(self._event_objs[seq - 1], viewer)
        if shown is None:
            return None
        if shown.get("kind") in MOVE_EVENTS:
            shown = {**shown, "auto": seq in self.auto_seqs}
        return {
            "type": "event",
            "set": self.set_number,
            "seq": seq,
            "event": shown,
            "clock": clock,
            "server_time": server_time,
        }

    def _event_frame(self, seq: int, viewer: int | None) -> str | None:
        message = self._event_message(seq, viewer, self._clock(), self._server_time())
        return None if message is None else dumps(message)

    def _broadcast_events(self, first: int) -> None:
        """Send events[first:] and then the new view to everyone.

        Each distinct viewer (four or five seats, the spectators) is served once, however many
        sockets share it. An event that every viewer sees alike (most of them: ``played``,
        ``passed`` ...) is shaped and serialised once for all; the others once per distinct shape.
        """
        clock, server_time = self._clock(), self._server_time()
        by_viewer: dict[int | None, list[Connection]] = {}
        for conn in self.conns:
            by_viewer.setdefault(conn.seat, []).append(conn)
        shared: dict[int, str] = {}
        per_viewer: dict[int, list[tuple[dict[str, Any], str]]] = {}
        for seq in range(first + 1, len(self._event_objs) + 1):
            if self._event_objs[seq - 1].kind in engine.PUBLIC_EVENTS:
                message = self._event_message(seq, None, clock, server_time)
                assert message is not None  # public: everyone sees it
                shared[seq] = dumps(message)
            else:
                per_viewer[seq] = []
        views = engine.views(self.state, by_viewer)
        for viewer, conns in by_viewer.items():
            frames = []
            for seq in range(first + 1, len(self._event_objs) + 1):
                frame = shared.get(seq)
                if frame is None:
                    message = self._event_message(seq, viewer, clock, server_time)
                    if message is None:
                        continue
                    frame = _serialise_once(per_viewer[seq], message)
                frames.append(frame)
            frames.append(self._snapshot_frame(viewer, clock, views[viewer]))
            for frame in frames:
                for conn in conns:
                    conn.send(frame)

    def _send_snapshot(self, conn: Connection) -> None:
        conn.send(self._snapshot_frame(conn.seat, self._clock()))

    def _snapshot_frame(
        self, viewer: int | None, clock: dict[str, Any] | None, view: dict[str, Any] | None = None
    ) -> str:
        return dumps(
            {
                "type": "snapshot",
                "set": self.set_number,
                "seq": len(self._event_objs),
                "view": engine.view(self.state, viewer) if view is None else view,
                "clock": clock,
                "server_time": self._server_time(),
            }
        )

    def _welcome(self, conn: Connection) -> None:
        conn.send(
            dumps(
                {
                    "type": "welcome",
                    "role": "spectator" if conn.seat is None else "seat",
                    "seat": conn.seat,
                    "player_id": conn.player_id,
                    "room": self.room.public(self.spectators),
                    "server_time": self._server_time(),
                }
            )
        )

    def _ack_frame(self, move_id: str, seq: int) -> str:
        return dumps({"type": "ack", "move_id": move_id, "set": self.set_number, "seq": seq})

    def _broadcast_presence(self) -> None:
        connected = {c.seat for c in self.conns if c.seat is not None}
        seats = [
            {"seat": s.seat, "connected": s.seat in connected, "bot": s.bot}
            for s in self.room.seats
        ]
        self._broadcast(dumps({"type": "presence", "seats": seats, "spectators": self.spectators}))

    def _broadcast(self, frame: str) -> None:
        for conn in self.conns:
            conn.send(frame)


def _serialise_once(done: list[tuple[dict[str, Any], str]], message: dict[str, Any]) -> str:
    """The frame for ``message``, reusing one already made for an equal message."""
    for other, frame in done:
        if other == message:
            return frame
    frame = dumps(message)
    done.append((message, frame))
    return frame
