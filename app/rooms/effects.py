"""The vocabulary of the table core (app/rooms/core.py): the commands it takes, the effects it asks
for.

A *command* is something that happened: a socket joined, a message arrived, a timer fired, or a
store call the core asked for has finished (``SetCreated``, ``DealCreated``, ``MoveStored`` ...:
the follow-ups, carrying what the store returned). An *effect* is something the asyncio shell
(app/rooms/table.py) must do: send frames, arm timers, call the store, let a bot think. Effects
are carried out in order; an effect whose outcome the core needs (a store call returning an id, a
bot's move) is the last of its batch, and the shell hands its follow-up command back to the core
before it reads the inbox again — so a table still changes one command at a time.

Connections are plain ids here: the core never touches a socket.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import engine
from app.rooms.protocol import ByeReason, ClientCommand, Resume
from app.store.models import ChatKind
from app.store.records import MoveRecord, RoomInfo

Token = tuple[int, int, int]  # (set, deal, placements in the deal): which turn a timer is for


# --- commands ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Join:
    conn: int
    player_id: str | None
    resume: Resume | None = None
    name: str | None = None  # the player's name (a spectator's chat is signed with it)
    muted_until: float | None = None  # an operator's mute running when it joined (epoch seconds)


@dataclass(frozen=True)
class Gone:
    conn: int


@dataclass(frozen=True)
class Message:
    conn: int
    message: ClientCommand
    received: float = 0.0  # perf_counter when it arrived, for the move-latency metric


@dataclass(frozen=True)
class TurnDue:
    """The clock ran out (``bot`` False) or a bot's thinking pause ended (``bot`` True)."""

    token: Token
    bot: bool


@dataclass(frozen=True)
class NextDeal:
    token: tuple[int, int]


@dataclass(frozen=True)
class PresenceDue:
    """The spectators' count changed a while ago: tell everyone (app/rooms/core.py)."""


@dataclass(frozen=True)
class RoomChanged:
    started: bool


@dataclass(frozen=True)
class HostAway:
    """GAPLE_HOST_AWAY_SECONDS ago the host of an open room was not connected."""


@dataclass(frozen=True)
class Unattended:
    """GAPLE_ABANDONED_TABLE_SECONDS ago no human seat of a set in play was connected."""


@dataclass(frozen=True)
class Abandoned:
    """Follow-up of AbandonTable: the room is abandoned (stored)."""


@dataclass(frozen=True)
class Closed:
    """The room was closed (stored, by the lobby or the lifecycle): everyone is sent away."""


@dataclass(frozen=True)
class SendPlayerAway:
    """An operator removed or banned the player (stored): their sockets here get ``bye``
    ``reason`` and are closed, and the room is reloaded (their seat may have changed hands)."""

    player_id: str
    reason: Literal["removed", "banned"]


@dataclass(frozen=True)
class MuteChanged:
    """An operator muted the player until ``until`` (epoch seconds), or lifted their mute
    (None), stored: their sockets here, a spectator's too, may talk again or not."""

    player_id: str
    until: float | None


@dataclass(frozen=True)
class RoomLoaded:
    """Follow-up of LoadRoom."""

    room: RoomInfo | None
    purpose: Literal["changed", "started"]


@dataclass(frozen=True)
class SetCreated:
    number: int
    set_id: int


@dataclass(frozen=True)
class DealCreated:
    deal_id: int
    game: engine.MatchState
    events: tuple[engine.Event, ...]


@dataclass(frozen=True)
class PendingMove:
    """A move the engine accepted, waiting to be stored before it counts."""

    seat: int
    game: engine.MatchState
    events: tuple[engine.Event, ...]
    auto: bool
    move_id: str | None
    reply_to: int | None  # the socket that sent it (a player's move)
    kind: Literal["player", "bot", "auto"]
    received: float = 0.0


@dataclass(frozen=True)
class MoveStored:
    move: PendingMove


