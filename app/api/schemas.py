"""Request and response bodies of the REST API (what /docs shows)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    model_validator,
)

import engine
from app import presets as rs
from app.players import clubs
from app.players.clubs import Joined as ClubJoin
from app.players.parties import PartyStatus
from app.players.social import NotificationKind
from app.presets import (
    BotKind,
    CloseReason,
    Mode,
    Preset,
    QuickplayPreset,
    Scoring,
    Stuck,
)
from app.rooms.challenges import MAX_INVITEES, Answer, ChallengeStatus
from app.store.models import ClubRole
from app.tournaments import formats as tf

# Literals rather than free strings, all from app/presets.py; combinations are checked by
# the engine (app.api.lobby).
RoomStatus = rs.Status


def _whole(value: Any) -> Any:
    # Strict mode still lets 15.0 match the literal 15; a number choice must be sent as 15.
    if isinstance(value, bool | float):
        raise ValueError(f"must be one of the listed whole numbers, not {value!r}")
    return value


TurnSeconds = Annotated[rs.TurnSeconds, BeforeValidator(_whole)]
Players = Annotated[rs.Players, BeforeValidator(_whole)]


class _Strict(BaseModel):
    # strict: "yes" is not a bool and 7.0 is not an int (a 422, not a silent conversion).
    model_config = ConfigDict(extra="forbid", strict=True)


class GuestIn(_Strict):
    name: str = Field(description="Shown at the table; trimmed, 1..max_name_length printable chars")


class GuestOut(BaseModel):
    player_id: str
    token: str = Field(description="Send as `Authorization: Bearer <token>`; shown only once")
    name: str


class PlayerOut(BaseModel):
    player_id: str
    name: str


# --- clubs (docs/API.md "Clubs"; the rules: app/players/clubs.py) ------------------------------


class ClubIn(_Strict):
    name: str = Field(
        description=f"{clubs.NAME_LENGTH[0]}..{clubs.NAME_LENGTH[1]} printable characters, "
        "trimmed; unique in any case"
    )
    description: str = Field(default="", max_length=2 * clubs.DESCRIPTION_LENGTH)
    open: bool = Field(default=True, description="Anyone joins at once; false: a leader accepts")


class ClubPatch(_Strict):
    description: str | None = Field(default=None, max_length=2 * clubs.DESCRIPTION_LENGTH)
    open: bool | None = None


class ClubRenameIn(_Strict):
    name: str = Field(description="The club's new name, as when founding it")


class LeaderIn(_Strict):
    player_id: str = Field(min_length=1, max_length=32, description="A member of the club")


class ClubRef(BaseModel):
    id: int
    name: str


class ClubSummary(ClubRef):
    description: str
    open: bool
    members: int = Field(description="How many belong to it")


class ClubList(BaseModel):
    clubs: list[ClubSummary] = Field(description="By name (case-folded), then id")
    next_cursor: str | None = Field(
        default=None, description="Pass as `cursor` for the next page; null on the last page"
    )


class ClubMemberOut(BaseModel):
    player_id: str
    name: str
    role: ClubRole
    joined_at: datetime
    ratings: dict[Mode, int] = Field(description="The shown rating in each mode")


class ClubEventOut(BaseModel):
    id: int = Field(description="The tournament: its page is /turnamen/{id}")
    name: str
    format: tf.Format
    mode: Mode
    status: tf.Status
    starts_at: datetime
    battle: bool = Field(description="A team battle among clubs (this one of them)")


class ClubRankOut(BaseModel):
    position: int
    player_id: str
    name: str
    rating: int
    rated_sets: int = Field(description="0: unrated, the rating every player starts from")


class ClubTableOut(BaseModel):
    code: str = Field(description="The room: /r/{code}")
    status: RoomStatus
    host: PlayerOut
    seats_taken: int
    seats: int = Field(description="The table's seats (4, or 5 at a Klasik table of 5)")


class ClubOut(ClubRef):
    description: str
    open: bool
    created_at: datetime
    closed_at: datetime | None = Field(description="Closed: nobody joins, no tables or events")
    members: list[ClubMemberOut] = Field(description="Leaders first, then by joining")
    events: list[ClubEventOut] = Field(description="Its latest tournaments, latest start first")
    leaderboard: dict[Mode, list[ClubRankOut]] = Field(
        description="In each mode, every member ranked by rating"
    )
    tables: list[ClubTableOut] = Field(
        description="The club's tables open or playing, newest activity first"
    )


class ClubJoinOut(BaseModel):
    club_id: int
    state: ClubJoin = Field(description="member: joined; requested: a leader answers")


class ClubRequestOut(BaseModel):
    player_id: str
    name: str
    since: datetime


class ClubRequestsOut(BaseModel):
    requests: list[ClubRequestOut] = Field(description="Oldest first")


class ClubMembershipOut(ClubRef):
    role: ClubRole


class ClubBattleIn(_Strict):
    clubs: list[int] = Field(
        min_length=2, max_length=clubs.BATTLE_CLUBS, description="The clubs that meet, distinct"
    )
    best: int = Field(
        ge=1, le=tf.ENTRANTS_RANGE[1], description="How many of each club's best entrants count"
    )


class ClubBattleOut(BaseModel):
    clubs: list[ClubRef] = Field(description="In the organizer's order (it breaks ties)")
    best: int


class ClubStandingOut(BaseModel):
    rank: int
    club: ClubRef
    points: int | float = Field(description="The sum of its `counted` entrants' points")
    counted: list[int] = Field(description="Entry ids of its best `best` entrants, best first")


KLASIK_OPTIONS = rs.KLASIK_OPTIONS
DEALS_MIN, DEALS_MAX = rs.DEALS_PER_SET_RANGE


def _absent(value: object) -> bool:
    return value is None


class _StuckAlias(_Strict):
    """Reads the old ``discard: true|false`` as ``stuck`` ("discard" / "pass")."""

    @model_validator(mode="before")
    @classmethod
    def _discard_is_stuck(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "discard" not in data:
            return data
        try:
            return engine.stuck_alias(data)
        except engine.BadRules:
            # Not a boolean, or contradicting ``stuck``: left in, to be refused as a field these
            # models do not have (a 422 naming ``discard``).
            return data


def _klasik(description: str) -> Any:
    return Field(default=None, exclude_if=_absent, description=f"Klasik only: {description}")


class RoomSettings(_StuckAlias):
    """A room's settings. What the host leaves out gets the preset's default when the room is
    created; the engine checks the combination (``rules_from_settings``)."""

    preset: Preset = rs.DEFAULT_PRESET
    mode: Mode = Field(default=rs.DEFAULT_MODE, description='Klasik is "tunggal" only')
    turn_seconds: TurnSeconds = rs.DEFAULT_TURN_SECONDS
    deals_per_set: int = Field(
        default=rs.DEFAULT_DEALS_PER_SET,
        ge=DEALS_MIN,
        le=DEALS_MAX,
        description="PORDI Tunggal; Klasik with penalty scoring",
    )
    target_points: int | None = Field(
        default=None,
        ge=1,
        le=rs.TARGET_POINTS_LIMIT,
        description="PORDI Ganda, Klasik difference scoring: the points that win the set. "
        "Default and range by preset (GET /api/presets)",
    )
    public: bool = rs.DEFAULT_PUBLIC
    allow_join_bots: bool | None = Field(
        default=None,
        description="Anyone may take a bot's seat while the set runs; default: the room is public",
    )
    rated: bool = Field(
        default=rs.DEFAULT_RATED,
        description="Sets count for ratings when every seat has a human at the start "
        "(quick-play tables are rated)",
    )
    chat: bool = Field(
        default=rs.DEFAULT_CHAT,
        description="Players may type at the table (reactions and quick phrases stay on)",
    )
    players: Players | None = _klasik("4 (6 tiles each) or 5 (5 tiles each) seats; default 4")
    seven_tiles: bool | None = _klasik("4 players with 7 tiles each, 0-0 opens; default false")
    stuck: Stuck | None = _klasik(
        'what a seat that cannot place does: "discard" (Gaple Klasik: lays a tile face down), '
        '"pass" (Block Domino) or "draw" (Draw Domino: draws from the boneyard until it can '
        'place, not with seven_tiles); default "discard". The old `discard: true|false` is '
        'read as "discard" / "pass"'
    )
    zero_zero_25: bool | None = _klasik(
        "0-0 counts 25 unless its holder also holds another blank; default false"
    )
    scoring: Scoring | None = _klasik(
        '"difference" (first to target_points) or "penalty" (own counts over deals_per_set '
        'deals, lowest total wins); default "difference"'
    )


class RoomIn(RoomSettings):
    """POST /api/rooms: the room's settings, and the club whose members alone take its seats."""

    club_id: int | None = Field(
        default=None, ge=1, description="A club's table: only its members sit; the host is one"
    )

    def settings(self) -> RoomSettings:
        """The room's settings alone, as the host sent them."""
        return RoomSettings.model_validate(self.model_dump(exclude={"club_id"}, exclude_unset=True))


