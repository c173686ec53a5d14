"""The table protocol, written once: every message a table socket carries, in and out, and the
messages between nodes that relay it (docs/PROTOCOL.md describes the same shapes for client
authors).

* **In** (client → server): ``ClientMessage``, a discriminated union of strict pydantic models
  (``extra="forbid"``), so anything a client sends that we did not document becomes an explicit
  ``bad_message`` error rather than being silently ignored. ``parse_client_message`` is the one
  parser of a text frame.
* **Out** (server → client): ``ServerMessage``, a union of TypedDicts; ``dumps`` serialises only
  that union, so a stray dict is a type error, not a frame.
* **Between nodes**: ``RelayMessage``, a discriminated union of pydantic models a node that does
  not own a table sends to the owner (a client's message, joins, departures) and the owner sends
  back (frames to the client, a close); ``relay_dump`` and ``relay_load`` are its codec. A relayed
  client message travels as its parsed model and is validated once on arrival, never parsed from
  text again.
* The WebSocket **close codes** the server uses.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from app.errors import GapleError
from app.players.social import NotificationKind as StoredKind

# --- close codes --------------------------------------------------------------------------------

CLOSE_NORMAL = 1000
CLOSE_POLICY = 1008  # a refused socket: bad origin, token, hello or flood
CLOSE_TOO_BIG = 1009  # a frame over GAPLE_MAX_WS_FRAME_BYTES
CLOSE_RECONNECT = 1012  # "service restart": the client should reconnect (to any node)
CLOSE_TRY_AGAIN = 1013  # too many sockets from one address, or a client too slow to read
# The close codes that follow a ``bye`` that means "do not reconnect".
CLOSE_ROOM_CLOSED = 4000
CLOSE_REPLACED = 4001
CLOSE_REMOVED = 4002  # an operator took the player off this table
CLOSE_BANNED = 4003  # an operator banned the player


# --- client -> server ---------------------------------------------------------------------------


class _Incoming(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Resume(_Incoming):
    set: int = Field(ge=0)
    seq: int = Field(ge=0)


class Hello(_Incoming):
    type: Literal["hello"]
    # No length limit here: a token of the wrong length is a bad token (bad_token, close 1008),
    # not a malformed message; the frame size limit bounds it anyway.
    token: str | None = None
    resume: Resume | None = None


# Where a tile goes: one end of the line, or face down (Klasik's discard). The REST history and
# analysis name moves with it too.
End = Literal["left", "right", "discard"]


class Play(_Incoming):
    type: Literal["play"]
    move_id: str = Field(min_length=1, max_length=64)
    tile: str = Field(min_length=3, max_length=3)
    end: End | None = None


class Leave(_Incoming):
    type: Literal["leave"]


class Chat(_Incoming):
    type: Literal["chat"]
    # Length and characters are the table's to check (app/rooms/chat.py: error bad_chat); the
    # frame size limit bounds what arrives.
    text: str


class React(_Incoming):
    type: Literal["react"]
    emoji: str = Field(max_length=16)


class Phrase(_Incoming):
    type: Literal["phrase"]
    id: str = Field(max_length=64)


PING_MAX_CHARS = 64


class Ping(_Incoming):
    type: Literal["ping"]
    # Echoed back in the pong exactly, so only what JSON carries back unchanged: a finite
    # number (an integer of at most 64 bits) or a short string.
    t: int | float | str | None = None

    @field_validator("t", mode="before")
    @classmethod
    def _echoable(cls, value: Any) -> Any:
        if isinstance(value, int) and not -(2**63) <= value < 2**63:
            raise ValueError("integers are limited to 64 bits")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError("must be a finite number")
        if isinstance(value, str) and len(value) > PING_MAX_CHARS:
            raise ValueError(f"strings are limited to {PING_MAX_CHARS} characters")
        return value


# A set is started (the next one too) over REST only: POST /api/rooms/{code}/start.
ClientMessage = Annotated[
    Hello | Play | Leave | Chat | React | Phrase | Ping, Field(discriminator="type")
]
# What a socket's table hears of it (a ping is answered by the endpoint itself).
ClientCommand = Annotated[Play | Leave | Chat | React | Phrase | Hello, Field(discriminator="type")]
_client_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


class ProtocolError(GapleError):
    """A frame we refuse; ``code`` is one of the stable codes in docs/PROTOCOL.md."""


def parse_client_message(raw: str) -> ClientMessage:
    """Parse one text frame or raise ProtocolError(bad_json | bad_message)."""
    try:
        data = json.loads(raw, parse_constant=_not_json)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        raise ProtocolError("bad_json", "the frame is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "the frame must be a JSON object")
    try:
        return _client_adapter.validate_python(data)
    except ValidationError as exc:
        raise ProtocolError("bad_message", _describe(exc)) from None


def _not_json(constant: str) -> Any:
    # Python's json module reads NaN, Infinity and -Infinity; JSON has none of them.
    raise ValueError(f"{constant} is not JSON")


def _describe(exc: ValidationError) -> str:
    first = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"]) or "message"
    if first["type"] == "union_tag_invalid":
        return (
            f"unknown message type {first['input'].get('type')!r}"
            if isinstance(first["input"], dict)
            else "unknown message type"
        )
    if first["type"] == "union_tag_not_found":
        return "the message has no 'type'"
    return f"{where}: {first['msg']}"


# --- server -> client ---------------------------------------------------------------------------

ByeReason = Literal["draining", "table_moved", "room_closed", "replaced", "removed", "banned"]


class ClockInfo(TypedDict):
    seat: int
    deadline: int  # ms since the epoch
    remaining_ms: int


class NextDealInfo(TypedDict):
    """When the next deal of the set starts (between deals only)."""

    deadline: int  # ms since the epoch
    remaining_ms: int


class Welcome(TypedDict):
    type: Literal["welcome"]
    role: Literal["seat", "spectator"]
    seat: int | None
    player_id: str | None
    room: dict[str, Any]
    server_time: int


class Snapshot(TypedDict):
    type: Literal["snapshot"]
    set: int
    seq: int
    view: dict[str, Any]
    clock: ClockInfo | None
    next_deal: NextDealInfo | None
    server_time: int


class EventFrame(TypedDict):
    type: Literal["event"]
    set: int
    seq: int
    event: dict[str, Any]
    clock: ClockInfo | None
    server_time: int


class Resync(TypedDict):
    """Sent on resume instead of the missed events when they are more than the resume window."""

    type: Literal["resync"]
    set: int
    seq: int
    missed: int


class Ack(TypedDict):
    type: Literal["ack"]
    move_id: str
    set: int
    seq: int


class SeatPresence(TypedDict):
    seat: int
    connected: bool
    bot: str | None


class Presence(TypedDict):
    type: Literal["presence"]
    seats: list[SeatPresence]
    spectators: int


class RoomFrame(TypedDict):
    type: Literal["room"]
    room: dict[str, Any]


class ErrorFrame(TypedDict):
    type: Literal["error"]
    code: str
    message: str
    move_id: NotRequired[str]
    seconds_left: NotRequired[int]  # `muted`: how long the mute still runs


class Bye(TypedDict):
    type: Literal["bye"]
    reason: ByeReason


class Pong(TypedDict):
    type: Literal["pong"]
    t: int | float | str | None


class _Said(TypedDict):
    """Who said it: a seat (``seat``) or a spectator (``spectator`` true), and their name."""

    name: str | None
    seat: NotRequired[int]
    spectator: NotRequired[bool]
    server_time: int


class ChatLine(_Said):
    type: Literal["chat"]
    text: str


class ReactLine(_Said):
    type: Literal["react"]
    emoji: str


class PhraseLine(_Said):
    type: Literal["phrase"]
    id: str


TalkFrame = ChatLine | ReactLine | PhraseLine
KeptLine = ChatLine | PhraseLine  # reactions are fleeting: never kept, never in a history


class ChatHistory(TypedDict):
    """The kept lines a socket may see, sent after its ``welcome``."""

    type: Literal["chat_history"]
    lines: list[KeptLine]


# --- the player's own socket, /ws/me (app/rooms/hub.py) ---------------------------------------


class WelcomeMe(TypedDict):
    """The answer to a good ``hello`` on /ws/me."""

    type: Literal["welcome_me"]
    player_id: str
    presence_visible: bool  # whether friends see this player online (PUT /api/players/me/presence)
    unread: int  # stored notifications not read yet
    server_time: int


class FriendPresence(TypedDict):
    """A friend came online, went offline, or sat at / left a table (on /ws/me only)."""

    type: Literal["presence"]
    player_id: str
    online: bool
    table: str | None  # the code of the room where the friend sits with a socket open


# The stored kinds are app.players.social's; ``your_turn`` is only ever sent live.
NotificationKind = Literal[StoredKind, "your_turn"]


class NotificationFrame(TypedDict):
    """A notification as it happens: a stored one (``id``) or a fleeting ``your_turn`` (no id)."""

    type: Literal["notification"]
    id: int | None
    kind: NotificationKind
    payload: dict[str, Any]
    created_at: str  # ISO 8601, UTC
    read: bool


# /ws/tournaments/{id} (app/ws/tournaments.py): every frame carries the whole view of the
# tournament (the body of GET /api/tournaments/{id}) as ``tournament``; the others say what
# happened to it.


class TournamentFrame(TypedDict):
    """The tournament as it is: the first frame on the socket."""

    type: Literal["tournament"]
    tournament: dict[str, Any]


class RoundStarted(TypedDict):
    """A round's rooms were made and their sets started; ``tables``: code and seats of each."""

    type: Literal["round_started"]
    round: int
    tables: list[dict[str, Any]]
    tournament: dict[str, Any]


