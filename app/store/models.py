"""The schema. Migrations in ``migrations/versions`` must match it (a test checks that)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from app.rooms.settings import MAX_SEATS, ROOM_STATUSES, SEATS_PER_TABLE, seat_count
from app.store.types import UTCDateTime, utcnow

__all__ = ["MAX_SEATS", "ROOM_STATUSES", "SEATS_PER_TABLE", "seat_count"]  # re-exported

# Stable constraint names, so migrations can drop/alter them on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_N_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

STATUS_CHECK = "status IN ({})".format(", ".join(f"'{status}'" for status in ROOM_STATUSES))


def new_id() -> str:
    return uuid.uuid4().hex


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
    """One deal of a set; the seed lets the shuffle be replayed exactly."""

    __tablename__ = "deals"
    __table_args__ = (UniqueConstraint("set_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    set_id: Mapped[int] = mapped_column(ForeignKey("game_sets.id", ondelete="CASCADE"))
    number: Mapped[int]
    seed: Mapped[int] = mapped_column(BigInteger)
    opener: Mapped[int]
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[datetime | None]
    result: Mapped[dict[str, Any] | None]


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