class RoomSettingsPatch(_StuckAlias):
    """Only the fields to change. A new preset resets target_points and the Klasik options to
    the new preset's defaults unless the same patch sets them."""

    preset: Preset | None = None
    mode: Mode | None = None
    turn_seconds: TurnSeconds | None = None
    deals_per_set: int | None = Field(default=None, ge=DEALS_MIN, le=DEALS_MAX)
    target_points: int | None = Field(default=None, ge=1, le=rs.TARGET_POINTS_LIMIT)
    public: bool | None = None
    allow_join_bots: bool | None = None
    rated: bool | None = None
    chat: bool | None = None
    players: Players | None = None
    seven_tiles: bool | None = None
    stuck: Stuck | None = None
    zero_zero_25: bool | None = None
    scoring: Scoring | None = None


def _bot_level(value: Any) -> Any:
    return rs.BOT_ALIASES.get(value, value) if isinstance(value, str) else value


class BotIn(_Strict):
    kind: Annotated[BotKind, BeforeValidator(_bot_level)] = Field(
        default=rs.DEFAULT_BOT,
        description='"easy", "normal" or "hard"; the old names "random" and "heuristic" mean '
        '"easy" and "normal"',
    )


class SeatOut(BaseModel):
    seat: int
    player_id: str | None = None
    name: str | None = None
    bot: str | None = None
    left_by: str | None = Field(
        default=None,
        description="On a bot's seat: the player who left it, who may take it back (POST seats)",
    )
    ready: bool = Field(
        default=False,
        description='Quick play, after a set: this seat\'s player chose "play again" (POST again)',
    )


