"""The social graph: friendships, blocks, stored notifications.

* ``friendships``: one row per unordered pair (``low_id < high_id``), ``requested`` by
  ``requester_id`` or ``friends``; no row is no tie.
* ``blocks``: who blocks whom (one direction).
* ``notifications``: per player, a ``kind`` and its JSON ``payload``, ``read_at`` once read;
  the last 100 per player are kept.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-09
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _player_fk(table: str, column: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["players.id"], name=op.f(f"fk_{table}_{column}_players")
    )


def upgrade() -> None:
    op.create_table(
        "friendships",
        sa.Column("low_id", sa.String(32), nullable=False),
        sa.Column("high_id", sa.String(32), nullable=False),
        sa.Column("requester_id", sa.String(32), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("low_id < high_id", name=op.f("ck_friendships_ordered_pair")),
        sa.CheckConstraint(
            "requester_id = low_id OR requester_id = high_id",
            name=op.f("ck_friendships_requester"),
        ),
        sa.CheckConstraint("state IN ('requested', 'friends')", name=op.f("ck_friendships_state")),
        _player_fk("friendships", "low_id"),
        _player_fk("friendships", "high_id"),
        sa.PrimaryKeyConstraint("low_id", "high_id", name=op.f("pk_friendships")),
    )
    op.create_index(op.f("ix_friendships_high_id"), "friendships", ["high_id"])
    op.create_table(
        "blocks",
        sa.Column("blocker_id", sa.String(32), nullable=False),
        sa.Column("blocked_id", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("blocker_id <> blocked_id", name=op.f("ck_blocks_not_self")),
        _player_fk("blocks", "blocker_id"),
        _player_fk("blocks", "blocked_id"),
        sa.PrimaryKeyConstraint("blocker_id", "blocked_id", name=op.f("pk_blocks")),
    )
    op.create_index(op.f("ix_blocks_blocked_id"), "blocks", ["blocked_id"])
    op.create_table(
        "notifications",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("read_at", sa.DateTime(timezone=True), nullable=True),
        _player_fk("notifications", "player_id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notifications")),
    )
    op.create_index(op.f("ix_notifications_player_id_id"), "notifications", ["player_id", "id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_notifications_player_id_id"), table_name="notifications")
    op.drop_table("notifications")
    op.drop_index(op.f("ix_blocks_blocked_id"), table_name="blocks")
    op.drop_table("blocks")
    op.drop_index(op.f("ix_friendships_high_id"), table_name="friendships")
    op.drop_table("friendships")
