"""Guest tokens: random bearer secrets, stored only as an HMAC keyed by the server secret.

A leaked database therefore doesn't leak usable tokens, and lookups stay a single indexed
equality (HMAC is deterministic, unlike a salted password hash — fine for 256-bit random tokens).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta
from typing import Annotated, Any

from fastapi import Depends, FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.deps import SessionDep
from app.api.errors import ERROR_SCHEMA, Forbidden, Unauthorized
from app.api.ratelimit import _api_routes
from app.players import bans, sessions
from app.store import players
from app.store.models import Player
from app.store.types import utcnow

# Writing last_seen_at on every request would turn reads into writes; once a minute is plenty.
LAST_SEEN_RESOLUTION = timedelta(minutes=1)

_bearer = HTTPBearer(auto_error=False, description="The token from POST /api/guests")


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
    return await sessions.player_for_token_hash(session, token_hash=token_hash)


async def current_player(
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Player:
    """The authenticated player, or a 401 in the common error shape."""
    challenge = {"WWW-Authenticate": "Bearer"}
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise Unauthorized("missing bearer token (POST /api/guests to get one)", headers=challenge)
    player = await authenticate_token(session, credentials.credentials)
    if player is None:
        raise Unauthorized("invalid or expired token", headers=challenge)
    if bans.is_banned(player):
        raise Forbidden("this player is banned", code="banned")
    if utcnow() - player.last_seen_at > LAST_SEEN_RESOLUTION:
        await players.touch_player(session, player=player)
        await session.commit()
    return player


CurrentPlayer = Annotated[Player, Depends(current_player)]


def _needs_player(dependant: Dependant) -> bool:
    return any(dep.call is current_player or _needs_player(dep) for dep in dependant.dependencies)


_BANNED: dict[str, Any] = {
    "description": "`banned`: an operator banned this player (or, on some routes, not allowed)",
    "content": {"application/json": {"schema": ERROR_SCHEMA}},
}


def document_bans(app: FastAPI) -> None:
    """Every route that authenticates a player may answer 403 ``banned``: say so in OpenAPI."""
    for route in _api_routes(app.routes):
        if _needs_player(route.dependant):
            route.responses.setdefault(403, _BANNED)