class RoomTournamentOut(BaseModel):
    id: int = Field(description="The tournament: its page is /turnamen/{id}")
    round: int | None = Field(description="The tournament's round this table plays")
    name: str | None = Field(description="The tournament's name")


class RoomOut(BaseModel):
    id: str
    code: str
    share_link: str
    status: RoomStatus = Field(description="open, playing, closed or abandoned (docs/API.md)")
    closed_reason: CloseReason | None = Field(
        default=None, description="Why a closed room closed: host_closed, idle, no_host, admin"
    )
    quickplay: bool = Field(default=False, description="Made by quick play (POST /api/quickplay)")
    rematch: bool = Field(
        default=False,
        description="A challenge's table: after a set, `POST …/again` is the rematch (docs/API.md "
        '"Challenges")',
    )
    host: PlayerOut
    settings: RoomSettings
    seats: list[SeatOut] = Field(
        description="One entry per seat (4, or 5 for Klasik with 5 players); an empty seat has "
        "only `seat`"
    )
    seats_taken: int
    bots_in_ms: int | None = Field(
        default=None,
        description="Quick play: milliseconds until bots fill the empty seats (and, after a set, "
        'those of players who did not choose "play again") and the set starts; null if no bot '
        "fill is pending",
    )
    humans_online: int = Field(description="Seated humans connected to the table right now")
    spectators: int
    tournament: RoomTournamentOut | None = Field(
        default=None, description="A tournament's table: the tournament and the round it plays"
    )
    club: ClubRef | None = Field(
        default=None, description="A club's table: only its members take a seat; anyone watches"
    )
    created_at: datetime
    active_at: datetime = Field(description="The room's last activity")


