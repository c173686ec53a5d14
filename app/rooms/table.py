"""The asyncio shell around a table's core: one per live table, one inbox, one writer.

Every change to a table — a player's move, the turn clock running out, a bot's move, a seat
changing hands, the next deal — is a command posted into the table's inbox and handed to the core
(app/rooms/core.py) one at a time by a single task. The shell carries out the effects the core
returns, in order: it writes to the store, arms timers, lets bots think, and drops frames into
the sockets' outboxes. It decides nothing about the game.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol

import engine
from app.live import SeatSummary, TableSummary
from app.logs import FailureLog
from app.metrics import Metrics
from app.presets import seat_count
from app.rooms import frames, seating
from app.rooms.bots import BotRunner, shared_runner
from app.rooms.clock import Clock, Timer
from app.rooms.connection import WAKE_BATCH, Connection, FanOut, Link
from app.rooms.core import handle, schedule
from app.rooms.effects import (
    Abandoned,
    AbandonTable,
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
    HandOverHost,
    HostAway,
    Join,
    KeepChat,
    LoadRoom,
    Message,
    Metric,
    MoveStored,
    MuteChanged,
    NextDeal,
    PendingMove,
    PutBot,
    RoomChanged,
    RoomLoaded,
    Seated,
    Send,
    SendAway,
    SendPlayerAway,
    SetCreated,
    StoreMove,
    Touch,
    TurnDue,
    Unattended,
    YourTurn,
)
from app.rooms.lifecycle import FINAL, LifecycleError
from app.rooms.protocol import CLOSE_ROOM_CLOSED, ClientCommand, Resume
from app.rooms.state import TableConfig, TableError, TableState, rebuild, utc
from app.rooms.store import GameStore
from app.store.records import MoveRecord, RoomInfo, StoreConflict
from app.wire import text_frame

__all__ = ["Table", "TableConfig", "TableError"]

log = logging.getLogger(__name__)


class _Stop:
    __slots__ = ("lost",)

    def __init__(self, lost: bool) -> None:
        self.lost = lost  # the lease went to another node: also send the clients away


class _Settle:
    __slots__ = ()


class _Redo:
    """A store call without a follow-up that failed (the core has moved on): try it again."""

    __slots__ = ("effect",)

    def __init__(self, effect: Effect) -> None:
        self.effect = effect


class _StoreDown(Exception):
    """A store call with a follow-up failed (not a conflict): the command that asked for it is
    posted again after a pause, since nothing it would change has changed."""


_Item = Command | _Stop | _Settle | _Redo

# The commands a failed store call is retried through: each is checked afresh by the core (a
# stale turn, deal or room is dropped), so posting it again applies nothing twice.
_RETRIED = (TurnDue, NextDeal, BotMoved, RoomChanged, HostAway, Unattended, SendPlayerAway)
# Store calls without a follow-up: the core already counts them done, so the call itself is redone.
_REDONE = (EndSet, Touch, PutBot)
# Effects that never call the store.
_NO_STORE = (Send, SendAway, Arm, Metric, ChooseBotMove, YourTurn, Seated, KeepChat)
_KINDS: dict[type, str] = {  # what a failure is called in the log
    StoreMove: "a move of the clock or a bot",
    CreateDeal: "the next deal",
    CreateSet: "a new set",
    LoadRoom: "loading the room",
    HandOverHost: "handing over the host",
    AbandonTable: "abandoning the table",
    EndSet: "ending the set",
    Touch: "presence",
    PutBot: "a seat to a bot",
}
RETRY_FIRST, RETRY_MAX = 0.05, 1.0  # seconds: the pause doubles from the first up to the max


class Notices(Protocol):
    """Where a table tells who sits at it and whose turn it is (app/rooms/hub.py)."""

    def seated(self, code: str, players: frozenset[str]) -> None:
        """The players seated at the table ``code`` with a socket open (run on this node)."""

    def your_turn(self, player_id: str, code: str) -> None:
        """It is the turn of ``player_id``, who has no socket at the table ``code``."""


class _Inbox:
    """A table's inbox: FIFO, unbounded, one reader (the table's task). What the table uses of
    ``asyncio.Queue`` in one deque and one waiter, where a Queue keeps three deques (getters,
    putters, items: ~1.9 KB at rest) per table."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[tuple[_Item, asyncio.Future[Any] | None]] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: tuple[_Item, asyncio.Future[Any] | None]) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    async def get(self) -> tuple[_Item, asyncio.Future[Any] | None]:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.popleft()


