"""Stored chat: the lines said at rated tables (``chat_log``), for the moderators.

Repository functions, keyword-only, on a session the caller holds: they flush but never commit.
Which tables keep their chat, and for how long, is app/players/fairplay.py's.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import ChatLogLine


async def add_line(
    session: AsyncSession,
    *,
    room_id: str,
    set_id: int | None,
    player_id: str,
    name: str | None,
    seat: int | None,
    kind: str,
    text: str,
    at: datetime,
) -> ChatLogLine:
    row = ChatLogLine(
        room_id=room_id,
        set_id=set_id,
        player_id=player_id,
        name=name,
        seat=seat,
        kind=kind,
        text=text,
        at=at,
    )
    session.add(row)
    await session.flush()
    return row


async def remove_before(session: AsyncSession, *, at: datetime) -> int:
    """Remove the lines said before ``at``; how many."""
    result = await session.execute(
        delete(ChatLogLine).where(ChatLogLine.at < at).execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0))


async def rooms_spoken_in(
    session: AsyncSession, *, player_id: str, since: datetime, until: datetime
) -> list[str]:
    """The rooms where the player said something between ``since`` and ``until``."""
    query = (
        select(ChatLogLine.room_id)
        .where(
            ChatLogLine.player_id == player_id,
            ChatLogLine.at >= since,
            ChatLogLine.at <= until,
        )
        .distinct()
    )
    return list((await session.execute(query)).scalars())


async def lines_around(
    session: AsyncSession,
    *,
    room_ids: list[str],
    set_id: int | None,
    at: datetime,
    before: int,
    after: int,
) -> list[ChatLogLine]:
    """At most ``before`` lines said up to ``at`` and ``after`` lines said after it, in the
    rooms (or only the set, when one is named), oldest first."""
    scope = (
        ChatLogLine.set_id == set_id if set_id is not None else ChatLogLine.room_id.in_(room_ids)
    )
    earlier = (
        select(ChatLogLine)
        .where(scope, ChatLogLine.at <= at)
        .order_by(ChatLogLine.at.desc(), ChatLogLine.id.desc())
        .limit(before)
    )
    later = (
        select(ChatLogLine)
        .where(scope, ChatLogLine.at > at)
        .order_by(ChatLogLine.at, ChatLogLine.id)
        .limit(after)
    )
    first = list((await session.execute(earlier)).scalars())
    rest = list((await session.execute(later)).scalars())
    return [*reversed(first), *rest]
