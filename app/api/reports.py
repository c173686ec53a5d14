"""Players' reports: ``POST /api/reports`` (docs/API.md "Fair play").

Thin: parse, call app.players.fairplay, commit. The reported player is never told; the
operators see reports in their queue (app/api/moderation.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, status
from pydantic import BaseModel, ConfigDict, Field

from app.api.auth import CurrentPlayer
from app.api.deps import SessionDep
from app.api.errors import ERROR_SCHEMA, ApiError, Conflict, Invalid, NotFound
from app.api.ratelimit import rate_limit
from app.players import fairplay
from app.players.fairplay import FairPlayError

router = APIRouter(tags=["fairplay"])

Category = Literal["cheating", "collusion", "abuse", "spam", "stalling", "other"]
ReportStatus = Literal["open", "dismissed", "actioned"]

# FairPlayError codes -> the API's error classes.
STATUS: dict[str, type[ApiError]] = {
    "player_not_found": NotFound,
    "not_found": NotFound,
    "not_yourself": Invalid,
    "already_reported": Conflict,
}


def refused(error: FairPlayError) -> ApiError:
    return STATUS[error.code](error.message, code=error.code, field=error.field)


def _err(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_SCHEMA}}}


class ReportIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player_id: Annotated[str, Field(min_length=1, max_length=32)]
    category: Category
    text: Annotated[str, Field(max_length=fairplay.MAX_REPORT_TEXT)] = ""
    set_id: int | None = Field(default=None, description="The set it happened in, if one")


class ReportOut(BaseModel):
    id: int
    player_id: str
    category: Category
    text: str
    set_id: int | None
    status: ReportStatus
    created_at: datetime


@router.post(
    "/reports",
    status_code=status.HTTP_201_CREATED,
    responses={
        401: _err("Missing or invalid token"),
        404: _err("`player_not_found`: no such player; `not_found`: no such set"),
        409: _err("`already_reported`: the caller's report about this player is still open"),
        422: _err("`not_yourself`, or invalid input; `field` names it"),
    },
    dependencies=[Depends(rate_limit("reports"))],
)
async def create_report(body: ReportIn, player: CurrentPlayer, session: SessionDep) -> ReportOut:
    """Report a player to the operators. One open report per reporter and player; the
    reported player is never told. Limited per address (GAPLE_RATE_REPORTS)."""
    try:
        row = await fairplay.report(
            session,
            reporter=player,
            player_id=body.player_id,
            category=body.category,
            text=body.text.strip(),
            set_id=body.set_id,
        )
    except FairPlayError as error:
        raise refused(error) from None
    await session.commit()
    return ReportOut(
        id=row.id,
        player_id=row.player_id,
        category=row.category,  # type: ignore[arg-type]  # checked by the database
        text=row.text,
        set_id=row.set_id,
        status=row.status,  # type: ignore[arg-type]
        created_at=row.created_at,
    )
