"""Bans: an operator stops a player. Every token of a banned player stops working — its guest
token and every login session alike — because authentication checks the player, not the token
(app/api/auth.py for REST, app/ws/endpoint.py for a table's hello). Unbanning restores them.

The row keeps when and why (``players.banned_at``, ``players.banned_reason``); sending the
player's open sockets away is the live layer's part (``LiveTables.player_banned``).
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.store import players
from app.store.models import Player
from app.store.types import utcnow

MAX_REASON_LENGTH = 200  # players.banned_reason


def is_banned(player: Player) -> bool:
    return player.banned_at is not None


async def ban(session: AsyncSession, *, player_id: str, reason: str | None) -> Player | None:
    """Ban the player (again: the reason is replaced, the first time kept). None: no such
    player. Flushes; the caller commits."""
    player = await players.get_player(session, player_id=player_id)
    if player is None:
        return None
    if player.banned_at is None:
        player.banned_at = utcnow()
    player.banned_reason = reason
    await session.flush()
    return player


async def unban(session: AsyncSession, *, player_id: str) -> Player | None:
    """Lift the ban (a player who is not banned stays as they are). None: no such player."""
    player = await players.get_player(session, player_id=player_id)
    if player is None:
        return None
    player.banned_at = None
    player.banned_reason = None
    await session.flush()
    return player
