"""The analysis of a finished deal: every move against the best, all hands open
(``engine.analysis``), computed once in the bot worker pool and kept (app.rooms.analysis)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, Field

from app.api.deps import SessionDep, SettingsDep, get_db
from app.api.errors import ERROR_SCHEMA, Conflict, NotFound
from app.players import history
from app.rooms import analysis
from app.rooms.bots import shared_runner
from app.rooms.protocol import End
from app.store.db import Database

router = APIRouter(tags=["history"])

Mark = Literal["best", "inaccuracy", "mistake", "blunder"]


def _err(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_SCHEMA}}}


class MoveRef(BaseModel):
    tile: str
    end: End | None = None


class MoveAnalysis(BaseModel):
    index: int = Field(description="0-based within the deal (the replay's move seq - 1)")
    seat: int
    move: MoveRef = Field(description="The move played")
    played: float | None = Field(description="The solver's value of the move played, to the seat")
    best: float | None = Field(description="The value of the best move, to the seat")
    loss: float | None = Field(description="best - played, in the deal's points")
    mark: Mark | None = Field(description="null: not solved within the budget")
    best_moves: list[MoveRef] = Field(description="Every move worth the best value")
    view_best: MoveRef = Field(
        description="What the hard bot rated best with only what the seat could know"
    )


class DealAnalysisOut(BaseModel):
    status: Literal["done"] = "done"
    version: int
    deal_number: int
    mode: str
    unit: float = Field(description="The loss one mark step stands for (target / 7)")
    points: list[int] = Field(description="What the deal scored, per seat")
    solved_from: int | None = Field(description="The first move with exact values")
    moves: list[MoveAnalysis]


class Computing(BaseModel):
    status: Literal["computing"] = "computing"


@router.get(
    "/sets/{set_id}/deals/{number}/analysis",
    operation_id="get_deal_analysis",
    response_model=DealAnalysisOut,
    responses={
        202: {"model": Computing, "description": "Being computed: ask again shortly"},
        404: _err("No such set or deal"),
        409: _err("The deal is still in play"),
        422: _err("Invalid input; `field` names it"),
    },
)
async def get_deal_analysis(
    set_id: Annotated[int, Path(ge=1)],
    number: Annotated[int, Path(ge=1)],
    db: Annotated[Database, Depends(get_db)],
    settings: SettingsDep,
) -> Any:
    status, body = await analysis.deal_analysis(
        db,
        shared_runner(),
        set_id=set_id,
        number=number,
        max_nodes=settings.analysis_max_nodes,
        playouts=settings.analysis_playouts,
    )
    if status == "missing":
        raise NotFound(f"set {set_id} has no deal {number}")
    if status == "in_play":
        raise Conflict(f"deal {number} of set {set_id} is still in play")
    if status == analysis.COMPUTING:
        return JSONResponse(Computing().model_dump(), status_code=202)
    return DealAnalysisOut.model_validate({"status": "done", **(body or {})})


@router.get(
    "/sets/{set_id}/record",
    operation_id="get_set_record",
    response_class=PlainTextResponse,
    responses={
        200: {"content": {"text/plain": {}}, "description": "The Gaple record (docs/NOTATION.md)"},
        404: _err("No such set"),
    },
)
async def get_set_record(set_id: Annotated[int, Path(ge=1)], session: SessionDep) -> str:
    """The set's finished deals as a Gaple record; `python -m engine.notation check` verifies it."""
    text = await history.set_record(session, set_id=set_id)
    if text is None:
        raise NotFound(f"there is no set {set_id}")
    return text
