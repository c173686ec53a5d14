"""Tokens: random bearer secrets. A guest's first token lives on its player row; every login adds
a session row.

Both are stored only as the HMAC of the token keyed by the server secret (``hash_token``), so a
leaked database leaks no usable token, and a lookup stays one indexed equality (HMAC is
deterministic, unlike a salted password hash — fine for 256-bit random tokens).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.batch import BatchedLoad
from app.store.db import Database
from app.store.models import Player, PlayerSession


async def player_for_token_hash(session: AsyncSession, *, token_hash: str) -> Player | None:
    """The player a token belongs to: its guest token, or a session from a login."""
    return (await players_for_token_hashes(session, token_hashes=[token_hash])).get(token_hash)


async def players_for_token_hashes(
    session: AsyncSession, *, token_hashes: Iterable[str]
) -> dict[str, Player]:
    """``player_for_token_hash`` of each token hash that names a player, in two queries."""
    wanted = set(token_hashes)
    query = select(Player).where(Player.token_hash.in_(wanted))
    found = {player.token_hash: player for player in await session.scalars(query)}
    if rest := wanted - found.keys():
        logins = select(PlayerSession.token_hash, Player).join(
            Player, PlayerSession.player_id == Player.id
        )
        rows = await session.execute(logins.where(PlayerSession.token_hash.in_(rest)))
        found |= {token_hash: player for token_hash, player in rows}
    return found


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


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str, *, secret_key: str) -> str:
    return hmac.new(secret_key.encode(), token.encode(), hashlib.sha256).hexdigest()


async def authenticate_token(
    session: AsyncSession, token: str, *, secret_key: str | None = None
) -> Player | None:
    """The player a bearer token belongs to, or None. Read-only.

    ``secret_key`` defaults to the one the app's session factory put in ``session.info``, so the
    WebSocket endpoint can call ``await authenticate_token(session, token)`` with a session from
    ``app.state.db.session()``.
    """
    if not token or len(token) > 256:
        return None
    key = secret_key if secret_key is not None else session.info.get("secret_key")
    if not key:
        raise RuntimeError("authenticate_token needs a session from Database or a secret_key")
    # A guest's first token, or one from a login (app.players.sessions).
    token_hash = hash_token(token, secret_key=key)
    return await player_for_token_hash(session, token_hash=token_hash)


class Logins:
    """The players that sockets' tokens name (their ``hello``). The sockets that say hello in
    the same moment (a tournament round's players arriving at their tables) are looked up
    together, in one query."""

    def __init__(self, db: Database, *, secret_key: str) -> None:
        self._db = db
        self._secret_key = secret_key
        self._players: BatchedLoad[str, Player] = BatchedLoad(self._fetch)

    async def player(self, token: str) -> Player | None:
        """The player ``token`` names, or None (as ``authenticate_token``)."""
        if not token or len(token) > 256:
            return None
        return await self._players.load(hash_token(token, secret_key=self._secret_key))

    async def _fetch(self, token_hashes: list[str]) -> dict[str, Player]:
        async with self._db.session() as session:
            return await players_for_token_hashes(session, token_hashes=token_hashes)
