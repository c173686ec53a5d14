"""Fair play: players' reports, mutes, and the operators' audit log.

* ``reports``: who reported whom, the category, the text, the set if one was named; ``open``
  until an operator dismisses it or acts on the player (``actioned``).
* ``mutes``: every mute a player had (its end, and when it was lifted early, if it was).
* ``audit_log``: every operator's action under /api/admin: who, what, whom, why, from where.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-11
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _player_fk(table: str, column: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["players.id"], name=op.f(f"fk_{table}_{column}_players")
    )


def upgrade() -> None:
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("reporter_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("category", sa.String(12), nullable=False),
        sa.Column("text", sa.String(500), nullable=False),
        sa.Column("set_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("closed_by", sa.String(40), nullable=True),
        sa.CheckConstraint(
            "category IN ('cheating', 'collusion', 'abuse', 'spam', 'stalling', 'other')",
            name=op.f("ck_reports_category"),
        ),
        sa.CheckConstraint(
            "status IN ('open', 'dismissed', 'actioned')", name=op.f("ck_reports_status")
        ),
        sa.CheckConstraint("reporter_id <> player_id", name=op.f("ck_reports_not_self")),
        _player_fk("reports", "reporter_id"),
        _player_fk("reports", "player_id"),
        sa.ForeignKeyConstraint(
            ["set_id"], ["game_sets.id"], name=op.f("fk_reports_set_id_game_sets")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reports")),
    )
    op.create_index("ix_reports_status_player_id", "reports", ["status", "player_id"])
    op.create_index("ix_reports_reporter_id_player_id", "reports", ["reporter_id", "player_id"])
    op.create_table(
        "mutes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("operator", sa.String(40), nullable=False),
        sa.Column("reason", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lifted_at", sa.DateTime(timezone=True), nullable=True),
        _player_fk("mutes", "player_id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mutes")),
    )
    op.create_index("ix_mutes_player_id_until", "mutes", ["player_id", "until"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("operator", sa.String(40), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(80), nullable=False),
        sa.Column("reason", sa.String(200), nullable=True),
        sa.Column("client", sa.String(64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )


def downgrade() -> None:
    op.drop_table("audit_log")
    op.drop_index("ix_mutes_player_id_until", table_name="mutes")
    op.drop_table("mutes")
    op.drop_index("ix_reports_reporter_id_player_id", table_name="reports")
    op.drop_index("ix_reports_status_player_id", table_name="reports")
    op.drop_table("reports")
