"""Players who come back: accounts, login sessions, who played each set, ratings per mode.

* ``accounts``: a guest's saved identity (username folded to lower case, Argon2id hash).
* ``player_sessions``: tokens from logins, HMAC-hashed like a guest's first token.
* ``set_players``: the humans seated when a set started, and how it went for each of them.
* ``ratings`` (one row per player per mode) and ``rating_changes`` (one per player per rated set).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MODE_CHECK = "mode IN ('tunggal', 'ganda')"


def _when(name: str, *, nullable: bool = False) -> sa.Column:  # type: ignore[type-arg]
    # The models use UTCDateTime, a TypeDecorator over exactly this type.
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _player(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["player_id"], ["players.id"], name=op.f(f"fk_{table}_player_id_players")
    )


def _game_set(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["set_id"], ["game_sets.id"], name=op.f(f"fk_{table}_set_id_game_sets"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("username", sa.String(length=20), nullable=False),
        sa.Column("password_hash", sa.String(length=256), nullable=False),
        _when("created_at"),
        _player("accounts"),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("username", name=op.f("uq_accounts_username")),
    )
    op.create_table(
        "player_sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        _when("created_at"),
        _player("player_sessions"),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_player_sessions")),
    )
    op.create_index(op.f("ix_player_sessions_player_id"), "player_sessions", ["player_id"])
    op.create_table(
        "set_players",
        sa.Column("set_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("left", sa.Boolean(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=True),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.CheckConstraint(MODE_CHECK, name=op.f("ck_set_players_mode")),
        _game_set("set_players"),
        _player("set_players"),
        sa.PrimaryKeyConstraint("set_id", "seat", name=op.f("pk_set_players")),
    )
    op.create_index(op.f("ix_set_players_player_id"), "set_players", ["player_id"])
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("sets", sa.Integer(), nullable=False),
        _when("updated_at"),
        sa.CheckConstraint(MODE_CHECK, name=op.f("ck_ratings_mode")),
        _player("ratings"),
        sa.PrimaryKeyConstraint("player_id", "mode", name=op.f("pk_ratings")),
    )
    op.create_index(op.f("ix_ratings_mode_ordinal"), "ratings", ["mode", "ordinal"])
    op.create_table(
        "rating_changes",
        sa.Column("set_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        _when("at"),
        sa.CheckConstraint(MODE_CHECK, name=op.f("ck_rating_changes_mode")),
        _game_set("rating_changes"),
        _player("rating_changes"),
        sa.PrimaryKeyConstraint("set_id", "player_id", name=op.f("pk_rating_changes")),
    )
    op.create_index(
        op.f("ix_rating_changes_player_id_mode_at"), "rating_changes", ["player_id", "mode", "at"]
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_rating_changes_player_id_mode_at"), table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_index(op.f("ix_ratings_mode_ordinal"), table_name="ratings")
    op.drop_table("ratings")
    op.drop_index(op.f("ix_set_players_player_id"), table_name="set_players")
    op.drop_table("set_players")
    op.drop_index(op.f("ix_player_sessions_player_id"), table_name="player_sessions")
    op.drop_table("player_sessions")
    op.drop_table("accounts")
