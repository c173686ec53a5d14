"""The schema. Migrations in ``migrations/versions`` must match it (a test checks that)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal, get_args

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from app.presets import MAX_SEATS, MODES, ROOM_STATUSES, SEATS_PER_TABLE, Mode, seat_count
from app.store.types import UTCDateTime, utcnow
from app.tournaments import formats as tournament_formats

__all__ = ["MAX_SEATS", "ROOM_STATUSES", "SEATS_PER_TABLE", "seat_count"]  # re-exported

# Stable constraint names, so migrations can drop/alter them on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_N_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# deals.shuffle: dealt from the engine's seeded generator (every deal before FAIRNESS.md), or
# from a secret committed to at the deal's start (docs/FAIRNESS.md).
SEED_SHUFFLE, FAIR_SHUFFLE = "seed", "fair"
SHUFFLE_CHECK = f"shuffle IN ('{SEED_SHUFFLE}', '{FAIR_SHUFFLE}')"
STATUS_CHECK = "status IN ({})".format(", ".join(f"'{status}'" for status in ROOM_STATUSES))


def new_id() -> str:
    return uuid.uuid4().hex


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN (" + ", ".join(f"'{value}'" for value in values) + ")"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UTCDateTime(), dict[str, Any]: JSON()}


class Player(Base):
    """A guest: a name and the HMAC of the bearer token it was given."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Set by an operator: a banned player's tokens stop working.
    banned_at: Mapped[datetime | None]
    banned_reason: Mapped[str | None] = mapped_column(String(200))
    # The player's choice: friends see them offline, at no table (PUT /api/players/me/presence).
    presence_hidden: Mapped[bool] = mapped_column(default=False, server_default=false())