class TableFinished(TypedDict):
    """A table's set ended; ``result``: its places, deal points and points."""

    type: Literal["table_finished"]
    round: int
    code: str
    result: dict[str, Any] | None
    tournament: dict[str, Any]


class StandingsFrame(TypedDict):
    """A round ended: the standings after it."""

    type: Literal["standings"]
    standings: list[dict[str, Any]]
    tournament: dict[str, Any]


class TournamentFinished(TypedDict):
    """The last round ended: the final standings."""

    type: Literal["tournament_finished"]
    standings: list[dict[str, Any]]
    tournament: dict[str, Any]


ServerMessage = (
    Welcome
    | Snapshot
    | EventFrame
    | Resync
    | Ack
    | Presence
    | RoomFrame
    | ErrorFrame
    | Bye
    | Pong
    | ChatLine
    | ReactLine
    | PhraseLine
    | ChatHistory
    | WelcomeMe
    | FriendPresence
    | NotificationFrame
    | TournamentFrame
    | RoundStarted
    | TableFinished
    | StandingsFrame
    | TournamentFinished
)


def dumps(message: ServerMessage) -> str:
    # orjson: compact UTF-8 JSON, several times faster than the standard library's encoder, and
    # every frame a table sends goes through here.
    return orjson.dumps(message).decode()