@dataclass(frozen=True)
class BotMoved:
    """Follow-up of ChooseBotMove: what the bot chose for the turn ``token``."""

    token: Token
    seat: int
    move: engine.Move


Command = (
    Join
    | Gone
    | Message
    | TurnDue
    | NextDeal
    | PresenceDue
    | RoomChanged
    | HostAway
    | Unattended
    | Abandoned
    | Closed
    | SendPlayerAway
    | MuteChanged
    | RoomLoaded
    | SetCreated
    | DealCreated
    | MoveStored
    | BotMoved
)


# --- effects -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Send:
    to: tuple[int, ...]
    frames: tuple[str, ...]


@dataclass(frozen=True)
class SendAway:
    """A ``bye`` frame, then the socket is closed with ``code``."""

    conn: int
    reason: ByeReason
    code: int


@dataclass(frozen=True)
class Arm:
    """Replace the timers of ``slot`` with these (delay in seconds, command to post)."""

    slot: Literal["game", "host", "abandon", "presence"]
    timers: tuple[tuple[float, Command], ...] = ()


@dataclass(frozen=True)
class Metric:
    kind: Literal["player", "bot", "auto"]
    received: float = 0.0


@dataclass(frozen=True)
class YourTurn:
    """It is the turn of a seat whose human has no socket at the table: tell their /ws/me
    (once per turn)."""

    player_id: str
    code: str


@dataclass(frozen=True)
class Seated:
    """The players seated here with a socket open changed (friends see them at this table)."""

    players: frozenset[str]


@dataclass(frozen=True)
class EndSet:
    """The set is over: the room is open again (lifecycle.end_set)."""


@dataclass(frozen=True)
class Touch:
    """Presence (lifecycle.touch): the number of seated humans connected changed."""

    humans_online: int
    at: float


@dataclass(frozen=True)
class KeepChat:
    """Store a chat line or phrase said at a rated table (app/store/chatlog.py): what the
    speaker said and nothing the table hides."""

    set_id: int | None
    player_id: str
    name: str | None
    seat: int | None
    kind: ChatKind
    text: str
    at: float


@dataclass(frozen=True)
class PutBot:
    seat: int
    kind: str
    left_by: str | None  # the human who left or dropped the seat, who may take it back


# Effects with a follow-up command (always the last of their batch):


@dataclass(frozen=True)
class LoadRoom:
    purpose: Literal["changed", "started"]


@dataclass(frozen=True)
class HandOverHost:
    """lifecycle.hand_over_host, then the room is reloaded (follow-up RoomLoaded)."""


@dataclass(frozen=True)
class AbandonTable:
    """lifecycle.abandon, the set stored as abandoned (follow-up Abandoned)."""

    set_id: int | None
    at: float


@dataclass(frozen=True)
class CreateSet:
    room_id: str
    number: int  # after the room's last set: a second writer of it fails (StoreConflict)
    rules: dict[str, object]
    at: float


@dataclass(frozen=True)
class CreateDeal:
    set_id: int
    number: int
    secret: str = field(repr=False)  # never in a log line: it is published when the deal ends
    opener: int
    at: float
    game: engine.MatchState
    events: tuple[engine.Event, ...]


@dataclass(frozen=True)
class StoreMove:
    record: MoveRecord
    move: PendingMove


@dataclass(frozen=True)
class ChooseBotMove:
    token: Token
    seat: int
    kind: str
    view: dict[str, object] = field(hash=False)


Effect = (
    Send
    | SendAway
    | Arm
    | Metric
    | YourTurn
    | Seated
    | EndSet
    | Touch
    | KeepChat
    | PutBot
    | LoadRoom
    | HandOverHost
    | AbandonTable
    | CreateSet
    | CreateDeal
    | StoreMove
    | ChooseBotMove
)

FOLLOW_UPS = (LoadRoom, HandOverHost, AbandonTable, CreateSet, CreateDeal, StoreMove, ChooseBotMove)