class Room(Base):
    __tablename__ = "rooms"
    __table_args__ = (
        CheckConstraint(STATUS_CHECK, name="status"),
        Index(None, "status"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    code: Mapped[str] = mapped_column(String(6), unique=True)
    host_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    settings: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(16), default="open")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    # Presence, written by the live tables (lifecycle.touch) and the lobby: the lobby lists rooms
    # by their last activity and only those with a connected human; the sweeper closes idle ones.
    active_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    humans_online: Mapped[int] = mapped_column(default=0, server_default="0")
    quickplay: Mapped[bool] = mapped_column(default=False, server_default=false())
    closed_reason: Mapped[str | None] = mapped_column(String(16))
    # A tournament's table (app/rooms/tournaments.py): the tournament and the table's round.
    tournament_id: Mapped[int | None] = mapped_column(ForeignKey("tournaments.id"), index=True)
    round: Mapped[int | None]
    # A club's table (app/players/clubs.py): only the club's members take a seat.
    club_id: Mapped[int | None] = mapped_column(ForeignKey("clubs.id"), index=True)


class Seat(Base):
    """An occupied seat: a row exists only while a player or a bot sits there."""

    __tablename__ = "seats"
    __table_args__ = (
        CheckConstraint(f"seat >= 0 AND seat < {MAX_SEATS}", name="seat_range"),
        # Exactly one occupant: a player or a bot.
        CheckConstraint("(player_id IS NULL) <> (bot IS NULL)", name="one_occupant"),
        # One seat per player per room (NULLs, i.e. bots, don't collide).
        UniqueConstraint("room_id", "player_id"),
    )

    room_id: Mapped[str] = mapped_column(
        ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"), index=True)
    bot: Mapped[str | None] = mapped_column(String(32))
    # On a bot's seat: the human who left or dropped it, who may take it back during the set.
    left_by: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    sat_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The address mark (app/clients.py address_mark) of the seated player's latest table socket.
    client_mark: Mapped[str | None] = mapped_column(String(16))
    # Quick play, after a set: when this seat's player chose "play again" (None: not chosen).
    ready_at: Mapped[datetime | None] = mapped_column()


class GameSet(Base):
    """One set (match) played at a room's table; ``rules`` is the engine's RuleSet as JSON."""

    __tablename__ = "game_sets"
    __table_args__ = (UniqueConstraint("room_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    number: Mapped[int]
    rules: Mapped[dict[str, Any]]
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[datetime | None]
    result: Mapped[dict[str, Any] | None]


class Deal(Base):
    """One deal of a set, and what replays its shuffle exactly.

    ``shuffle`` names the shuffle that dealt it: ``'seed'`` (the engine's seeded shuffle, from
    ``seed``) or ``'fair'`` (docs/FAIRNESS.md, from ``secret``, published when the deal ends).
    """

    __tablename__ = "deals"
    __table_args__ = (
        UniqueConstraint("set_id", "number"),
        CheckConstraint(SHUFFLE_CHECK, name="shuffle"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    set_id: Mapped[int] = mapped_column(ForeignKey("game_sets.id", ondelete="CASCADE"))
    number: Mapped[int]
    seed: Mapped[int | None] = mapped_column(BigInteger)
    shuffle: Mapped[str] = mapped_column(String(8), default="seed", server_default="seed")
    secret: Mapped[str | None] = mapped_column(String(64))
    opener: Mapped[int]
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[datetime | None]
    result: Mapped[dict[str, Any] | None]

    @property
    def source(self) -> int | str:
        """What the engine deals it from again (``engine.replay``): the secret, or the seed."""
        return deal_source(self.shuffle, seed=self.seed, secret=self.secret)


def deal_source(shuffle: str, *, seed: int | None, secret: str | None) -> int | str:
    """The secret of a ``fair`` deal, the seed of a ``seed`` one: chosen by ``deals.shuffle``."""
    source = secret if shuffle == FAIR_SHUFFLE else seed
    if source is None:
        raise RuntimeError(f"a {shuffle!r} deal is stored without its {shuffle} source")
    return source


class Move(Base):
    """Append-only: a deal's state is rebuilt by replaying its moves in ``seq`` order."""

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("deal_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    deal_id: Mapped[int] = mapped_column(ForeignKey("deals.id", ondelete="CASCADE"))
    seq: Mapped[int]
    seat: Mapped[int]
    tile: Mapped[str] = mapped_column(String(3))
    end: Mapped[str | None] = mapped_column(String(8))
    auto: Mapped[bool] = mapped_column(default=False)
    client_move_id: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Score(Base):
    __tablename__ = "scores"

    set_id: Mapped[int] = mapped_column(
        ForeignKey("game_sets.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    points: Mapped[int] = mapped_column(default=0)


class DealAnalysis(Base):
    """The analysis of a finished deal (``engine.analysis``), computed once and kept.

    A row with ``body`` NULL is one being computed (``started_at``); ``body`` is the engine's
    analysis once done. A deal's analysis goes with the deal (ON DELETE CASCADE).
    """

    __tablename__ = "deal_analyses"

    deal_id: Mapped[int] = mapped_column(
        ForeignKey("deals.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    body: Mapped[dict[str, Any] | None]
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]


# --- players who come back: accounts, sessions, ratings (app/players) ---------------------------

RATED_MODES: tuple[Mode, ...] = MODES  # one rating per player per mode
_MODE_CHECK = "mode IN (" + ", ".join(f"'{mode}'" for mode in RATED_MODES) + ")"


class Account(Base):
    """A guest who saved its identity: a username and an Argon2id hash of its password."""

    __tablename__ = "accounts"

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    # Stored folded to lower case, so the unique constraint is case-insensitive.
    username: Mapped[str] = mapped_column(String(20), unique=True)
    password_hash: Mapped[str] = mapped_column(String(256))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class PlayerSession(Base):
    """A token from a login (POST /api/sessions): the HMAC only, like a guest's first token."""

    __tablename__ = "player_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class SetPlayer(Base):
    """A human in a seat when a set started, and how the set went for them.

    Written when the set is created (``rated`` says whether the set counts for ratings: a rated
    room with a human in every seat); ``left`` when their seat went to a bot during the set;
    ``won`` and ``rank`` when the set ended."""

    __tablename__ = "set_players"
    __table_args__ = (CheckConstraint(_MODE_CHECK, name="mode"),)

    set_id: Mapped[int] = mapped_column(
        ForeignKey("game_sets.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    mode: Mapped[str] = mapped_column(String(8))
    rated: Mapped[bool] = mapped_column(default=False)
    left: Mapped[bool] = mapped_column(default=False)
    won: Mapped[bool | None]
    rank: Mapped[int | None]
    # The seat's address mark as the set started (None: none known): the screening compares them.
    client_mark: Mapped[str | None] = mapped_column(String(16))


class Rating(Base):
    """A player's OpenSkill rating in one mode. ``ordinal`` (mu - 3 sigma) orders the board."""

    __tablename__ = "ratings"
    __table_args__ = (
        CheckConstraint(_MODE_CHECK, name="mode"),
        Index("ix_ratings_mode_ordinal", "mode", "ordinal"),
    )

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    mode: Mapped[str] = mapped_column(String(8), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    sets: Mapped[int] = mapped_column(default=0)  # rated sets played
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class RatingChange(Base):
    """What one rated set did to one player's rating."""

    __tablename__ = "rating_changes"
    __table_args__ = (
        CheckConstraint(_MODE_CHECK, name="mode"),
        Index("ix_rating_changes_player_id_mode_at", "player_id", "mode", "at"),
    )

    set_id: Mapped[int] = mapped_column(
        ForeignKey("game_sets.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    mode: Mapped[str] = mapped_column(String(8))
    rank: Mapped[int]  # 1 = best; ties share a rank; a player who left is last
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(default=utcnow)


class DeploymentMark(Base):
    """A fact about the deployment that every node must agree on, by name. ``clustered``: nodes
    with Redis (GAPLE_REDIS_URL) use this database, so a node without Redis must not start on it
    (it would run tables of its own beside theirs)."""

    __tablename__ = "deployment_marks"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))
    marked_at: Mapped[datetime] = mapped_column(default=utcnow)


# --- the social graph: friends, blocks, notifications (app/players/social.py) -------------------

FRIENDSHIP_STATES = ("requested", "friends")
_FRIENDSHIP_STATE_CHECK = "state IN (" + ", ".join(f"'{s}'" for s in FRIENDSHIP_STATES) + ")"


class Friendship(Base):
    """One row per unordered pair of players: ``low_id < high_id`` (the two ids sorted), so that
    a pair has one row whoever asked first, and two requests crossing each other meet on the
    primary key. ``state`` is ``requested`` (``requester_id`` asked, the other has not answered)
    or ``friends``. No row: nothing between them (a declined, cancelled or ended tie is deleted).
    """

    __tablename__ = "friendships"
    __table_args__ = (
        CheckConstraint("low_id < high_id", name="ordered_pair"),
        CheckConstraint("requester_id = low_id OR requester_id = high_id", name="requester"),
        CheckConstraint(_FRIENDSHIP_STATE_CHECK, name="state"),
        Index(None, "high_id"),  # the pair's other side (low_id leads the primary key)
    )

    low_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    high_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    requester_id: Mapped[str] = mapped_column(String(32))
    state: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)  # when it was asked
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)  # when it last changed state


class Block(Base):
    """``blocker_id`` blocks ``blocked_id`` (one direction; each may block the other)."""

    __tablename__ = "blocks"
    __table_args__ = (
        CheckConstraint("blocker_id <> blocked_id", name="not_self"),
        Index(None, "blocked_id"),
    )

    blocker_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    blocked_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Notification(Base):
    """Something that happened for a player while they may have been away (``kind`` and its
    ``payload``); ``read_at`` once they marked it read. The last 100 per player are kept."""

    __tablename__ = "notifications"
    __table_args__ = (Index("ix_notifications_player_id_id", "player_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    kind: Mapped[str] = mapped_column(String(32))
    payload: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    read_at: Mapped[datetime | None]


# --- clubs: members, leaders, join requests (app/players/clubs.py) -----------------------------

ClubRole = Literal["leader", "member"]
CLUB_ROLES: tuple[str, ...] = get_args(ClubRole)


class Club(Base):
    """A club ("gardu"): players who belong together. ``name_key`` is the name case-folded, so
    names are unique whatever their case; ``open``: anyone joins at once, else a leader accepts
    each request. Closed by a moderator (``closed_at``), or when its last member leaves."""

    __tablename__ = "clubs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(40))
    name_key: Mapped[str] = mapped_column(String(40), unique=True)
    description: Mapped[str] = mapped_column(String(500), default="")
    open: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    closed_at: Mapped[datetime | None]


class ClubMember(Base):
    """A player's membership of a club, as a ``leader`` or a ``member``."""

    __tablename__ = "club_members"
    __table_args__ = (CheckConstraint(_one_of("role", CLUB_ROLES), name="role"),)

    club_id: Mapped[int] = mapped_column(
        ForeignKey("clubs.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True, index=True)
    role: Mapped[str] = mapped_column(String(8))
    joined_at: Mapped[datetime] = mapped_column(default=utcnow)


class ClubRequest(Base):
    """A player asks to join a club that is not open; a leader accepts or declines it."""

    __tablename__ = "club_requests"

    club_id: Mapped[int] = mapped_column(
        ForeignKey("clubs.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True, index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


# --- challenges and parties (app/rooms/challenges.py, app/players/parties.py) ---------------


class Challenge(Base):
    """``from_id`` invites the players of ``challenge_invitees`` to a table with ``settings``
    (resolved and checked as POST /api/rooms does). ``status``: ``pending`` until every invitee
    accepted (``accepted``: ``room_id`` is the table made for them), one declined (``declined``)
    or the challenger cancelled (``cancelled``); a pending one past ``expires_at`` is expired."""

    __tablename__ = "challenges"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    from_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    settings: Mapped[dict[str, Any]]
    partner_id: Mapped[str | None] = mapped_column(String(32))  # Ganda: seated across, seat 2
    open_seats: Mapped[bool] = mapped_column(default=False)  # True: no bots in the other seats
    status: Mapped[str] = mapped_column(String(16))
    room_id: Mapped[str | None] = mapped_column(ForeignKey("rooms.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]


class ChallengeInvitee(Base):
    """One invited player of a challenge, in the order the challenger named them, and their
    ``answer``: ``pending``, ``accepted`` or ``declined``."""

    __tablename__ = "challenge_invitees"

    challenge_id: Mapped[str] = mapped_column(
        ForeignKey("challenges.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True, index=True)
    position: Mapped[int] = mapped_column(Integer)
    answer: Mapped[str] = mapped_column(String(16))


class Party(Base):
    """Two players who quick-play Ganda as partners: ``inviter_id`` asked ``invitee_id``;
    ``status`` is ``invited`` until the invitee accepts (``accepted``). A declined or left
    party is deleted. A player is in at most one accepted party."""

    __tablename__ = "parties"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    inviter_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    invitee_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


# --- organized play: tournaments (docs/TOURNAMENTS.md; the rules are app/tournaments') --------

TOURNAMENT_FORMATS = tournament_formats.FORMATS
TOURNAMENT_STATUSES = tournament_formats.STATUSES
ROUND_STATUSES = tournament_formats.ROUND_STATUSES


class Tournament(Base):
    """An organized event. ``settings`` are the room settings of every set (``bracket_settings``,
    a knockout's bracket sets when the organizer wants them longer); ``rounds`` is a Swiss's
    round count (NULL for a knockout: its entries decide); ``pools`` a knockout's drawn pools,
    ``[{"name", "members": [entry ids in rating order]}]``, once it has started."""

    __tablename__ = "tournaments"
    __table_args__ = (
        CheckConstraint(_one_of("format", TOURNAMENT_FORMATS), name="format"),
        CheckConstraint(_MODE_CHECK, name="mode"),
        CheckConstraint(_one_of("status", TOURNAMENT_STATUSES), name="status"),
        CheckConstraint("min_entrants <= max_entrants", name="entrants"),
        Index("ix_tournaments_status_starts_at", "status", "starts_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(60))
    format: Mapped[str] = mapped_column(String(8))
    mode: Mapped[str] = mapped_column(String(8))
    status: Mapped[str] = mapped_column(String(12), default="registering")
    settings: Mapped[dict[str, Any]]
    bracket_settings: Mapped[dict[str, Any] | None]
    rounds: Mapped[int | None]
    starts_at: Mapped[datetime]
    min_entrants: Mapped[int]
    max_entrants: Mapped[int]
    rated: Mapped[bool] = mapped_column(default=False)
    public: Mapped[bool] = mapped_column(default=True)
    organizer_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    pools: Mapped[list[Any] | None] = mapped_column(JSON())
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    # A club's event: only its members enter (NULL: anyone). A team battle instead lists its
    # clubs (``tournament_clubs``) and counts each club's best ``battle_best`` entrants.
    club_id: Mapped[int | None] = mapped_column(ForeignKey("clubs.id"), index=True)
    battle_best: Mapped[int | None]


class TournamentClub(Base):
    """A club of a team battle, in the order the organizer listed them (``position``)."""

    __tablename__ = "tournament_clubs"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"), primary_key=True, index=True)
    position: Mapped[int]


class TournamentEntry(Base):
    """An entry: a player (Tunggal) or a pair (Ganda: the player who entered and the partner they
    named, who confirms). Its ``id`` is the entrant's id in the tournament logic. A player holds
    one entry per tournament, as its player or as its partner (the service checks the cross
    case; the constraints the two direct ones). Withdrawn while running: ``withdrawn_at``."""

    __tablename__ = "tournament_entries"
    __table_args__ = (
        UniqueConstraint("tournament_id", "player_id"),
        UniqueConstraint("tournament_id", "partner_id"),
        CheckConstraint("partner_id IS NULL OR partner_id <> player_id", name="partner"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    partner_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"), index=True)
    partner_confirmed: Mapped[bool] = mapped_column(default=False)
    withdrawn_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    client_mark: Mapped[str | None] = mapped_column(String(16))  # the entering request's address
    # A team battle's entry: the club it plays for (one of the battle's clubs).
    club_id: Mapped[int | None] = mapped_column(ForeignKey("clubs.id"), index=True)


class TournamentRound(Base):
    """A round once paired: its byes (entry ids, each worth ``formats.BYE_POINTS``) and status
    (``paired``: tables stored, ``playing``: their rooms made, ``finished``)."""

    __tablename__ = "tournament_rounds"
    __table_args__ = (CheckConstraint(_one_of("status", ROUND_STATUSES), name="status"),)

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    status: Mapped[str] = mapped_column(String(8), default="paired")
    byes: Mapped[list[Any]] = mapped_column(JSON())
    paired_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]


class TournamentTable(Base):
    """One table of a round: its entrants (entry ids in seat order; Ganda: pair A, then pair B),
    the room that plays it once made, and its ``result``, ``{"places": [...], "deal_points":
    [...]}`` in the entrants' order (``formats.TableResult``), when its set has ended."""

    __tablename__ = "tournament_tables"
    __table_args__ = (
        ForeignKeyConstraint(
            ["tournament_id", "round"],
            ["tournament_rounds.tournament_id", "tournament_rounds.number"],
            ondelete="CASCADE",
        ),
    )

    tournament_id: Mapped[int] = mapped_column(primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    entrants: Mapped[list[Any]] = mapped_column(JSON())
    room_id: Mapped[str | None] = mapped_column(ForeignKey("rooms.id"), index=True)
    result: Mapped[dict[str, Any] | None]


# --- fair play: reports, mutes, the operators' audit log (app/players/fairplay.py) ------------

REPORT_CATEGORIES = ("cheating", "collusion", "abuse", "spam", "stalling", "other")
REPORT_STATUSES = ("open", "dismissed", "actioned")


class Report(Base):
    """A player's report of another (``player_id``); ``open`` until an operator dismisses it or
    acts on the player (``actioned``), then ``closed_by`` names the operator."""

    __tablename__ = "reports"
    __table_args__ = (
        CheckConstraint(_one_of("category", REPORT_CATEGORIES), name="category"),
        CheckConstraint(_one_of("status", REPORT_STATUSES), name="status"),
        CheckConstraint("reporter_id <> player_id", name="not_self"),
        Index("ix_reports_status_player_id", "status", "player_id"),
        Index("ix_reports_reporter_id_player_id", "reporter_id", "player_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    reporter_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    category: Mapped[str] = mapped_column(String(12))
    text: Mapped[str] = mapped_column(String(500), default="")
    set_id: Mapped[int | None] = mapped_column(ForeignKey("game_sets.id"))
    status: Mapped[str] = mapped_column(String(12), default="open")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    closed_at: Mapped[datetime | None]
    closed_by: Mapped[str | None] = mapped_column(String(40))


class Mute(Base):
    """A player may not talk at tables until ``until`` (unless ``lifted_at``). Every mute is
    kept: how many a player had sets the next one's length."""

    __tablename__ = "mutes"
    __table_args__ = (Index("ix_mutes_player_id_until", "player_id", "until"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    operator: Mapped[str] = mapped_column(String(40))
    reason: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    until: Mapped[datetime]
    lifted_at: Mapped[datetime | None]


class AuditEntry(Base):
    """One operator's action under /api/admin, written in the action's own transaction."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    operator: Mapped[str] = mapped_column(String(40))
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(String(80))
    reason: Mapped[str | None] = mapped_column(String(200))
    client: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(default=utcnow)


# A stored line: free text, or a quick phrase (its id).
ChatKind = Literal["chat", "phrase"]
CHAT_KINDS: tuple[str, ...] = get_args(ChatKind)


class ChatLogLine(Base):
    """A chat line or quick phrase said at a rated table, kept for the moderators (a report shows
    the lines around it) and removed after ``GAPLE_CHAT_RETENTION_DAYS``. Only what the speaker
    said: never a tile, a hand or anything else the table hides. ``text`` is a phrase's id."""

    __tablename__ = "chat_log"
    __table_args__ = (
        CheckConstraint(_one_of("kind", CHAT_KINDS), name="kind"),
        Index("ix_chat_log_room_id_at", "room_id", "at"),
        Index("ix_chat_log_player_id_at", "player_id", "at"),
        Index("ix_chat_log_at", "at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    set_id: Mapped[int | None] = mapped_column(ForeignKey("game_sets.id", ondelete="SET NULL"))
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    name: Mapped[str | None] = mapped_column(String(64))
    seat: Mapped[int | None]
    kind: Mapped[str] = mapped_column(String(8))
    text: Mapped[str] = mapped_column(String(200))
    at: Mapped[datetime] = mapped_column(default=utcnow)