# --- node -> node (several nodes: app/rooms/cluster.py) -----------------------------------------


class _Relayed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _ForTable(_Relayed):
    room: str  # the table's room id


class _ForSocket(_Relayed):
    conn: str  # "{relay node}:{connection id}": a socket, unique across nodes


class RelayJoin(_ForTable, _ForSocket):
    """Relay node -> owner: a socket on the relay node joins the owner's table."""

    k: Literal["join"] = "join"
    node: str  # the relay node, where the socket is
    player: str | None
    name: str | None
    resume: Resume | None


class RelayClient(_ForTable, _ForSocket):
    """Relay node -> owner: a client message for the table, parsed and checked on the relay
    node."""

    k: Literal["msg"] = "msg"
    msg: ClientCommand


class RelayGone(_ForTable, _ForSocket):
    """Relay node -> owner: the socket left."""

    k: Literal["gone"] = "gone"


class RelayRoomChanged(_ForTable):
    """Any node -> owner: the lobby changed the room (stored); ``started``: a set began."""

    k: Literal["room_changed"] = "room_changed"
    started: bool


class RelayRoomClosed(_ForTable):
    k: Literal["room_closed"] = "room_closed"


class RelaySendAway(_ForTable):
    """Any node -> owner: an operator removed or banned the player (stored)."""

    k: Literal["send_away"] = "send_away"
    player: str
    reason: Literal["removed", "banned"]


