"""Tournaments (docs/TOURNAMENTS.md): organized play stored.

* ``tournaments``: the event, its room settings for every set, its limits and status; a
  knockout's drawn ``pools`` once it has started.
* ``tournament_entries``: a player, or a pair (the partner confirms); withdrawn ones kept.
* ``tournament_rounds`` / ``tournament_tables``: each paired round's byes and tables (entry ids
  in seat order), the room that plays a table and the table's result.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str, *, nullable: bool = False) -> sa.Column:  # type: ignore[type-arg]
    # The models use UTCDateTime, a TypeDecorator over exactly this type.
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _tournament(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["tournament_id"],
        ["tournaments.id"],
        name=op.f(f"fk_{table}_tournament_id_tournaments"),
        ondelete="CASCADE",
    )


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False, autoincrement=True),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("format", sa.String(length=8), nullable=False),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("bracket_settings", sa.JSON(), nullable=True),
        sa.Column("rounds", sa.Integer(), nullable=True),
        _when("starts_at"),
        sa.Column("min_entrants", sa.Integer(), nullable=False),
        sa.Column("max_entrants", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("organizer_id", sa.String(length=32), nullable=False),
        sa.Column("pools", sa.JSON(), nullable=True),
        _when("created_at"),
        _when("updated_at"),
        sa.CheckConstraint("format IN ('swiss', 'knockout')", name=op.f("ck_tournaments_format")),
        sa.CheckConstraint("mode IN ('tunggal', 'ganda')", name=op.f("ck_tournaments_mode")),
        sa.CheckConstraint(
            "status IN ('registering', 'running', 'finished', 'cancelled')",
            name=op.f("ck_tournaments_status"),
        ),
        sa.CheckConstraint("min_entrants <= max_entrants", name=op.f("ck_tournaments_entrants")),
        sa.ForeignKeyConstraint(
            ["organizer_id"], ["players.id"], name=op.f("fk_tournaments_organizer_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )
    op.create_index("ix_tournaments_status_starts_at", "tournaments", ["status", "starts_at"])
    op.create_index(op.f("ix_tournaments_organizer_id"), "tournaments", ["organizer_id"])
    op.create_table(
        "tournament_entries",
        sa.Column("id", sa.Integer(), nullable=False, autoincrement=True),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("partner_id", sa.String(length=32), nullable=True),
        sa.Column("partner_confirmed", sa.Boolean(), nullable=False),
        _when("withdrawn_at", nullable=True),
        _when("created_at"),
        sa.CheckConstraint(
            "partner_id IS NULL OR partner_id <> player_id",
            name=op.f("ck_tournament_entries_partner"),
        ),
        _tournament("tournament_entries"),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_tournament_entries_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["partner_id"], ["players.id"], name=op.f("fk_tournament_entries_partner_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_entries")),
        sa.UniqueConstraint(
            "tournament_id", "player_id", name=op.f("uq_tournament_entries_tournament_id_player_id")
        ),
        sa.UniqueConstraint(
            "tournament_id",
            "partner_id",
            name=op.f("uq_tournament_entries_tournament_id_partner_id"),
        ),
    )
    op.create_index(op.f("ix_tournament_entries_player_id"), "tournament_entries", ["player_id"])
    op.create_index(op.f("ix_tournament_entries_partner_id"), "tournament_entries", ["partner_id"])
    op.create_table(
        "tournament_rounds",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("byes", sa.JSON(), nullable=False),
        _when("paired_at"),
        _when("finished_at", nullable=True),
        sa.CheckConstraint(
            "status IN ('paired', 'playing', 'finished')", name=op.f("ck_tournament_rounds_status")
        ),
        _tournament("tournament_rounds"),
        sa.PrimaryKeyConstraint("tournament_id", "number", name=op.f("pk_tournament_rounds")),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("number", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("entrants", sa.JSON(), nullable=False),
        sa.Column("room_id", sa.String(length=32), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id", "round"],
            ["tournament_rounds.tournament_id", "tournament_rounds.number"],
            name=op.f("fk_tournament_tables_tournament_id_tournament_rounds"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["room_id"], ["rooms.id"], name=op.f("fk_tournament_tables_room_id_rooms")
        ),
        sa.PrimaryKeyConstraint(
            "tournament_id", "round", "number", name=op.f("pk_tournament_tables")
        ),
    )


def downgrade() -> None:
    op.drop_table("tournament_tables")
    op.drop_table("tournament_rounds")
    op.drop_index(op.f("ix_tournament_entries_partner_id"), table_name="tournament_entries")
    op.drop_index(op.f("ix_tournament_entries_player_id"), table_name="tournament_entries")
    op.drop_table("tournament_entries")
    op.drop_index(op.f("ix_tournaments_organizer_id"), table_name="tournaments")
    op.drop_index("ix_tournaments_status_starts_at", table_name="tournaments")
    op.drop_table("tournaments")
