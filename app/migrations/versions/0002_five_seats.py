"""Five seats: Klasik with 5 players sits seats 0..4 (the seat range check was 0..3).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "ck_seats_seat_range"


def _seat_range(condition: str) -> None:
    # SQLite cannot alter a CHECK constraint: batch mode copies the table (with its other
    # constraints, keys and index) under the new one. PostgreSQL alters it in place.
    with op.batch_alter_table("seats") as batch:
        batch.drop_constraint(op.f(NAME), type_="check")
        batch.create_check_constraint(op.f(NAME), sa.text(condition))


def upgrade() -> None:
    _seat_range("seat >= 0 AND seat < 5")


def downgrade() -> None:
    # Four seats again: whoever sits in seat 4 (a Klasik table of 5) stands up.
    op.execute(sa.text("DELETE FROM seats WHERE seat >= 4"))
    _seat_range("seat >= 0 AND seat < 4")
