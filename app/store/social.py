"""The social graph's rows: friendships, blocks, notifications.

Repository functions, keyword-only, on a session the caller holds: they flush but never commit.
The rules (who may ask whom, what a block ends) are app/players/social.py's.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import Block, Friendship, Notification
from app.store.types import utcnow

FRIENDS, REQUESTED = "friends", "requested"


def pair(a: str, b: str) -> tuple[str, str]:
    """The row's key for two players: their ids in order."""
    return (a, b) if a < b else (b, a)


def other_of(row: Friendship, player_id: str) -> str:
    return row.high_id if row.low_id == player_id else row.low_id


# --- friendships ----------------------------------------------------------------------------------


async def get_friendship(session: AsyncSession, *, a: str, b: str) -> Friendship | None:
    low, high = pair(a, b)
    return await session.get(Friendship, (low, high), populate_existing=True)


async def add_request(session: AsyncSession, *, requester_id: str, other_id: str) -> Friendship:
    low, high = pair(requester_id, other_id)
    now = utcnow()
    row = Friendship(
        low_id=low,
        high_id=high,
        requester_id=requester_id,
        state=REQUESTED,
        created_at=now,
        updated_at=now,
    )
    session.add(row)
    await session.flush()
    return row


async def make_friends(session: AsyncSession, *, row: Friendship) -> None:
    row.state = FRIENDS
    row.updated_at = utcnow()
    await session.flush()


async def delete_friendship(session: AsyncSession, *, a: str, b: str) -> bool:
    low, high = pair(a, b)
    result = await session.execute(
        delete(Friendship).where(Friendship.low_id == low, Friendship.high_id == high)
    )
    return bool(getattr(result, "rowcount", 0))


def _involving(player_id: str) -> Any:
    return or_(Friendship.low_id == player_id, Friendship.high_id == player_id)


async def count_friends(session: AsyncSession, *, player_id: str) -> int:
    query = select(func.count()).where(_involving(player_id), Friendship.state == FRIENDS)
    return int(await session.scalar(query) or 0)


async def ties_of(session: AsyncSession, *, player_id: str) -> list[Friendship]:
    """Every friendship and request the player is part of, oldest change first."""
    query = (
        select(Friendship)
        .where(_involving(player_id))
        .order_by(Friendship.updated_at, Friendship.low_id, Friendship.high_id)
    )
    return list((await session.execute(query)).scalars())


# --- blocks ---------------------------------------------------------------------------------------


async def get_block(session: AsyncSession, *, blocker_id: str, blocked_id: str) -> Block | None:
    return await session.get(Block, (blocker_id, blocked_id))


async def add_block(session: AsyncSession, *, blocker_id: str, blocked_id: str) -> Block:
    row = Block(blocker_id=blocker_id, blocked_id=blocked_id)
    session.add(row)
    await session.flush()
    return row


async def delete_block(session: AsyncSession, *, blocker_id: str, blocked_id: str) -> bool:
    result = await session.execute(
        delete(Block).where(Block.blocker_id == blocker_id, Block.blocked_id == blocked_id)
    )
    return bool(getattr(result, "rowcount", 0))


async def blocks_by(session: AsyncSession, *, blocker_id: str) -> list[Block]:
    """Whom the player blocks, oldest first."""
    query = (
        select(Block)
        .where(Block.blocker_id == blocker_id)
        .order_by(Block.created_at, Block.blocked_id)
    )
    return list((await session.execute(query)).scalars())


async def blocked_either_way(session: AsyncSession, *, player_id: str) -> set[str]:
    """The players this one blocks or is blocked by."""
    rows = await session.execute(
        select(Block.blocker_id, Block.blocked_id).where(
            or_(Block.blocker_id == player_id, Block.blocked_id == player_id)
        )
    )
    return {blocked if blocker == player_id else blocker for blocker, blocked in rows}


async def blocks_among(
    session: AsyncSession, *, player_ids: Iterable[str]
) -> frozenset[tuple[str, str]]:
    """(blocker, blocked) for every block between two of ``player_ids``."""
    ids = set(player_ids)
    if len(ids) < 2:
        return frozenset()
    rows = await session.execute(
        select(Block.blocker_id, Block.blocked_id).where(
            Block.blocker_id.in_(ids), Block.blocked_id.in_(ids)
        )
    )
    return frozenset((blocker, blocked) for blocker, blocked in rows)


# --- notifications --------------------------------------------------------------------------------


async def add_notification(
    session: AsyncSession, *, player_id: str, kind: str, payload: dict[str, Any], keep: int
) -> Notification:
    """Store one, and forget the player's older ones beyond the last ``keep``."""
    row = Notification(player_id=player_id, kind=kind, payload=payload)
    session.add(row)
    await session.flush()
    kept = (
        select(Notification.id)
        .where(Notification.player_id == player_id)
        .order_by(Notification.id.desc())
        .limit(keep)
    )
    await session.execute(
        delete(Notification).where(
            Notification.player_id == player_id, Notification.id.not_in(kept.scalar_subquery())
        )
    )
    return row


async def add_notifications(
    session: AsyncSession, *, rows: Iterable[tuple[str, str, dict[str, Any]]], keep: int
) -> list[Notification]:
    """Store many at once, (player, kind, payload) each, and forget each player's older ones
    beyond the last ``keep``: one INSERT and one DELETE, however many (a tournament round
    notifies every entrant). The stored rows, in no particular order."""
    values = [{"player_id": p, "kind": kind, "payload": payload} for p, kind, payload in rows]
    if not values:
        return []
    # The rows come back in no set order (SQLite cannot promise one for a single INSERT).
    made = list(await session.scalars(insert(Notification).returning(Notification), values))
    ranked = (
        select(
            Notification.id,
            func.row_number()
            .over(partition_by=Notification.player_id, order_by=Notification.id.desc())
            .label("place"),
        )
        .where(Notification.player_id.in_({row.player_id for row in made}))
        .subquery()
    )
    beyond = select(ranked.c.id).where(ranked.c.place > keep)
    await session.execute(delete(Notification).where(Notification.id.in_(beyond)))
    return made


async def notifications_of(session: AsyncSession, *, player_id: str) -> list[Notification]:
    """The player's notifications, newest first."""
    query = (
        select(Notification)
        .where(Notification.player_id == player_id)
        .order_by(Notification.id.desc())
    )
    return list((await session.execute(query)).scalars())


async def mark_read(
    session: AsyncSession, *, player_id: str, ids: list[int] | None, at: datetime
) -> int:
    """Mark the player's unread notifications among ``ids`` (None: all) read; how many were."""
    conditions = [Notification.player_id == player_id, Notification.read_at.is_(None)]
    if ids is not None:
        conditions.append(Notification.id.in_(set(ids)))
    result = await session.execute(
        update(Notification)
        .where(*conditions)
        .values(read_at=at)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0))


async def delete_notifications_about(
    session: AsyncSession, *, player_id: str, kind: str, about: str
) -> None:
    """Forget ``player_id``'s notifications of ``kind`` whose payload names ``about``."""
    await session.execute(
        delete(Notification).where(
            and_(
                Notification.player_id == player_id,
                Notification.kind == kind,
                Notification.payload["player_id"].as_string() == about,
            )
        )
    )
