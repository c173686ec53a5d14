"""A live table's state as the core (app/rooms/core.py) keeps it, and how it is rebuilt from
the stored moves after a restart."""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, ItemsView, Iterator, Mapping, ValuesView
from dataclasses import dataclass, field
from datetime import UTC, datetime

import engine
from app.errors import GapleError
from app.presets import DEFAULT_BOT, rule_settings, with_defaults
from app.rooms import frames
from app.rooms.chat import ChatState
from app.rooms.effects import Token
from app.settings import Settings
from app.store.records import RoomInfo, StoredSet
from engine import fairness

BOT_KIND = DEFAULT_BOT  # who takes a seat its human left during a set

# The tables' randomness that is no secret (a bot's pause and choice, the clock's move): one
# generator for all of them, seeded from the operating system. A Mersenne Twister holds 2.5 KB
# of state, which one per table would repeat a thousand times over. The deals' secrets come
# from ``new_secret``, never from here.
_SHARED_RNG = random.Random(secrets.randbits(64))


@dataclass(frozen=True)
class TableConfig:
    """A table's pacing and limits: the service's settings (``from_settings``), and its send
    queue's size, resume window and presence pace, which are not settings."""

    deal_pause: float
    bot_min_delay: float
    bot_max_delay: float
    host_away: float
    abandoned_after: float
    chat_rate_count: int  # chat, react and phrase messages per sender ...
    chat_rate_window: float  # ... per this many seconds
    send_queue: int = 256
    # A resuming client this many events behind or less gets them all, further behind a
    # ``resync`` (docs/PROTOCOL.md §4); well under send_queue, so a catch-up never overflows it.
    resume_window: int = 200
    # Spectators joining or leaving are told to the table at most once per this many seconds.
    presence_every: float = 1.0

    @classmethod
    def from_settings(cls, settings: Settings) -> TableConfig:
        return cls(
            deal_pause=settings.deal_pause_seconds,
            bot_min_delay=settings.bot_min_delay,
            bot_max_delay=settings.bot_max_delay,
            host_away=settings.host_away_seconds,
            abandoned_after=settings.abandoned_table_seconds,
            chat_rate_count=settings.chat_rate_count,
            chat_rate_window=settings.chat_rate_seconds,
        )


class TableError(GapleError):
    """A refused request; ``code`` is one of the protocol's stable error codes."""


@dataclass(slots=True)
class Viewer:
    """One socket as the core sees it."""

    player_id: str | None
    seat: int | None
    name: str | None = None
    muted_until: float | None = None  # the player's mute (epoch seconds), seated or watching


class Viewers(Mapping[int, Viewer]):
    """The table's sockets by connection id, indexed by role and by player, so that a socket
    joining or leaving, and a move, cost the table's seats and not its spectators (a final may
    be watched by thousands). Change them through ``add``, ``pop``, ``clear`` and ``seat``, never
    by setting a viewer's ``seat``."""

    __slots__ = ("_all", "_of_player", "_seated", "_watching")

    def __init__(self) -> None:
        self._all: dict[int, Viewer] = {}
        self._seated: dict[int, Viewer] = {}
        self._watching: dict[int, Viewer] = {}
        self._of_player: dict[str, list[int]] = {}

    def __getitem__(self, conn: int) -> Viewer:
        return self._all[conn]

    def __iter__(self) -> Iterator[int]:
        return iter(self._all)

    def __len__(self) -> int:
        return len(self._all)

    def __contains__(self, conn: object) -> bool:
        return conn in self._all

    def items(self) -> ItemsView[int, Viewer]:  # the dict's own views: the hot path's
        return self._all.items()

    def values(self) -> ValuesView[Viewer]:
        return self._all.values()

    @property
    def seated(self) -> Mapping[int, Viewer]:
        """The sockets that hold a seat."""
        return self._seated

    @property
    def watching(self) -> Mapping[int, Viewer]:
        """The spectators' sockets."""
        return self._watching

    def of_player(self, player_id: str) -> list[int]:
        """The player's sockets here (a copy)."""
        return list(self._of_player.get(player_id, ()))

    def add(self, conn: int, viewer: Viewer) -> None:
        self.pop(conn)
        self._all[conn] = viewer
        (self._watching if viewer.seat is None else self._seated)[conn] = viewer
        if viewer.player_id is not None:
            self._of_player.setdefault(viewer.player_id, []).append(conn)

    def pop(self, conn: int) -> Viewer | None:
        viewer = self._all.pop(conn, None)
        if viewer is None:
            return None
        (self._watching if viewer.seat is None else self._seated).pop(conn, None)
        if viewer.player_id is not None:
            conns = self._of_player[viewer.player_id]
            conns.remove(conn)
            if not conns:
                del self._of_player[viewer.player_id]
        return viewer

    def clear(self) -> None:
        for index in (self._all, self._seated, self._watching, self._of_player):
            index.clear()

    def seat(self, conn: int, seat: int | None) -> None:
        """The socket's player now holds ``seat`` (None: watches)."""
        viewer = self._all[conn]
        (self._watching if viewer.seat is None else self._seated).pop(conn, None)
        viewer.seat = seat
        (self._watching if seat is None else self._seated)[conn] = viewer