class RelayBanned(_Relayed):
    """To every node: the player's sockets at the tables it owns are sent away."""

    k: Literal["banned"] = "banned"
    player: str
    node: str  # the banning node (it has sent its own sockets away)


class RelayMuted(_Relayed):
    """To every node: the tables it owns where the player has a socket learn of the mute."""

    k: Literal["muted"] = "muted"
    player: str
    until: float | None  # epoch seconds; None: lifted
    node: str  # the muting node (it has told its own tables)


class RelayFrame(_Relayed):
    """Owner -> relay node: a frame for some of its sockets (all of a table's there that get
    it: a final's spectators on that node are one message), serialised once by the owner."""

    k: Literal["frame"] = "frame"
    conns: list[str]  # sockets (as _ForSocket.conn), in the relay node's care
    text: str


class RelayClose(_ForSocket):
    """Owner -> relay node: close the socket (after its ``bye``, if any)."""

    k: Literal["close"] = "close"
    code: int
    reason: str


class RelayOwnerGone(_ForTable):
    """Owner -> relay nodes: the owner let the table go; its sockets reconnect."""

    k: Literal["owner_gone"] = "owner_gone"


class RelayMeOpened(_Relayed):
    """To every node: the player opened a /ws/me socket (``key``); their older ones, anywhere,
    are replaced."""

    k: Literal["me_opened"] = "me_opened"
    player: str
    key: str  # "{node}:{connection id}"


class RelayNotice(_Relayed):
    """To every node: a notification frame for the player's /ws/me socket, wherever it is."""

    k: Literal["notice"] = "notice"
    player: str
    text: str


class RelayPresence(_Relayed):
    """To every node: these players' presence changed (read it again); ``reload``: their
    friendships or presence setting changed (read those again from the database)."""

    k: Literal["presence"] = "presence"
    players: list[str]
    reload: bool = False


class RelayTournament(_Relayed):
    """To every node: a frame for the sockets watching the tournament (/ws/tournaments/{id}),
    serialised once by the node that made it."""

    k: Literal["tournament"] = "tournament"
    tournament: int
    text: str


RelayMessage = Annotated[
    RelayJoin
    | RelayClient
    | RelayGone
    | RelayRoomChanged
    | RelayRoomClosed
    | RelaySendAway
    | RelayBanned
    | RelayMuted
    | RelayFrame
    | RelayClose
    | RelayOwnerGone
    | RelayMeOpened
    | RelayNotice
    | RelayPresence
    | RelayTournament,
    Field(discriminator="k"),
]
_relay_adapter: TypeAdapter[RelayMessage] = TypeAdapter(RelayMessage)


def relay_dump(message: RelayMessage) -> dict[str, Any]:
    """What the bus carries (it serialises a batch of these at once)."""
    return message.model_dump()


def relay_load(data: Any) -> RelayMessage:
    """A message from another node, checked; raises ValidationError for anything else."""
    return _relay_adapter.validate_python(data)
