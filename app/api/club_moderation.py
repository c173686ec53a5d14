"""The moderators' club actions under /api/admin/clubs: rename a club, close it (docs/API.md
"Clubs"). Mounted with app/api/admin.py and on its terms (an operator's token,
``GAPLE_RATE_ADMIN``, a log line per call, an audit row per change); every role may call them."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request

from app.api import lobby
from app.api.admin import ADMIN, BAD, audited, current_operator
from app.api.clubs import ClubId, refusals, view
from app.api.deps import SessionDep
from app.api.errors import ERROR_SCHEMA
from app.api.ratelimit import rate_limit
from app.api.schemas import ClubOut, ClubRenameIn
from app.players import clubs
from app.store.types import utcnow


def _err(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_SCHEMA}}}


admin_router = APIRouter(
    prefix="/admin/clubs",
    tags=["admin"],
    dependencies=[Depends(rate_limit("admin")), Depends(current_operator)],
    responses=ADMIN,
)


@admin_router.patch("/{club_id}", responses={**BAD, 409: _err("`club_name_taken`")})
async def admin_rename_club(
    request: Request, club_id: ClubId, body: Annotated[ClubRenameIn, Body()], session: SessionDep
) -> ClubOut:
    """Rename the club (to a name no other club has, in any case)."""
    with audited(request, "rename_club", f"club {club_id}") as outcome:
        name = lobby.clean_name(body.name, max_length=clubs.NAME_LENGTH[1])
        with refusals():
            await clubs.rename(session, club_id=club_id, name=name)
        await outcome.store(session, name)
        await session.commit()
    return await view(session, club_id)


@admin_router.post("/{club_id}/close")
async def admin_close_club(request: Request, club_id: ClubId, session: SessionDep) -> ClubOut:
    """Close the club: nobody joins it, its tables and events are no longer made (closed
    already: no change)."""
    with audited(request, "close_club", f"club {club_id}") as outcome:
        with refusals():
            closed = await clubs.close(session, club_id=club_id, at=utcnow())
        if not closed:
            outcome.text = "already closed"
        await outcome.store(session)
        await session.commit()
    return await view(session, club_id)