class RoomSummary(BaseModel):
    code: str
    share_link: str
    status: RoomStatus
    host_id: str
    host_name: str
    settings: RoomSettings
    seats_taken: int
    seats_free: int = Field(
        description="open: empty seats; playing: bots' seats anyone may take (allow_join_bots)"
    )
    humans_online: int
    spectators: int
    quickplay: bool
    club: ClubRef | None = Field(
        default=None, description="A club's table: only its members sit; anyone watches"
    )
    active_at: datetime


class RoomList(BaseModel):
    rooms: list[RoomSummary] = Field(description="Newest activity first")
    next_cursor: str | None = Field(
        default=None, description="Pass as `cursor` for the next page; null on the last page"
    )


FieldType = Literal["choice", "int", "bool"]


class FieldSpec(BaseModel):
    """One setting of the create form. ``choice``: one of ``choices``; ``int``: min..max."""

    key: str
    type: FieldType
    default: int | bool | str
    choices: list[int | str] | None = None
    min: int | None = None
    max: int | None = None
    when: dict[str, list[int | str]] | None = Field(
        default=None, description="Shown (it matters) only when these settings have these values"
    )
    default_if_private: bool | None = Field(
        default=None, description="allow_join_bots: its default in a private room"
    )
    names: dict[str, str] | None = Field(
        default=None,
        description="stuck: the name of the game each choice makes (the client translates it)",
    )


class TableShape(BaseModel):
    players: int
    seven_tiles: bool | None = Field(default=None, description="Klasik: the option's value")
    hand_size: int = Field(description="Tiles dealt to each seat")
    face_up_start: bool = Field(description="One left-over tile is turned face up to start")
    set_aside: int = Field(description="Left-over tiles nobody sees (Draw Domino: the boneyard)")
    first_opening_tile: str | None = Field(
        default=None, description="The first deal of a set is opened with this tile by its holder"
    )


class KandangPoints(BaseModel):
    locker_lower: int = Field(description="The locker (Ganda: its team) has the fewest pips")
    tie_opponent: int = Field(description="Each opponent level with the locker")
    tie_locker: int = Field(description="The locker in that tie")
    locker_higher: list[int] = Field(description="Opponents ranked by pips, fewest first")


class PresetRules(BaseModel):
    """The rule book's numbers for a preset, as the engine plays them (a rules page shows
    these instead of keeping its own)."""

    tables: list[TableShape] = Field(description="Each table shape the preset's options allow")
    redeal_min_balak: int = Field(description="A hand with this many balak is dealt again")
    domi_points: dict[str, int] | None = Field(
        default=None, description="PORDI: points of each way to go out (biasa, balak, ceki, ...)"
    )
    ceki_one_used_up_points: dict[str, int] | None = Field(
        default=None,
        description="PORDI: a Ceki with one end used up, board ending dead or live",
    )
    kandang: dict[str, KandangPoints] | None = Field(
        default=None, description="PORDI: a locked board's points, by mode"
    )
    zero_zero_points: int | None = Field(
        default=None, description="Klasik: what 0-0 counts under the zero_zero_25 option"
    )


class PresetOut(BaseModel):
    preset: Preset
    defaults: dict[str, int | bool | str] = Field(
        description="The settings of a new room of this preset when the host chooses nothing"
    )
    seats: int = Field(description="Seats at the default table (Klasik: `players`)")
    fields: list[FieldSpec] = Field(description="The form, in display order")
    rules: PresetRules


class BotChoices(BaseModel):
    kinds: list[BotKind]
    default: BotKind


