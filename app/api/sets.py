"""History and replays: a player's sets, and one set's deals. Public: a finished deal hides
nothing, and a deal in play is listed without its tiles (app.players.history)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field

from app.api.deps import SessionDep
from app.api.errors import ERROR_SCHEMA, NotFound
from app.players import history

router = APIRouter(tags=["history"])


def _err(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_SCHEMA}}}


Responses = dict[int | str, dict[str, Any]]
BAD: Responses = {422: _err("Invalid input; `field` names it")}

Status = Literal["finished", "in_play"]


# --- bodies -------------------------------------------------------------------------------------


class RoomRef(BaseModel):
    code: str


class Ends(BaseModel):
    left: int | None
    right: int | None


class MoveOut(BaseModel):
    seq: int = Field(description="1, 2, … within the deal")
    seat: int
    tile: str = Field(description="Canonical, low-high: `3-5`")
    end: Literal["left", "right", "discard"] | None = Field(
        description="Where it went (`null`: the opening tile); `discard`: laid face down (Klasik)"
    )
    placed: str | None = Field(description="The tile as drawn on the line, left number first")
    ends: Ends = Field(description="The line's open ends after the move")
    auto: bool = Field(description="Played by the turn clock, not the seat")
    at: datetime
    passes: list[int] = Field(description="Seats that passed, in order, right after this move")


class Fairness(BaseModel):
    shuffle: str = Field(description="`seed`: from the stored seed (deals before FAIRNESS.md)")
    seed: int | None = Field(description="The seed of a `seed` shuffle (shown once the deal ended)")
    commitment: str | None = Field(description="SHA-256 of the secret; null for `seed` deals")
    secret: str | None = Field(description="The deal's secret (docs/FAIRNESS.md); null for `seed`")


class DealOut(BaseModel):
    """A deal. One in play (``status: in_play``) has only ``number``, ``status``, ``started_at``."""

    number: int
    status: Status
    started_at: datetime
    ended_at: datetime | None = None
    opener: int | None = Field(None, description="The seat that moved first")
    first: bool | None = Field(None, description="The set's first deal")
    additional: bool | None = Field(None, description="A Tunggal Additional Game")
    redeals: int | None = None
    hands: list[list[str]] | None = Field(None, description="Each seat's tiles as dealt")
    start: str | None = Field(None, description="Klasik: the face-up start tile as drawn")
    set_aside: list[str] | None = Field(None, description="Klasik: the tiles set aside")
    moves: list[MoveOut] | None = None
    result: dict[str, Any] | None = Field(
        None, description="The engine's `deal_ended` (end, result, winner, hands left, …)"
    )
    points: list[int] | None = Field(None, description="What the deal scored, per seat")
    scores: list[int] | None = Field(None, description="The set's totals after the deal")
    fairness: Fairness | None = None


class SetSeat(BaseModel):
    seat: int
    player_id: str | None
    name: str | None
    bot: bool = Field(description="A bot began the set in this seat")
    left: bool = Field(description="The player left during the set; a bot played on")


class SetOut(BaseModel):
    set_id: int
    room: RoomRef
    number: int = Field(description="The set's number at its room's table")
    preset: str
    mode: str
    players: int
    rules: dict[str, Any] = Field(description="The engine's RuleSet (RuleSet.to_dict)")
    status: Status
    started_at: datetime
    ended_at: datetime | None
    seats: list[SetSeat]
    scores: list[int] = Field(description="The set's totals after its last finished deal")
    result: dict[str, Any] | None = Field(description="The engine's `set_ended`, once it ended")
    link: str = Field(description="The replay page")
    deals: list[DealOut]


# --- endpoints ----------------------------------------------------------------------------------


@router.get(
    "/sets/{set_id}",
    operation_id="get_set",
    responses={404: _err("No such set"), **BAD},
    response_model_exclude_none=False,
)
async def get_set(set_id: Annotated[int, Path(ge=1)], session: SessionDep) -> SetOut:
    detail = await history.set_detail(session, set_id=set_id)
    if detail is None:
        raise NotFound(f"there is no set {set_id}")
    return SetOut.model_validate(detail)
