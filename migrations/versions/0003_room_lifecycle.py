"""Room lifecycle: statuses open, playing, closed, abandoned; presence; quick play; seats back.

* ``rooms.status``: ``finished`` goes (a room whose set ended is ``open`` again, the host may start
  the next set); ``closed`` and ``abandoned`` are new, with ``rooms.closed_reason``.
* ``rooms.active_at`` (last activity, indexed: the lobby lists newest first) and
  ``rooms.humans_online`` (connected seated humans), ``rooms.quickplay``.
* ``seats.left_by``: on a bot's seat, the player who left it and may take it back.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STATUS = "ck_rooms_status"
NEW_STATUSES = "status IN ('open', 'playing', 'closed', 'abandoned')"
OLD_STATUSES = "status IN ('open', 'playing', 'finished')"


def upgrade() -> None:
    # SQLite cannot alter a CHECK constraint or add a foreign key in place: batch mode copies the
    # table. PostgreSQL alters it in place.
    with op.batch_alter_table("rooms") as batch:
        batch.drop_constraint(op.f(STATUS), type_="check")
        batch.add_column(sa.Column("active_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column("humans_online", sa.Integer(), server_default="0", nullable=False)
        )
        batch.add_column(
            sa.Column("quickplay", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch.add_column(sa.Column("closed_reason", sa.String(length=16), nullable=True))
    op.execute(sa.text("UPDATE rooms SET status = 'open' WHERE status = 'finished'"))
    op.execute(sa.text("UPDATE rooms SET active_at = updated_at"))
    with op.batch_alter_table("rooms") as batch:
        batch.alter_column("active_at", existing_type=sa.DateTime(timezone=True), nullable=False)
        batch.create_check_constraint(op.f(STATUS), sa.text(NEW_STATUSES))
        batch.create_index(op.f("ix_rooms_active_at"), ["active_at"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("left_by", sa.String(length=32), nullable=True))
        batch.create_foreign_key(op.f("fk_seats_left_by_players"), "players", ["left_by"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_constraint(op.f("fk_seats_left_by_players"), type_="foreignkey")
        batch.drop_column("left_by")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_constraint(op.f(STATUS), type_="check")
        batch.drop_index(op.f("ix_rooms_active_at"))
    # The old schema has no final statuses: a closed or abandoned room is a finished one.
    op.execute(
        sa.text("UPDATE rooms SET status = 'finished' WHERE status IN ('closed', 'abandoned')")
    )
    with op.batch_alter_table("rooms") as batch:
        batch.create_check_constraint(op.f(STATUS), sa.text(OLD_STATUSES))
        batch.drop_column("closed_reason")
        batch.drop_column("quickplay")
        batch.drop_column("humans_online")
        batch.drop_column("active_at")