class QuickplayChoice(BaseModel):
    preset: QuickplayPreset
    mode: Mode
    turn_seconds: TurnSeconds


class QuickplayChoices(BaseModel):
    presets: list[QuickplayPreset]
    modes: list[Mode]
    turn_seconds: list[TurnSeconds]
    bot: BotKind = Field(description="The bots that fill a quick-play table that waited")
    rated: bool = Field(description="Quick-play tables count for ratings")
    default: QuickplayChoice


class PhraseOut(BaseModel):
    id: str
    id_text: str = Field(description="In Indonesian")
    en_text: str = Field(description="In English")


class ChatChoices(BaseModel):
    max_chars: int = Field(description="A chat message's limit, after trimming")
    emoji: list[str] = Field(description='The reactions ({"type": "react", "emoji": ...})')
    phrases: list[PhraseOut] = Field(description='Quick phrases ({"type": "phrase", "id": ...})')


class PracticeChoices(BaseModel):
    bot: BotKind = Field(description="The bots of a practice table unless the player chooses")
    public: bool = Field(description="Practice tables are not listed in the lobby")
    rated: bool = Field(description="Practice sets count for ratings")


class NameRules(BaseModel):
    max_length: int = Field(
        description="A player name's limit in characters (code points), after trimming"
    )


class TournamentRules(BaseModel):
    """What a tournament's create form offers and starts from (app/tournaments/formats.py)."""

    formats: list[tf.Format]
    modes: list[Mode]
    name_length: list[int] = Field(description="[min, max] characters after trimming")
    rounds: list[int] = Field(description="[min, max] rounds of a Swiss")
    entrants: list[int] = Field(description="[min, max] of max_entrants")
    table_entrants: dict[str, int] = Field(description="Entrants per table by mode: the fewest")
    defaults: dict[str, int] = Field(description="rounds, max_entrants")


class ReportChoices(BaseModel):
    categories: list[str] = Field(description="A report's categories (POST /api/reports)")
    max_text: int = Field(description="A report's text limit, after trimming")


class PresetsOut(BaseModel):
    default_preset: Preset
    presets: list[PresetOut]
    bots: BotChoices
    practice: PracticeChoices
    quickplay: QuickplayChoices
    chat: ChatChoices
    reports: ReportChoices
    names: NameRules
    tournaments: TournamentRules


def tournament_rules() -> dict[str, Any]:
    """The tournament form's limits and defaults, read from their one home."""
    return {
        "formats": list(tf.FORMATS),
        "modes": list(rs.MODES),
        "name_length": list(tf.NAME_LENGTH),
        "rounds": list(tf.ROUNDS_RANGE),
        "entrants": list(tf.ENTRANTS_RANGE),
        "table_entrants": dict(tf.TABLE_ENTRANTS),
        "defaults": {"rounds": tf.DEFAULT_ROUNDS, "max_entrants": tf.DEFAULT_MAX_ENTRANTS},
    }


class QuickplayIn(_Strict):
    preset: QuickplayPreset = rs.QUICKPLAY_PRESETS[0]
    mode: Mode = rs.DEFAULT_MODE
    turn_seconds: TurnSeconds = rs.DEFAULT_TURN_SECONDS


class QuickplayOut(BaseModel):
    room: RoomOut
    seat: int = Field(description="The caller's seat at that table")


class PracticeIn(_StuckAlias):
    """A practice table's game; everything optional (GET /api/presets has the choices)."""

    preset: Preset = rs.DEFAULT_PRESET
    mode: Mode = Field(default=rs.DEFAULT_MODE, description='Klasik is "tunggal" only')
    turn_seconds: TurnSeconds = rs.DEFAULT_TURN_SECONDS
    stuck: Stuck | None = _klasik(
        '"discard" (Gaple Klasik), "pass" (Block Domino) or "draw" (Draw Domino); default "discard"'
    )
    bot: Annotated[BotKind, BeforeValidator(_bot_level)] = Field(
        default=rs.PRACTICE_BOT, description='The level of every bot: "easy", "normal" or "hard"'
    )


