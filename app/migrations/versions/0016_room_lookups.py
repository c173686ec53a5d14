"""Indexes on ``challenges.room_id`` and ``tournament_tables.room_id``: a room's view asks
whether a challenge made the room (its ``rematch`` flag), and every set's end asks whether its
room is a tournament's table; neither lookup by room may scan the whole table.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(op.f("ix_challenges_room_id"), "challenges", ["room_id"])
    op.create_index(op.f("ix_tournament_tables_room_id"), "tournament_tables", ["room_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_tournament_tables_room_id"), table_name="tournament_tables")
    op.drop_index(op.f("ix_challenges_room_id"), table_name="challenges")
