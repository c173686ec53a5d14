"""Bans, and deals dealt from a committed secret.

* ``players.banned_at`` / ``players.banned_reason``: set by an operator; a banned player's tokens
  stop working (REST and WebSocket alike).
* ``deals.shuffle``: which shuffle dealt the deal: ``'seed'`` (the engine's seeded shuffle, every
  deal stored before this revision) or ``'fair'`` (docs/FAIRNESS.md: SHA-256 of a secret drawn at
  the deal's start). ``deals.secret`` holds that secret (64 lowercase hex characters);
  ``deals.seed`` becomes optional, since a fair deal has none.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SHUFFLE = "ck_deals_shuffle"
SHUFFLES = "shuffle IN ('seed', 'fair')"


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("banned_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("banned_reason", sa.String(200), nullable=True))
    with op.batch_alter_table("deals") as batch:
        batch.add_column(sa.Column("shuffle", sa.String(8), nullable=False, server_default="seed"))
        batch.add_column(sa.Column("secret", sa.String(64), nullable=True))
        batch.alter_column("seed", existing_type=sa.BigInteger(), nullable=True)
        batch.create_check_constraint(op.f(SHUFFLE), sa.text(SHUFFLES))


def downgrade() -> None:
    # A fair deal has no seed to fall back on: it cannot survive the older schema.
    op.execute(sa.text("DELETE FROM deals WHERE shuffle = 'fair'"))
    with op.batch_alter_table("deals") as batch:
        batch.drop_constraint(op.f(SHUFFLE), type_="check")
        batch.alter_column("seed", existing_type=sa.BigInteger(), nullable=False)
        batch.drop_column("secret")
        batch.drop_column("shuffle")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("banned_reason")
        batch.drop_column("banned_at")