class PracticeOut(BaseModel):
    room: RoomOut
    seat: int = Field(description="The caller's seat (0); bots hold the others")


Check = Literal["ok", "error"]  # one dependency, or all of them, as /api/health saw it
RedisCheck = Literal["ok", "error", "disabled"]  # "disabled": the node runs without Redis


ProbeStatus = Literal["ok", "error", "draining"]


class ProbeOut(BaseModel):
    """What ``/livez`` and ``/readyz`` answer. A 503 of ``/readyz`` carries these beside the
    ``error`` envelope (``status`` then ``error`` or ``draining``)."""

    status: ProbeStatus
    node: str = Field(description="This server process's id (several nodes: who answered)")


class HealthOut(BaseModel):
    status: Check
    database: Check
    redis: RedisCheck
    node: str = Field(description="This server process's id (several nodes: who answered)")


# --- friends, blocks, notifications (app/api/social.py) -----------------------------------------


class FriendOut(BaseModel):
    player_id: str
    name: str
    online: bool = Field(
        description="Always false until presence arrives with the player socket (/ws/me)"
    )
    table: str | None = Field(
        description="The code of the table the friend is at; null until presence (/ws/me)"
    )
    since: datetime = Field(description="When the two became friends")


class RequestOut(BaseModel):
    player_id: str
    name: str
    since: datetime = Field(description="When the request was sent")


class FriendsOut(BaseModel):
    friends: list[FriendOut]
    incoming: list[RequestOut] = Field(description="Requests waiting for the caller's answer")
    outgoing: list[RequestOut] = Field(description="The caller's requests, not yet answered")


class TieOut(BaseModel):
    player_id: str
    state: Literal["friends", "outgoing"] = Field(
        description="`friends`, or `outgoing`: the request waits for their answer"
    )


class BlockedOut(BaseModel):
    player_id: str
    name: str
    since: datetime


class BlocksOut(BaseModel):
    blocked: list[BlockedOut]


class NotificationOut(BaseModel):
    id: int
    kind: NotificationKind
    payload: dict[str, Any] = Field(
        description="The other player's `player_id` and `name`; `challenge` adds "
        "`challenge_id`, `mode`, `preset`, `expires_at`; `challenge_answered` adds "
        "`challenge_id`, `answer`, `room` (the table's code once it was made, else null); "
        "`party_invite` adds `party_id`"
    )
    created_at: datetime
    read: bool


class NotificationsOut(BaseModel):
    notifications: list[NotificationOut] = Field(description="The last 100, newest first")
    unread: int


NotificationId = Annotated[int, Field(ge=1, le=2**31 - 1)]


class MarkReadIn(_Strict):
    """Exactly one of ``ids`` and ``all``."""

    ids: list[NotificationId] | None = Field(default=None, min_length=1, max_length=100)
    all: Literal[True] | None = None

    @model_validator(mode="after")
    def _one_of(self) -> MarkReadIn:
        if (self.ids is None) == (self.all is None):
            raise ValueError('send either "ids": [...] or "all": true')
        return self


class MarkReadOut(BaseModel):
    marked: int = Field(description="Notifications that were unread and are read now")
    unread: int


# --- tournaments (docs/API.md "Tournaments"; the rules: docs/TOURNAMENTS.md) --------------------

TournamentStatus = tf.Status
TournamentFilter = Literal["upcoming", "running", "finished", "cancelled"]
ROUNDS_MIN, ROUNDS_MAX = tf.ROUNDS_RANGE
ENTRANTS_MIN, ENTRANTS_MAX = tf.ENTRANTS_RANGE


