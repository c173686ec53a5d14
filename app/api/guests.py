"""POST /api/guests: become a guest player; GET /api/guests/me: who the token belongs to."""

from __future__ import annotations

from fastapi import APIRouter, Depends, status

from app.api import lobby
from app.api.auth import CurrentPlayer
from app.api.deps import SessionDep, SettingsDep
from app.api.errors import ERROR_SCHEMA
from app.api.ratelimit import rate_limit
from app.api.schemas import GuestIn, GuestOut, PlayerOut

router = APIRouter(prefix="/guests", tags=["guests"])

_ERR = {"content": {"application/json": {"schema": ERROR_SCHEMA}}}


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    responses={422: {"description": "Bad name", **_ERR}},
    dependencies=[Depends(rate_limit("guests"))],
)
async def create_guest(body: GuestIn, session: SessionDep, settings: SettingsDep) -> GuestOut:
    player, token = await lobby.create_guest(
        session,
        name=body.name,
        secret_key=settings.secret,
        max_name_length=settings.max_name_length,
    )
    return GuestOut(player_id=player.id, token=token, name=player.name)


@router.get("/me", responses={401: {"description": "No valid token", **_ERR}})
async def me(player: CurrentPlayer) -> PlayerOut:
    return PlayerOut(player_id=player.id, name=player.name)
