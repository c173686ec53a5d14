"""Parties' rows. Keyword-only, on the caller's session: they flush but never commit. The rules
are app/players/parties.py's."""

from __future__ import annotations

from sqlalchemy import delete, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import Party
from app.store.types import utcnow

INVITED, ACCEPTED = "invited", "accepted"


async def add_party(session: AsyncSession, *, inviter_id: str, invitee_id: str) -> Party:
    now = utcnow()
    row = Party(
        inviter_id=inviter_id,
        invitee_id=invitee_id,
        status=INVITED,
        created_at=now,
        updated_at=now,
    )
    session.add(row)
    await session.flush()
    return row


async def get_party(session: AsyncSession, *, party_id: str) -> Party | None:
    return await session.get(Party, party_id, populate_existing=True)


async def parties_of(session: AsyncSession, *, player_id: str) -> list[Party]:
    """Every party and invitation the player is part of, oldest first."""
    query = (
        select(Party)
        .where(or_(Party.inviter_id == player_id, Party.invitee_id == player_id))
        .order_by(Party.created_at, Party.id)
        .execution_options(populate_existing=True)
    )
    return list((await session.execute(query)).scalars())


async def partner_of(session: AsyncSession, *, player_id: str) -> str | None:
    """The player's partner in their accepted party, or None."""
    for row in await parties_of(session, player_id=player_id):
        if row.status == ACCEPTED:
            return row.invitee_id if row.inviter_id == player_id else row.inviter_id
    return None


async def delete_party(session: AsyncSession, *, party_id: str) -> None:
    await session.execute(delete(Party).where(Party.id == party_id))
