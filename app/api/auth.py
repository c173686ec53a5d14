"""The REST edge of authentication: a bearer token on a request names its player (the tokens
themselves are app/players/sessions.py's)."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from fastapi import Depends, FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.api.deps import SessionDep
from app.api.errors import ERROR_SCHEMA, Forbidden, Unauthorized
from app.api.ratelimit import _api_routes
from app.players import bans
from app.players.sessions import authenticate_token
from app.store import players
from app.store.models import Player
from app.store.types import utcnow

# Writing last_seen_at on every request would turn reads into writes; once a minute is plenty.
LAST_SEEN_RESOLUTION = timedelta(minutes=1)

_bearer = HTTPBearer(auto_error=False, description="The token from POST /api/guests")


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
