"""History and replays: a player's sets, and one set's deals. Public: a finished deal hides
nothing, and a deal in play is listed without its tiles (app.players.history)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field

from app.api.deps import SessionDep
from app.api.errors import ERROR_SCHEMA, NotFound
from app.players import history
from app.rooms.protocol import End

router = APIRouter(tags=["history"])


def _err(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_SCHEMA}}}


Responses = dict[int | str, dict[str, Any]]
BAD: Responses = {422: _err("Invalid input; `field` names it")}

Status = Literal["finished", "in_play"]
Shuffle = Literal["fair", "seed"]  # how a deal was shuffled (docs/FAIRNESS.md)
MAX_PAGE = 100


# --- bodies -------------------------------------------------------------------------------------


class RoomRef(BaseModel):
    code: str


class Ends(BaseModel):
    left: int | None
    right: int | None


class Drawn(BaseModel):
    seat: int
    tile: str = Field(description="Canonical, low-high")


class ReplayedMove(BaseModel):
    """A move as the engine re-plays it (a record's move: this alone)."""

    seq: int = Field(description="1, 2, … within the deal")
    seat: int
    tile: str = Field(description="Canonical, low-high: `3-5`")
    end: End | None = Field(
        description="Where it went (`null`: the opening tile); `discard`: laid face down (Klasik)"
    )
    placed: str | None = Field(description="The tile as drawn on the line, left number first")
    ends: Ends = Field(description="The line's open ends after the move")
    passes: list[int] = Field(description="Seats that passed, in order, right after this move")
    draws: list[Drawn] = Field(
        default_factory=list,
        description="Draw Domino: the tiles stuck seats drew from the boneyard right after this "
        "move, in order (the engine draws; revealed once the deal is over)",
    )


class MoveOut(ReplayedMove):
    """A stored move: what the engine re-plays, and when and how it was made."""

    auto: bool = Field(description="Played by the turn clock, not the seat")
    at: datetime


class Dealing(BaseModel):
    """What recomputes a fair deal besides its secret (docs/FAIRNESS.md §3), as its players were
    shown it with the commitment (``engine.fairness.dealing``)."""

    k: int = Field(description="The shuffle dealt: shuffles 0..k-1 were void (too many balak)")
    players: int
    hand_size: int
    start_tile: bool = Field(description="A face-up start tile follows the hands (Klasik)")
    redeal_min_balak: int = Field(description="A hand with this many balak voids a shuffle")


class Fairness(BaseModel):
    shuffle: Shuffle = Field(
        description="`fair`: dealt from a committed secret (docs/FAIRNESS.md); `seed`: from the "
        "engine's seeded generator (deals before it)"
    )
    version: str | None = Field(description="The `fair` shuffle's version: `sha256-v1`")
    seed: int | None = Field(description="The seed of a `seed` shuffle (shown once the deal ended)")
    commitment: str | None = Field(
        description="SHA-256 of the secret, as shown when the deal opened; null for `seed` deals"
    )
    dealing: Dealing | None = Field(
        description="How the secret's shuffles are dealt out, as shown with the commitment; null "
        "for `seed` deals"
    )
    secret: str | None = Field(
        description="The deal's secret, revealed when it ended; null for `seed` deals"
    )


class ReplayedDeal(BaseModel):
    """A finished deal as the engine re-plays it (a record's deal: this alone)."""

    number: int
    status: Status
    opener: int | None = Field(None, description="The seat that moved first")
    first: bool | None = Field(None, description="The set's first deal")
    additional: bool | None = Field(None, description="A Tunggal Additional Game")
    redeals: int | None = None
    hands: list[list[str]] | None = Field(None, description="Each seat's tiles as dealt")
    start: str | None = Field(None, description="Klasik: the face-up start tile as drawn")
    set_aside: list[str] | None = Field(
        None,
        description="Klasik: the tiles set aside (Draw Domino: the boneyard, in drawing order)",
    )
    draws: list[Drawn] | None = Field(
        None, description="Draw Domino: tiles drawn before the first move (a stuck first mover)"
    )
    moves: list[ReplayedMove] | None = None
    result: dict[str, Any] | None = Field(
        None, description="The engine's `deal_ended` (end, result, winner, hands left, …)"
    )
    points: list[int] | None = Field(None, description="What the deal scored, per seat")
    scores: list[int] | None = Field(None, description="The set's totals after the deal")


class DealOut(ReplayedDeal):
    """A deal. One in play (``status: in_play``) has only ``number``, ``status``, ``started_at``."""

    started_at: datetime
    ended_at: datetime | None = None
    moves: list[MoveOut] | None = None  # type: ignore[assignment]  # the stored moves' own shape
    fairness: Fairness | None = None


class SetSeat(BaseModel):
    seat: int
    player_id: str | None
    name: str | None
    bot: bool = Field(description="A bot began the set in this seat")
    left: bool = Field(description="The player left during the set; a bot played on")


class Standing(BaseModel):
    rank: int = Field(description="1 = best; ties share a rank; a player who left ranks last")
    won: bool
    left: bool


class ReplayedSet(BaseModel):
    """What the replay page draws of a set, whether stored or read from a record."""

    preset: str
    mode: str
    players: int
    rules: dict[str, Any] = Field(description="The engine's RuleSet (RuleSet.to_dict)")
    status: Status
    scores: list[int] = Field(description="The set's totals after its last finished deal")
    result: dict[str, Any] | None = Field(description="The engine's `set_ended`, once it ended")


class RecordSeat(BaseModel):
    seat: int
    name: str = Field(description="As the record names the seat")


class RecordReplay(ReplayedSet):
    """A Gaple record re-played: the set's replay without what only a stored set has (its id,
    room, times, accounts and each deal's commitment)."""

    seats: list[RecordSeat]
    deals: list[ReplayedDeal] = Field(description="Every deal of the record, in order")


class SetOut(ReplayedSet):
    set_id: int
    room: RoomRef
    number: int = Field(description="The set's number at its room's table")
    started_at: datetime
    ended_at: datetime | None
    seats: list[SetSeat]
    link: str = Field(description="The replay page")
    deals: list[DealOut]


# --- endpoints ----------------------------------------------------------------------------------


@router.get(
    "/sets/{set_id}",
    operation_id="get_set",
    responses={404: _err("No such set"), **BAD},
)
async def get_set(set_id: Annotated[int, Path(ge=1)], session: SessionDep) -> SetOut:
    detail = await history.set_detail(session, set_id=set_id)
    if detail is None:
        raise NotFound(f"there is no set {set_id}")
    return SetOut.model_validate(detail)


class SetSummary(BaseModel):
    set_id: int
    room: RoomRef
    number: int = Field(description="The set's number at its room's table")
    preset: str
    mode: str
    players: int
    status: Status
    started_at: datetime
    ended_at: datetime | None
    seat: int = Field(description="The player's seat")
    standing: Standing | None = Field(description="How the player finished; null until it ends")
    points: int = Field(description="The player's set total (Ganda: the team's)")
    rated: bool
    rating_change: int | None = Field(
        description="Displayed rating points the set moved (docs/API.md, ratings); null unless "
        "the set was rated and has ended"
    )
    seats: list[SetSeat]
    link: str = Field(description="The replay page")


class SetPage(BaseModel):
    sets: list[SetSummary]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: no more")


@router.get(
    "/players/{player_id}/sets",
    operation_id="list_player_sets",
    responses={404: _err("No such player"), **BAD},
)
async def list_player_sets(
    player_id: str,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="Sets per page")] = 20,
    cursor: Annotated[str | None, Query(max_length=64, description="`next_cursor`")] = None,
) -> SetPage:
    page = await history.player_sets(session, player_id=player_id, limit=limit, cursor=cursor)
    if page is None:
        raise NotFound(f"there is no player {player_id}")
    return SetPage.model_validate(page)