class TournamentIn(_Strict):
    name: str = Field(
        description=f"{tf.NAME_LENGTH[0]}..{tf.NAME_LENGTH[1]} printable characters, trimmed"
    )
    format: tf.Format = Field(description='"swiss" or "knockout" (pools, then a bracket)')
    mode: Mode = Field(description="tunggal: an entrant is a player; ganda: a pair")
    rounds: int | None = Field(
        default=None,
        ge=ROUNDS_MIN,
        le=ROUNDS_MAX,
        description="A swiss's rounds (required); a knockout's follow from its entries",
    )
    settings: RoomSettings = Field(
        default_factory=RoomSettings,
        description="The room settings of every set, checked as a room's; `mode` must be the "
        "tournament's (left out: taken from it); `rated` and `public` follow the tournament",
    )
    bracket_settings: RoomSettings | None = Field(
        default=None, description="A knockout's bracket sets, e.g. a higher target_points"
    )
    starts_at: AwareDatetime = Field(
        strict=False, description="When it starts by itself; in the future, with an offset"
    )
    min_entrants: int = Field(
        ge=min(tf.TABLE_ENTRANTS.values()),
        le=ENTRANTS_MAX,
        description="At least one table's worth (4 players, 2 pairs) and at most max_entrants",
    )
    max_entrants: int = Field(ge=ENTRANTS_MIN, le=ENTRANTS_MAX)
    rated: bool = Field(default=False, description="The tournament's sets count for ratings")
    public: bool = Field(default=True, description="Listed by GET /api/tournaments")
    club_id: int | None = Field(
        default=None,
        ge=1,
        description="A club event: only the club's members enter; the organizer is one",
    )
    club_battle: ClubBattleIn | None = Field(
        default=None,
        description="A team battle: each entrant plays for one of these clubs, and the clubs "
        "are ranked by the sum of their best `best` entrants' points",
    )


class EntryIn(_Strict):
    partner_id: str | None = Field(
        default=None, max_length=32, description="Ganda: the partner, who confirms; Tunggal: none"
    )
    club_id: int | None = Field(
        default=None,
        ge=1,
        description="A team battle: the club the entry plays for (needed only by a member of "
        "two of its clubs)",
    )


class EntrantOut(BaseModel):
    id: int = Field(description="The entry's id: the entrant in rounds and standings")
    player: PlayerOut
    partner: PlayerOut | None = Field(description="Ganda: the partner the entry names")
    partner_confirmed: bool = Field(description="Ganda: the partner confirmed; false in Tunggal")
    withdrawn: bool = Field(description="Withdrew after the start: forfeits the rounds left")
    club: ClubRef | None = Field(default=None, description="A team battle: the club it plays for")


class EntryOut(BaseModel):
    tournament_id: int
    entrant: EntrantOut


class TableResultOut(BaseModel):
    places: list[int] = Field(description="Each entrant's place at the table, 1 best")
    deal_points: list[int] = Field(description="Each entrant's points in the set's deals")
    points: list[int | float] = Field(description="The tournament points each scored")


class TableSeatOut(BaseModel):
    seat: int
    player_id: str
    name: str
    entrant: int = Field(description="The entry id whose player sits here")


class TournamentTableOut(BaseModel):
    number: int
    code: str | None = Field(description="The code of the room that plays it, once made")
    set_id: int | None = Field(
        description="The set played there, once dealt: its replay is /replay/{set_id}"
    )
    entrants: list[int] = Field(description="Entry ids in seat order (Ganda: pair A, pair B)")
    seats: list[TableSeatOut] = Field(
        description="Who sits where: Tunggal an entrant a seat, Ganda a pair across (0/2, 1/3)"
    )
    result: TableResultOut | None = Field(description="When the table's set has ended")


class TournamentRoundOut(BaseModel):
    number: int
    status: tf.RoundStatus
    stage: tf.Stage = Field(
        description='"swiss" (every round of a Swiss); a knockout\'s "pool" and "bracket" rounds'
    )
    byes: list[int] = Field(description="Entry ids sitting the round out (a bye's points)")
    tables: list[TournamentTableOut]


class PoolOut(BaseModel):
    name: str
    members: list[int] = Field(description="Entry ids, in rating order")