class Table:
    # Slotted: a thousand tables on a node, and no instance dict each.
    __slots__ = (
        "__weakref__",  # tests prove a retired table is freed
        "_fan_out",
        "_inbox",
        "_on_lost",
        "_on_retired",
        "_redo",
        "_retries",
        "_task",
        "_thinking",
        "_timers",
        "_unsure",
        "bots",
        "clock",
        "config",
        "conns",
        "core",
        "faults",
        "lost",
        "metrics",
        "notices",
        "retired",
        "store",
    )

    def __init__(
        self,
        room: RoomInfo,
        *,
        store: GameStore,
        clock: Clock,
        config: TableConfig,
        rng: random.Random | None = None,
        new_secret: Callable[[], str] | None = None,
        on_lost: Callable[[Table], None] | None = None,
        on_retired: Callable[[Table], None] | None = None,
        metrics: Metrics | None = None,
        bots: BotRunner | None = None,
        notices: Notices | None = None,
    ) -> None:
        self.core = TableState(room, config)
        self.notices = notices
        if rng is not None:
            self.core.rng = rng
        if new_secret is not None:
            self.core.new_secret = new_secret
        self.store = store
        self.clock = clock
        self.config = self.core.config
        self.conns: dict[int, Connection] = {}
        self._timers: dict[str, list[Timer]] = {}
        self._inbox = _Inbox()
        self._task: asyncio.Task[None] | None = None
        self._on_lost = on_lost
        self._on_retired = on_retired
        self.retired = False  # the room is over and its last socket gone: the task has ended
        self.metrics = metrics or Metrics(process=False)
        self.lost = False
        self.bots = bots or shared_runner()
        self._thinking: set[asyncio.Task[None]] = set()  # hard bots' moves being thought out
        self._unsure: StoreMove | None = None  # the last move whose store call failed
        self._fan_out: FanOut | None = None  # to many sockets at once (made when first needed)
        self._retries = 0  # store calls failed in a row: the next retry's pause doubles
        self._redo: dict[object, _Redo] = {}  # failed calls without a follow-up, by what they set
        self.faults = FailureLog(log, f"table {room.code}", clock.now)

    # --- the core's state, for the manager and the tests -------------------------------------

    @property
    def room(self) -> RoomInfo:
        return self.core.room

    @property
    def state(self) -> engine.MatchState:
        return self.core.game

    @property
    def events(self) -> list[dict[str, Any]]:
        """This set's events so far, as stored (not as any viewer sees them)."""
        return [ev.to_dict() for ev in self.core.events]

    @property
    def set_number(self) -> int:
        return self.core.set_number

    @property
    def deadline(self) -> float | None:
        return self.core.deadline

    @property
    def acks(self) -> Mapping[tuple[int, str], int]:
        return self.core.acks

    @property
    def auto_seqs(self) -> set[int]:
        return self.core.auto_seqs

    @property
    def rng(self) -> random.Random:
        return self.core.rng

    @rng.setter
    def rng(self, rng: random.Random) -> None:
        self.core.rng = rng

    @property
    def new_secret(self) -> Callable[[], str]:
        return self.core.new_secret

    @new_secret.setter
    def new_secret(self, new_secret: Callable[[], str]) -> None:
        self.core.new_secret = new_secret

    @property
    def spectators(self) -> int:
        return self.core.spectators

    @property
    def busy(self) -> bool:
        return bool(self.conns) or self.state.phase in ("playing", "deal_over")

    # --- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name=f"table-{self.room.code}"
        )

    async def stop(self, *, lost: bool = False) -> None:
        if self._task is None or self._task.done():
            return
        await self._call(_Stop(lost))
        await self._task

    async def restore(self) -> None:
        """Rebuild the table from stored moves (after a restart), then re-arm its clock."""
        stored = await self.store.load_current_set(self.room.id)
        if stored is None:
            return
        rebuild(self.core, stored)
        self._arm(schedule(self.core, self.clock.now()))
        # Nobody is connected yet: presence is 0, and the abandoned-table clock starts now.
        for effect in seating.with_watch(self.core, [], self.clock.now()):
            await self._do(effect)

    # --- public entry points for the socket endpoint and the lobby -----------------------------

    async def join(self, conn: Connection, resume: Resume | None) -> None:
        if self.retired:
            # Found just before it retired (a handshake in flight). A closed room says so, as
            # its live table would; otherwise the client reconnects to a table of its own.
            if self.core.room.status == "closed":
                conn.send_away("room_closed", CLOSE_ROOM_CLOSED)
            else:
                conn.send_away("table_moved")
            return
        self.conns[conn.id] = conn
        muted_until = await self._muted_until(conn.player_id)
        await self._call(Join(conn.id, conn.player_id, resume, conn.name, muted_until))

    async def _muted_until(self, player_id: str | None) -> float | None:
        """The player's running mute, which a seat's room carries but a spectator's does not."""
        if player_id is None:
            return None
        try:
            return await self.store.muted_until(player_id)
        except Exception as exc:  # the store is down: the seat's mute still comes with the room
            log.warning("table %s: could not read a mute: %s", self.room.code, exc)
            return None

    async def mute_changed(self, player_id: str, until: float | None) -> None:
        """An operator muted the player (``until``, epoch seconds) or lifted it (None): stored."""
        await self._call(MuteChanged(player_id, until))

    def gone(self, conn: Connection) -> None:
        self.post(Gone(conn.id))

    def message(self, conn: Connection, message: ClientCommand) -> None:
        self.post(Message(conn.id, message, time.perf_counter()))

    async def request(self, conn: Connection, message: ClientCommand) -> None:
        """Like ``message`` but returns once the table has handled it."""
        await self._call(Message(conn.id, message, time.perf_counter()))

    async def settle(self) -> None:
        """Return once everything posted so far has been handled (the inbox is FIFO)."""
        await self._call(_Settle())

    async def room_changed(self, *, started: bool = False, read: RoomInfo | None = None) -> None:
        """The room changed (committed). ``read``: the room as read since, when the table was
        opened for this very change (a tournament round's tables): not read a second time."""
        if read is not None:
            await self._call(RoomLoaded(read, "started" if started else "changed"))
        else:
            await self._call(RoomChanged(started))

    async def room_closed(self) -> None:
        """The room is closed (stored): everyone gets ``bye`` ``room_closed``; the table stops
        playing."""
        await self._call(Closed())

    async def send_player_away(self, player_id: str, reason: Literal["removed", "banned"]) -> None:
        """An operator removed or banned the player (stored): their sockets here are closed with
        ``bye`` ``reason``; the room is reloaded."""
        await self._call(SendPlayerAway(player_id, reason))

    def has_player(self, player_id: str) -> bool:
        """Whether one of the player's sockets is at this table."""
        return any(conn.player_id == player_id for conn in self.conns.values())

    def summary(self) -> TableSummary:
        """Who sits and who is connected, for operators: read between two commands."""
        core = self.core
        occupants = {s.seat: s for s in core.room.seats}
        connected = core.humans
        seats = []
        for number in range(seat_count(core.room.settings)):
            occupant = occupants.get(number)
            seats.append(
                SeatSummary(
                    seat=number,
                    player_id=occupant.player_id if occupant else None,
                    name=occupant.name if occupant else None,
                    bot=occupant.bot if occupant else None,
                    connected=number in connected,
                )
            )
        return TableSummary(
            room_id=core.room.id,
            code=core.room.code,
            status=core.room.status,
            phase=core.game.phase,
            set_number=core.set_number,
            deal_number=core.game.deal_number,
            seats=tuple(seats),
            seat_sockets=len(core.viewers.seated),
            spectators=core.spectators,
        )

    def post(self, command: Command) -> None:
        self._inbox.put_nowait((command, None))

    async def _call(self, item: _Item) -> Any:
        if self.retired:  # the room is over and nobody is here: nothing is left to do
            return None
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inbox.put_nowait((item, future))
        return await future

    # --- the inbox ----------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            item, future = await self._inbox.get()
            if self._fan_out is not None:  # the table's own work first
                self._fan_out.hold()
            if isinstance(item, _Stop):
                self._unseat()
                self._cancel_timers()
                for task in self._thinking:  # a move thought out now would have no table
                    task.cancel()
                if item.lost:
                    self._lose()
                if future is not None:
                    future.set_result(None)
                return
            try:
                if isinstance(item, _Redo):
                    await self._redo_effect(item)
                elif not isinstance(item, _Settle):
                    await self._handle(item)
            except _StoreDown as down:
                if isinstance(item, _RETRIED):
                    self._retry_later(item)
                if future is not None and not future.done():
                    future.set_exception(down.__cause__ or down)
            except StoreConflict as exc:
                log.warning("table %s: another node owns it now (%s)", self.room.code, exc)
                if future is not None and not future.done():
                    future.set_exception(exc)
                self._lose()
                return
            except Exception as exc:
                if not isinstance(exc, TableError | engine.EngineError):
                    log.exception("table %s: %s failed", self.room.code, type(item).__name__)
                if future is not None and not future.done():
                    future.set_exception(exc)
            else:
                if future is not None and not future.done():
                    future.set_result(None)
            if self._over():
                self._retire()
                return
            if self._fan_out is not None and self._inbox.empty():
                self._fan_out.release()

    async def _handle(self, command: Command | None) -> None:
        """Hand a command to the core and carry out its effects, follow-ups included."""
        while command is not None:
            _, effects = handle(self.core, command, self.clock.now())
            if isinstance(command, Gone):
                self.conns.pop(command.conn, None)
            command = None
            for index, effect in enumerate(effects):
                follow_up = await self._carry_out(effect)
                if follow_up is not None:
                    assert index == len(effects) - 1, "a follow-up ends its batch"
                    command = follow_up

    async def _carry_out(self, effect: Effect) -> Command | None:
        """``_do``, with a failed store call retried (a conflict ends the table instead)."""
        kind = _KINDS.get(type(effect), type(effect).__name__)
        try:
            follow_up = await self._do(effect)
        except (StoreConflict, TableError, engine.EngineError, LifecycleError):
            raise
        except Exception as exc:
            self.faults.failed(kind, exc)
            if isinstance(effect, _REDONE):
                self._redo[_redo_key(effect)] = redo = _Redo(effect)
                self._retry_later(redo)
                return None
            raise _StoreDown() from exc
        if isinstance(effect, StoreMove) and follow_up is None:
            return None  # a player's move that could not be stored (answered unavailable)
        if self.faults.failing:
            self.faults.ok(kind)
        if isinstance(effect, _REDONE):
            self._redo.pop(_redo_key(effect), None)  # a newer call did it: no older one redone
        if not isinstance(effect, _NO_STORE):
            self._retries = 0
        return follow_up

    async def _redo_effect(self, redo: _Redo) -> None:
        key = _redo_key(redo.effect)
        if self._redo.get(key) is not redo:
            return  # done since, by a newer call
        await self._carry_out(redo.effect)
        if isinstance(redo.effect, PutBot) and key not in self._redo:
            await self._handle(RoomChanged(False))  # the seat changed hands only now

    def _retry_later(self, item: Command | _Redo) -> None:
        """Post ``item`` again after a pause that doubles with each failure in a row (until the
        table stops, or is handed over: then its timers are cancelled)."""
        delay = min(RETRY_FIRST * 2**self._retries, RETRY_MAX)
        self._retries += 1
        timers = self._timers.setdefault("retry", [])

        def repost() -> None:
            if timer in timers:
                timers.remove(timer)
            self._inbox.put_nowait((item, None))

        timer = self.clock.call_later(delay, repost)
        timers.append(timer)

    async def _do(self, effect: Effect) -> Command | None:
        match effect:
            case Send(to, sent):
                # Sockets on other nodes share their node's link: one message per frame each.
                links: dict[Link, list[str]] = {}
                here: list[Connection] = []
                for conn_id in to:
                    conn = self.conns.get(conn_id)
                    if conn is None:
                        continue
                    if conn.link is None:
                        here.append(conn)
                    elif not conn.closed:
                        links.setdefault(conn.link, []).append(conn.key)
                if len(here) > WAKE_BATCH:  # a watched table's spectators
                    if self._fan_out is None:
                        self._fan_out = FanOut()
                    self._fan_out.send(here, sent)
                else:
                    framed = b"".join(map(text_frame, sent)) if len(here) > 1 else None
                    for conn in here:
                        conn.send_all(sent, framed)
                for frame in sent:
                    for link, keys in links.items():
                        link.frames(keys, frame)
            case SendAway(conn_id, reason, code):
                conn = self.conns.pop(conn_id, None)
                if conn is not None:
                    conn.send_away(reason, code)
            case Arm():
                self._arm(effect)
            case YourTurn(player_id, code):
                if self.notices is not None:
                    self.notices.your_turn(player_id, code)
            case Seated(players):
                if self.notices is not None:
                    self.notices.seated(self.room.code, players)
            case Metric(kind, received):
                latency = time.perf_counter() - received if kind == "player" else None
                self.metrics.record_move(kind, latency=latency)
            case EndSet():
                try:
                    await self.store.end_set(self.room.id)
                except LifecycleError as exc:  # closed meanwhile, say: the set still ended
                    log.info("table %s: the set ended but %s", self.room.code, exc)
            case Touch(humans, at):
                await self.store.touch(self.room.id, humans_online=humans, at=utc(at))
            case KeepChat():
                try:
                    await self.store.keep_chat(self.room.id, effect)
                except Exception as exc:  # the line was said and heard; only its record is lost
                    log.warning("table %s: a chat line was not stored: %s", self.room.code, exc)
            case PutBot(seat, kind, left_by):
                await self.store.put_bot_in_seat(self.room.id, seat, kind, left_by=left_by)
            case LoadRoom(purpose):
                return RoomLoaded(await self.store.load_room(self.room.id), purpose)
            case HandOverHost():
                try:
                    new_host = await self.store.hand_over_host(self.room.id)
                    log.info("table %s: the host passes to %s", self.room.code, new_host)
                except LifecycleError as exc:  # closed meanwhile: the reload below shows it
                    log.info("table %s: no hand-over: %s", self.room.code, exc)
                return RoomLoaded(await self.store.load_room(self.room.id), "changed")
            case AbandonTable(set_id, at):
                await self.store.abandon(self.room.id, set_id=set_id, at=utc(at))
                log.info("table %s: abandoned (no human seat connected)", self.room.code)
                return Abandoned()
            case CreateSet(room_id, number, rules, at):
                set_id = await self.store.create_set(
                    room_id=room_id, number=number, rules=rules, at=utc(at)
                )
                return SetCreated(number, set_id)
            case CreateDeal(set_id, number, secret, opener, at, game, events):
                deal_id = await self.store.create_deal(
                    set_id=set_id, number=number, secret=secret, opener=opener, at=utc(at)
                )
                return DealCreated(deal_id, game, events)
            case StoreMove():
                stored = await self._store_move(effect)
                return MoveStored(stored) if stored is not None else None
            case ChooseBotMove(token, seat, kind, view):
                chosen = self.bots.immediate(kind, view, self.rng)
                if chosen is not None:
                    return BotMoved(token, seat, chosen)
                # A hard bot thinks in a worker; its move comes back through the inbox, where
                # the core drops it if the turn was played or the seat taken back meanwhile.
                task = asyncio.get_running_loop().create_task(
                    self._think(token, seat, view, self.rng.getrandbits(32))
                )
                self._thinking.add(task)
                task.add_done_callback(self._thinking.discard)
        return None

    async def _think(self, token: Any, seat: int, view: dict[str, Any], seed: int) -> None:
        try:
            move = await self.bots.think(view, seed)
        except Exception:
            log.exception("table %s: a hard bot failed to think", self.room.code)
            move = engine.BOTS["normal"].choose(view, self.rng)
        self.post(BotMoved(token, seat, move))

    async def _store_move(self, effect: StoreMove) -> PendingMove | None:
        """Store the move; returns the move that is stored at its place (None: none is). That is
        this one, or an earlier attempt at the same turn whose commit had no answer: found in
        the row a conflict ran into, it is the move that counts."""
        record = effect.record
        try:
            await self.store.record_move(record)
        except StoreConflict:
            unsure, self._unsure = self._unsure, None
            if unsure is not None and await self._holds_earlier(unsure, record):
                return unsure.move
            raise
        except Exception as exc:
            self._unsure = effect  # maybe stored all the same: a conflict at its place tells
            reply_to = effect.move.reply_to
            if reply_to is None:
                raise
            # Storage failed: nothing was applied; the client may send the same move id again.
            self.faults.failed("a player's move", exc)
            conn = self.conns.get(reply_to)
            if conn is not None:
                conn.send(frames.error("unavailable", "try again in a moment", effect.move.move_id))
            return None
        self._unsure = None
        if self.faults.failing:
            self.faults.ok("a player's move")
        return effect.move

    async def _holds_earlier(self, unsure: StoreMove, record: MoveRecord) -> bool:
        """Whether the earlier attempt ``unsure`` is what is stored at ``record``'s place."""
        earlier = unsure.record
        if (earlier.deal_id, earlier.seq) != (record.deal_id, record.seq):
            return False
        return await self.store.holds_move(earlier)

    def _arm(self, arm: Arm) -> None:
        for timer in self._timers.pop(arm.slot, []):
            timer.cancel()
        self._timers[arm.slot] = [
            self.clock.call_later(delay, functools.partial(self.post, command))
            for delay, command in arm.timers
        ]

    def _cancel_timers(self) -> None:
        for timers in self._timers.values():
            for timer in timers:
                timer.cancel()
        self._timers.clear()

    def _over(self) -> bool:
        """A closed or abandoned room with no socket left and nothing in hand: nothing more can
        happen here, so the table leaves memory (a later socket gets a table of its own)."""
        return (
            self.core.room.status in FINAL
            and not self.conns
            and self._inbox.empty()
            and not self._thinking
        )

    def _unseat(self) -> None:
        """The table no longer runs here: nobody sits at it as far as this node can tell."""
        if self.notices is not None and self.core.seated_online:
            self.core.seated_online = frozenset()
            self.notices.seated(self.room.code, frozenset())

    def _retire(self) -> None:
        self._unseat()
        self.retired = True
        self._cancel_timers()
        if self._on_retired is not None:
            self._on_retired(self)

    def _lose(self) -> None:
        """This node no longer owns the table: stop, and send its clients elsewhere."""
        self.lost = True
        self._unseat()
        self._cancel_timers()
        for conn in list(self.conns.values()):
            conn.send_away("table_moved")
        self.conns.clear()
        if self._on_lost is not None:
            self._on_lost(self)


def _redo_key(effect: Effect) -> object:
    """What a call without a follow-up sets: a newer call for the same thing replaces it."""
    return (type(effect), effect.seat) if isinstance(effect, PutBot) else type(effect)
