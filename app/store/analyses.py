"""Finished deals' analyses: claimed once, filled in when computed (``deal_analyses``).

Repository functions, keyword-only, on a session the caller holds (and commits).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import DealAnalysis
from app.store.types import utcnow


async def get(session: AsyncSession, *, deal_id: int) -> DealAnalysis | None:
    row: DealAnalysis | None = await session.scalar(
        select(DealAnalysis).where(DealAnalysis.deal_id == deal_id)
    )
    return row


async def claim(session: AsyncSession, *, deal_id: int) -> bool:
    """Mark the deal's analysis as being computed and commit; False if a row was there already
    (another request claimed it first)."""
    session.add(DealAnalysis(deal_id=deal_id, body=None))
    try:
        await session.commit()
    except IntegrityError:
        await session.rollback()
        return False
    return True


async def finish(session: AsyncSession, *, deal_id: int, body: dict[str, Any]) -> None:
    row = await session.get(DealAnalysis, deal_id)
    if row is None:  # released meanwhile: keep the answer all the same
        row = DealAnalysis(deal_id=deal_id)
        session.add(row)
    row.body = body
    row.finished_at = utcnow()


async def release(session: AsyncSession, *, deal_id: int) -> None:
    """Forget an analysis that failed, so that a later request computes it again."""
    await session.execute(
        # finished_at, not body, tells: a JSON column stores Python None as JSON null, not NULL.
        delete(DealAnalysis).where(
            DealAnalysis.deal_id == deal_id, DealAnalysis.finished_at.is_(None)
        )
    )