@dataclass(slots=True)
class TableState:
    room: RoomInfo
    config: TableConfig
    rng: random.Random = field(default_factory=lambda: _SHARED_RNG)
    # Each deal's secret (docs/FAIRNESS.md), from the operating system's random source.
    new_secret: Callable[[], str] = field(default=lambda: fairness.new_secret(secrets.token_bytes))
    game: engine.MatchState = field(init=False)
    set_number: int = 0
    set_id: int | None = None
    deal_id: int | None = None
    move_seq: int = 0  # placements stored in the current deal
    events: list[engine.Event] = field(default_factory=list)  # this set's; seq = index + 1
    auto_seqs: set[int] = field(default_factory=set)
    stamps: list[frames.Stamp] = field(
        default_factory=list
    )  # by seq, what each event was sent with
    acks: dict[tuple[int, str], int] = field(default_factory=dict)  # this set's move ids: seq
    # (seat, move id) of every move of the room's earlier sets: a resent one is refused, never
    # applied again (docs/PROTOCOL.md §2).
    earlier_ids: set[tuple[int, str]] = field(default_factory=set)
    viewers: Viewers = field(default_factory=Viewers)  # by connection id
    deadline: float | None = None
    next_deal_at: float | None = None  # between deals: when the next one starts
    turn_started: float | None = None
    timeouts: dict[int, int] = field(default_factory=dict)  # the clock's moves in a row, by seat
    humans_online: int = -1  # as last told to the lifecycle (-1: not yet)
    seated_online: frozenset[str] = frozenset()  # as last told to presence (Seated)
    # (seats connected, spectators) as last told to everyone (``presence``), and whether a
    # PresenceDue is on its way to tell a changed count
    presence_shown: tuple[frozenset[int], int] | None = None
    presence_due: bool = False
    turn_told: Token | None = None  # the last turn whose absent human was told (YourTurn)
    host_away_since: float | None = None
    unattended_since: float | None = None
    chat: ChatState = field(default_factory=ChatState)  # in memory only: lost on a restart

    def __post_init__(self) -> None:
        self.game = engine.new_match(rules_of(self.room))

    @property
    def spectators(self) -> int:
        return len(self.viewers.watching)

    @property
    def humans(self) -> set[int]:
        """The seats whose human is connected."""
        return {v.seat for v in self.viewers.seated.values() if v.seat is not None}

    @property
    def final(self) -> bool:
        return self.room.status in ("closed", "abandoned")

    @property
    def token(self) -> Token:
        return (self.set_number, self.game.deal_number, self.move_seq)

    def bot_of(self, seat: int) -> str | None:
        for s in self.room.seats:
            if s.seat == seat:
                return s.bot
        return None

    def history(self, now: float) -> frames.History:
        return frames.History(
            state=self.game,
            set_number=self.set_number,
            events=self.events,
            auto_seqs=self.auto_seqs,
            stamps=self.stamps,
            window=self.config.resume_window,
            clock=frames.clock_info(self.game, self.deadline, now),
            now=now,
            next_deal=frames.next_deal_info(self.next_deal_at, now),
        )


def rules_of(room: RoomInfo) -> engine.RuleSet:
    return engine.rules_from_settings(rule_settings(with_defaults(room.settings)))


def utc(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, UTC)


# --- rebuilding after a restart ------------------------------------------------------------


def rebuild(state: TableState, stored: StoredSet) -> TableState:
    """The table as the stored secrets (or seeds) and moves make it (after a restart, or on
    another node)."""
    rules = engine.RuleSet.from_dict(stored.rules)
    deals = [
        (deal.source, [engine.Move(engine.Tile.parse(m.tile), m.end) for m in deal.moves])
        for deal in stored.deals
    ]
    game, events = engine.replay_match(rules, deals)
    state.game = game
    state.set_number = stored.number
    state.set_id = stored.id
    state.events = list(events)
    state.earlier_ids = set(stored.earlier_move_ids)
    moves = [m for deal in stored.deals for m in deal.moves]
    played = [i + 1 for i, ev in enumerate(events) if ev.kind in frames.MOVE_EVENTS]
    for seq, move in zip(played, moves, strict=True):
        if move.auto:
            state.auto_seqs.add(seq)
        if move.client_move_id is not None:
            state.acks[(move.seat, move.client_move_id)] = seq
    last = stored.deals[-1] if stored.deals else None
    if last is not None:
        state.deal_id = last.id
        state.move_seq = len(last.moves)
        latest = last.moves[-1].created_at if last.moves else last.started_at
        state.turn_started = latest.timestamp()
    # What these events were sent with is not stored: replayed to a resuming client, they carry
    # no clock (the snapshot that follows has the current one) and the last stored move's time.
    state.stamps = [(None, frames.ms(state.turn_started or 0.0))] * len(events)
    return state
