"""Challenges' rows: the challenge and its invitees. Keyword-only, on the caller's session: they
flush but never commit. The rules are app/rooms/challenges.py's."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import Challenge, ChallengeInvitee


async def add_challenge(
    session: AsyncSession,
    *,
    from_id: str,
    to: list[str],
    settings: dict[str, Any],
    partner_id: str | None,
    open_seats: bool,
    expires_at: datetime,
) -> Challenge:
    row = Challenge(
        from_id=from_id,
        settings=settings,
        partner_id=partner_id,
        open_seats=open_seats,
        status="pending",
        expires_at=expires_at,
    )
    session.add(row)
    await session.flush()
    for position, player_id in enumerate(to):
        session.add(
            ChallengeInvitee(
                challenge_id=row.id, player_id=player_id, position=position, answer="pending"
            )
        )
    await session.flush()
    return row


async def get_challenge(session: AsyncSession, *, challenge_id: str) -> Challenge | None:
    return await session.get(Challenge, challenge_id, populate_existing=True)


async def invitees_of(session: AsyncSession, *, challenge_id: str) -> list[ChallengeInvitee]:
    """The invitees in the order the challenger named them."""
    query = (
        select(ChallengeInvitee)
        .where(ChallengeInvitee.challenge_id == challenge_id)
        .order_by(ChallengeInvitee.position)
        .execution_options(populate_existing=True)
    )
    return list((await session.execute(query)).scalars())


async def overdue(session: AsyncSession, *, now: datetime, limit: int) -> list[str]:
    """Ids of pending challenges past their ``expires_at``, the longest overdue first."""
    query = (
        select(Challenge.id)
        .where(Challenge.status == "pending", Challenge.expires_at <= now)
        .order_by(Challenge.expires_at)
        .limit(limit)
    )
    return list((await session.scalars(query)).all())


async def made_room(session: AsyncSession, *, room_id: str) -> bool:
    """Whether the room is the table a challenge made."""
    query = select(Challenge.id).where(Challenge.room_id == room_id).limit(1)
    return await session.scalar(query) is not None
