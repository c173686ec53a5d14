"""Tournament tables are rooms: ``rooms.tournament_id`` (the tournament whose table the room
plays, indexed) and ``rooms.round`` (that table's round); both NULL for every other room.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # SQLite cannot add a foreign key in place: batch mode copies the table.
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("tournament_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("round", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            op.f("fk_rooms_tournament_id_tournaments"), "tournaments", ["tournament_id"], ["id"]
        )
        batch.create_index(op.f("ix_rooms_tournament_id"), ["tournament_id"])


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_index(op.f("ix_rooms_tournament_id"))
        batch.drop_constraint(op.f("fk_rooms_tournament_id_tournaments"), type_="foreignkey")
        batch.drop_column("round")
        batch.drop_column("tournament_id")
