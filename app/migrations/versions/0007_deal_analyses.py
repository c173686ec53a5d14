"""The analysis of finished deals.

* ``deal_analyses``: one row per analysed deal (``engine.analysis``); ``body`` NULL while it is
  being computed, the analysis as JSON once done. Deleted with its deal.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "deal_analyses",
        sa.Column("deal_id", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("body", sa.JSON(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["deal_id"],
            ["deals.id"],
            name=op.f("fk_deal_analyses_deal_id_deals"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("deal_id", name=op.f("pk_deal_analyses")),
    )


def downgrade() -> None:
    op.drop_table("deal_analyses")