class StandingOut(BaseModel):
    rank: int
    entrant: int
    points: int | float
    tiebreaks: dict[str, int | float] = Field(description="deal_points, then buchholz")


class ScoringOut(BaseModel):
    place_points: list[int] = Field(description="The award of each place at a table")
    bye_points: int | float = Field(description="A bye: the average award of a table")
    tiebreaks: list[str] = Field(description="The order of the standings")


class TournamentOut(BaseModel):
    id: int
    name: str
    format: tf.Format
    mode: Mode
    status: TournamentStatus
    starts_at: datetime
    created_at: datetime
    organizer: PlayerOut
    settings: dict[str, Any] = Field(description="The room settings of every set")
    bracket_settings: dict[str, Any] | None
    round_count: int | None = Field(description="A swiss's rounds; null for a knockout")
    min_entrants: int
    max_entrants: int
    rated: bool
    public: bool
    entries_open: bool = Field(description="An entry is taken now (late join: swiss only)")
    entrants: list[EntrantOut] = Field(description="Every entry, in the order made")
    pools: list[PoolOut] | None = Field(description="A knockout's pools, once it has started")
    rounds: list[TournamentRoundOut]
    standings: list[StandingOut] = Field(description="Empty before the first round")
    scoring: ScoringOut
    club: ClubRef | None = Field(default=None, description="A club event: members only")
    club_battle: ClubBattleOut | None = Field(default=None, description="A team battle")
    club_standings: list[ClubStandingOut] = Field(
        default_factory=list, description="A team battle's clubs ranked; empty before round 1"
    )


class TournamentSummary(BaseModel):
    id: int
    name: str
    format: tf.Format
    mode: Mode
    status: TournamentStatus
    starts_at: datetime
    organizer: PlayerOut
    entries: int = Field(description="Entries holding a place (not withdrawn)")
    max_entrants: int
    rated: bool


class TournamentList(BaseModel):
    tournaments: list[TournamentSummary]
    next_cursor: str | None = Field(
        default=None, description="Pass as `cursor` for the next page; null on the last page"
    )


class PresenceIn(_Strict):
    visible: bool = Field(description="false: friends see the player offline, at no table")


class PresenceOut(BaseModel):
    visible: bool


# --- challenges and parties ----------------------------------------------------------------------

OtherId = Annotated[str, Field(min_length=1, max_length=32)]


class ChallengeIn(_Strict):
    to: list[OtherId] = Field(
        min_length=1, max_length=MAX_INVITEES, description="The players invited, 1 to 3"
    )
    settings: RoomSettings = Field(
        default_factory=RoomSettings, description="The room's, checked as for POST /api/rooms"
    )
    partner: OtherId | None = Field(
        default=None, description="Ganda: one of `to`, seated across from the challenger"
    )
    open_seats: bool = Field(
        default=False, description="Seats nobody was invited to stay open (default: bots)"
    )


class ChallengerOut(BaseModel):
    player_id: str
    name: str


class InviteeOut(BaseModel):
    player_id: str
    name: str
    answer: Answer


class ChallengeOut(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    id: str
    from_: ChallengerOut = Field(alias="from")
    to: list[InviteeOut] = Field(description="In the order the challenger named them")
    settings: dict[str, Any] = Field(description="The room's settings, the defaults filled in")
    partner: str | None
    open_seats: bool
    status: ChallengeStatus
    expires_at: datetime
    room: str | None = Field(description="The code of the table made once everyone accepted")


class PartyIn(_Strict):
    with_: OtherId = Field(alias="with", description="The partner invited")


class PartyOut(BaseModel):
    id: str
    inviter: ChallengerOut
    invitee: ChallengerOut
    status: PartyStatus
    since: datetime = Field(description="When the invitation was sent, or last accepted")


class PartiesOut(BaseModel):
    party: PartyOut | None = Field(description="The caller's accepted party, if any")
    incoming: list[PartyOut] = Field(description="Invitations waiting for the caller's answer")
    outgoing: list[PartyOut] = Field(description="The caller's invitations not yet answered")
