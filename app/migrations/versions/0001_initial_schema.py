"""Initial schema: players, rooms, seats, game sets, deals, moves, scores.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str, *, nullable: bool = False) -> sa.Column:  # type: ignore[type-arg]
    # The models use UTCDateTime, a TypeDecorator over exactly this type.
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        _when("created_at"),
        _when("last_seen_at"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_players_token_hash")),
    )
    op.create_table(
        "rooms",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("code", sa.String(length=6), nullable=False),
        sa.Column("host_id", sa.String(length=32), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        _when("created_at"),
        _when("updated_at"),
        sa.CheckConstraint(
            "status IN ('open', 'playing', 'finished')", name=op.f("ck_rooms_status")
        ),
        sa.ForeignKeyConstraint(["host_id"], ["players.id"], name=op.f("fk_rooms_host_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rooms")),
        sa.UniqueConstraint("code", name=op.f("uq_rooms_code")),
    )
    op.create_index(op.f("ix_rooms_host_id"), "rooms", ["host_id"])
    op.create_index(op.f("ix_rooms_status"), "rooms", ["status"])
    op.create_table(
        "seats",
        sa.Column("room_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=True),
        sa.Column("bot", sa.String(length=32), nullable=True),
        _when("sat_at"),
        sa.CheckConstraint(
            "(player_id IS NULL) <> (bot IS NULL)", name=op.f("ck_seats_one_occupant")
        ),
        sa.CheckConstraint("seat >= 0 AND seat < 4", name=op.f("ck_seats_seat_range")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_seats_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["room_id"], ["rooms.id"], name=op.f("fk_seats_room_id_rooms"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("room_id", "seat", name=op.f("pk_seats")),
        sa.UniqueConstraint("room_id", "player_id", name=op.f("uq_seats_room_id_player_id")),
    )
    op.create_index(op.f("ix_seats_player_id"), "seats", ["player_id"])
    op.create_table(
        "game_sets",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("room_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        _when("started_at"),
        _when("ended_at", nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(
            ["room_id"], ["rooms.id"], name=op.f("fk_game_sets_room_id_rooms"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_sets")),
        sa.UniqueConstraint("room_id", "number", name=op.f("uq_game_sets_room_id_number")),
    )
    op.create_table(
        "deals",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("set_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("opener", sa.Integer(), nullable=False),
        _when("started_at"),
        _when("ended_at", nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(
            ["set_id"],
            ["game_sets.id"],
            name=op.f("fk_deals_set_id_game_sets"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deals")),
        sa.UniqueConstraint("set_id", "number", name=op.f("uq_deals_set_id_number")),
    )
    op.create_table(
        "moves",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("deal_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("tile", sa.String(length=3), nullable=False),
        sa.Column("end", sa.String(length=8), nullable=True),
        sa.Column("auto", sa.Boolean(), nullable=False),
        sa.Column("client_move_id", sa.String(length=64), nullable=True),
        _when("created_at"),
        sa.ForeignKeyConstraint(
            ["deal_id"], ["deals.id"], name=op.f("fk_moves_deal_id_deals"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_moves")),
        sa.UniqueConstraint("deal_id", "seq", name=op.f("uq_moves_deal_id_seq")),
    )
    op.create_table(
        "scores",
        sa.Column("set_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["set_id"],
            ["game_sets.id"],
            name=op.f("fk_scores_set_id_game_sets"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("set_id", "seat", name=op.f("pk_scores")),
    )


def downgrade() -> None:
    op.drop_table("scores")
    op.drop_table("moves")
    op.drop_table("deals")
    op.drop_table("game_sets")
    op.drop_index(op.f("ix_seats_player_id"), table_name="seats")
    op.drop_table("seats")
    op.drop_index(op.f("ix_rooms_status"), table_name="rooms")
    op.drop_index(op.f("ix_rooms_host_id"), table_name="rooms")
    op.drop_table("rooms")
    op.drop_table("players")
