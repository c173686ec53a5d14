"""Clubs (docs/API.md "Clubs"): members with roles, join requests, club tables and events.

* ``clubs``: the club, its name (unique case-folded: ``name_key``), description, whether anyone
  may join at once (``open``), and ``closed_at`` once it is closed.
* ``club_members`` (``leader`` or ``member``) and ``club_requests`` (waiting for a leader).
* ``rooms.club_id`` and ``tournaments.club_id``: a table or an event for the club's members
  only; ``tournaments.battle_best`` and ``tournament_clubs``: a team battle's clubs and how many
  of each club's best entrants count; ``tournament_entries.club_id``: the club an entry plays for.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str, *, nullable: bool = False) -> sa.Column:  # type: ignore[type-arg]
    # The models use UTCDateTime, a TypeDecorator over exactly this type.
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _club(table: str, *, cascade: bool) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["club_id"],
        ["clubs.id"],
        name=op.f(f"fk_{table}_club_id_clubs"),
        ondelete="CASCADE" if cascade else None,
    )


def _player(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["player_id"], ["players.id"], name=op.f(f"fk_{table}_player_id_players")
    )


def upgrade() -> None:
    op.create_table(
        "clubs",
        sa.Column("id", sa.Integer(), nullable=False, autoincrement=True),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("name_key", sa.String(length=40), nullable=False),
        sa.Column("description", sa.String(length=500), nullable=False),
        sa.Column("open", sa.Boolean(), nullable=False),
        _when("created_at"),
        _when("closed_at", nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_clubs")),
        sa.UniqueConstraint("name_key", name=op.f("uq_clubs_name_key")),
    )
    op.create_table(
        "club_members",
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("role", sa.String(length=8), nullable=False),
        _when("joined_at"),
        sa.CheckConstraint("role IN ('leader', 'member')", name=op.f("ck_club_members_role")),
        _club("club_members", cascade=True),
        _player("club_members"),
        sa.PrimaryKeyConstraint("club_id", "player_id", name=op.f("pk_club_members")),
    )
    op.create_index(op.f("ix_club_members_player_id"), "club_members", ["player_id"])
    op.create_table(
        "club_requests",
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        _when("created_at"),
        _club("club_requests", cascade=True),
        _player("club_requests"),
        sa.PrimaryKeyConstraint("club_id", "player_id", name=op.f("pk_club_requests")),
    )
    op.create_index(op.f("ix_club_requests_player_id"), "club_requests", ["player_id"])
    op.create_table(
        "tournament_clubs",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_clubs_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        _club("tournament_clubs", cascade=False),
        sa.PrimaryKeyConstraint("tournament_id", "club_id", name=op.f("pk_tournament_clubs")),
    )
    op.create_index(op.f("ix_tournament_clubs_club_id"), "tournament_clubs", ["club_id"])
    # SQLite cannot add a foreign key in place: batch mode copies the table.
    for table in ("rooms", "tournaments", "tournament_entries"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("club_id", sa.Integer(), nullable=True))
            if table == "tournaments":
                batch.add_column(sa.Column("battle_best", sa.Integer(), nullable=True))
            batch.create_foreign_key(
                op.f(f"fk_{table}_club_id_clubs"), "clubs", ["club_id"], ["id"]
            )
            batch.create_index(op.f(f"ix_{table}_club_id"), ["club_id"])


def downgrade() -> None:
    for table in ("tournament_entries", "tournaments", "rooms"):
        with op.batch_alter_table(table) as batch:
            batch.drop_index(op.f(f"ix_{table}_club_id"))
            batch.drop_constraint(op.f(f"fk_{table}_club_id_clubs"), type_="foreignkey")
            if table == "tournaments":
                batch.drop_column("battle_best")
            batch.drop_column("club_id")
    op.drop_index(op.f("ix_tournament_clubs_club_id"), table_name="tournament_clubs")
    op.drop_table("tournament_clubs")
    op.drop_index(op.f("ix_club_requests_player_id"), table_name="club_requests")
    op.drop_table("club_requests")
    op.drop_index(op.f("ix_club_members_player_id"), table_name="club_members")
    op.drop_table("club_members")
    op.drop_table("clubs")
