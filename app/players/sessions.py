"""Tokens: a guest's first token lives on its player row; every login adds a session row.

Both are stored only as the HMAC of the token (app.api.auth.hash_token), so a leaked database
leaks no usable token, and a lookup stays one indexed equality.
"""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.store import players
from app.store.models import Player, PlayerSession


async def player_for_token_hash(session: AsyncSession, *, token_hash: str) -> Player | None:
    """The player a token belongs to: its guest token, or a session from a login."""
    player = await players.get_player_by_token_hash(session, token_hash=token_hash)
    if player is not None:
        return player
    return await session.scalar(
        select(Player)
        .join(PlayerSession, PlayerSession.player_id == Player.id)
        .where(PlayerSession.token_hash == token_hash)
    )


async def add_session(session: AsyncSession, *, player_id: str, token_hash: str) -> None:
    session.add(PlayerSession(player_id=player_id, token_hash=token_hash))
    await session.flush()


async def end_session(
    session: AsyncSession, *, player: Player, token_hash: str, replacement_hash: str
) -> None:
    """That token stops working. A login's session row goes; a guest's first token (which lives
    on the player row) is overwritten with ``replacement_hash``, the HMAC of a token nobody has."""
    if player.token_hash == token_hash:
        player.token_hash = replacement_hash
    else:
        await session.execute(
            delete(PlayerSession).where(
                PlayerSession.token_hash == token_hash, PlayerSession.player_id == player.id
            )
        )
    await session.flush()
