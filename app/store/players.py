"""Repository for guest players. Functions take the session first, then keyword-only args;
they flush but never commit — the caller owns the transaction."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import Player
from app.store.types import utcnow


async def create_player(session: AsyncSession, *, name: str, token_hash: str) -> Player:
    player = Player(name=name, token_hash=token_hash)
    session.add(player)
    await session.flush()
    return player


async def get_player(session: AsyncSession, *, player_id: str) -> Player | None:
    return await session.get(Player, player_id)


async def get_player_names(session: AsyncSession, *, player_ids: list[str]) -> dict[str, str]:
    if not player_ids:
        return {}
    result = await session.execute(
        select(Player.id, Player.name).where(Player.id.in_(set(player_ids)))
    )
    return {row.id: row.name for row in result}


async def presence_hidden(session: AsyncSession, *, player_ids: list[str]) -> dict[str, bool]:
    """Whether each of the players hides their presence (unknown ids are left out)."""
    if not player_ids:
        return {}
    result = await session.execute(
        select(Player.id, Player.presence_hidden).where(Player.id.in_(set(player_ids)))
    )
    return {row.id: row.presence_hidden for row in result}


async def touch_player(
    session: AsyncSession, *, player: Player, now: datetime | None = None
) -> None:
    player.last_seen_at = now or utcnow()
    await session.flush()
