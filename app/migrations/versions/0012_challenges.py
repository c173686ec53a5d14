"""Challenges and Ganda parties.

* ``challenges``: a challenger's invitation to a table with given settings, its status, the
  room made once everyone accepted, when it expires.
* ``challenge_invitees``: each invited player (in the order named) and their answer.
* ``parties``: two players who quick-play Ganda as partners, ``invited`` or ``accepted``.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-11
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str) -> sa.Column:  # type: ignore[type-arg]
    # The models use UTCDateTime, a TypeDecorator over exactly this type.
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False)


def _player_fk(table: str, column: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["players.id"], name=op.f(f"fk_{table}_{column}_players")
    )


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("from_id", sa.String(32), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("partner_id", sa.String(32), nullable=True),
        sa.Column("open_seats", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("room_id", sa.String(32), nullable=True),
        _when("created_at"),
        _when("expires_at"),
        _player_fk("challenges", "from_id"),
        sa.ForeignKeyConstraint(
            ["room_id"], ["rooms.id"], name=op.f("fk_challenges_room_id_rooms")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_challenges")),
    )
    op.create_index(op.f("ix_challenges_from_id"), "challenges", ["from_id"])
    op.create_table(
        "challenge_invitees",
        sa.Column("challenge_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("answer", sa.String(16), nullable=False),
        sa.ForeignKeyConstraint(
            ["challenge_id"],
            ["challenges.id"],
            name=op.f("fk_challenge_invitees_challenge_id_challenges"),
            ondelete="CASCADE",
        ),
        _player_fk("challenge_invitees", "player_id"),
        sa.PrimaryKeyConstraint("challenge_id", "player_id", name=op.f("pk_challenge_invitees")),
    )
    op.create_index(op.f("ix_challenge_invitees_player_id"), "challenge_invitees", ["player_id"])
    op.create_table(
        "parties",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("inviter_id", sa.String(32), nullable=False),
        sa.Column("invitee_id", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        _when("created_at"),
        _when("updated_at"),
        _player_fk("parties", "inviter_id"),
        _player_fk("parties", "invitee_id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_parties")),
    )
    op.create_index(op.f("ix_parties_inviter_id"), "parties", ["inviter_id"])
    op.create_index(op.f("ix_parties_invitee_id"), "parties", ["invitee_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_parties_invitee_id"), table_name="parties")
    op.drop_index(op.f("ix_parties_inviter_id"), table_name="parties")
    op.drop_table("parties")
    op.drop_index(op.f("ix_challenge_invitees_player_id"), table_name="challenge_invitees")
    op.drop_table("challenge_invitees")
    op.drop_index(op.f("ix_challenges_from_id"), table_name="challenges")
    op.drop_table("challenges")
