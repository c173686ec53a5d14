"""Stored chat: the lines and phrases said at rated tables, for the moderators' queue.

* ``chat_log``: who said what at which room (and set), when; removed after
  ``GAPLE_CHAT_RETENTION_DAYS`` (the sweeper).
* ``seats.client_mark``, ``set_players.client_mark``: a keyed hash of the seated player's address
  (app/clients.py), so the screening can see two accounts at one rated table from one address;
  ``tournament_entries.client_mark``, the entering request's, for GAPLE_APART_BY_ADDRESS.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chat_log",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("room_id", sa.String(32), nullable=False),
        sa.Column("set_id", sa.Integer(), nullable=True),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("text", sa.String(200), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('chat', 'phrase')", name=op.f("ck_chat_log_kind")),
        sa.ForeignKeyConstraint(
            ["room_id"], ["rooms.id"], name=op.f("fk_chat_log_room_id_rooms"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["set_id"],
            ["game_sets.id"],
            name=op.f("fk_chat_log_set_id_game_sets"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_chat_log_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_log")),
    )
    op.create_index("ix_chat_log_room_id_at", "chat_log", ["room_id", "at"])
    op.create_index("ix_chat_log_player_id_at", "chat_log", ["player_id", "at"])
    op.create_index("ix_chat_log_at", "chat_log", ["at"])
    for table in ("seats", "set_players", "tournament_entries"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("client_mark", sa.String(16), nullable=True))


def downgrade() -> None:
    for table in ("tournament_entries", "set_players", "seats"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("client_mark")
    op.drop_index("ix_chat_log_at", table_name="chat_log")
    op.drop_index("ix_chat_log_player_id_at", table_name="chat_log")
    op.drop_index("ix_chat_log_room_id_at", table_name="chat_log")
    op.drop_table("chat_log")
