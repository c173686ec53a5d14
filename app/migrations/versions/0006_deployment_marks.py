"""Deployment marks: facts about the deployment every node must agree on.

* ``deployment_marks``: ``name`` -> ``value``. A node with Redis writes ``clustered`` (its Redis
  key prefix) at start; a node without Redis refuses to start on a database that has it
  (docs/DEPLOY.md).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "deployment_marks",
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("value", sa.String(200), nullable=False),
        sa.Column("marked_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_deployment_marks")),
    )


def downgrade() -> None:
    op.drop_table("deployment_marks")
