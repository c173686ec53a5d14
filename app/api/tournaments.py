"""Tournaments under /api/tournaments. Thin: parse, check the room settings as a room's are
(app.api.lobby), call app.rooms.tournaments, commit, and map its refusals to the envelope."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Query, Request, Response, status
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import lobby
from app.api.auth import CurrentPlayer
from app.api.deps import HubDep, SessionDep, SettingsDep
from app.api.errors import ERROR_SCHEMA, ApiError, Conflict, Forbidden, Invalid, NotFound
from app.api.listing import DEFAULT_PAGE, MAX_PAGE
from app.api.ratelimit import rate_limit
from app.api.schemas import (
    EntryIn,
    EntryOut,
    RoomSettings,
    TournamentFilter,
    TournamentIn,
    TournamentList,
    TournamentOut,
)
from app.clients import address_mark, client_address
from app.rooms import tournaments
from app.rooms.tournament_live import TournamentRunner
from app.rooms.tournament_play import announce
from app.rooms.tournaments import REFUSALS, TournamentRefused
from app.tournaments.formats import NAME_LENGTH

router = APIRouter(prefix="/tournaments", tags=["tournaments"])


def _err(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_SCHEMA}}}


Responses = dict[int | str, dict[str, Any]]
AUTH: Responses = {401: _err("Missing or invalid token")}
FOUND: Responses = {404: _err("`tournament_not_found`")}
BAD: Responses = {422: _err("Invalid input; `field` names it")}
ORGANIZER: Responses = {403: _err("`not_organizer`: only the organizer may do this")}
TournamentId = Annotated[int, Path(ge=1, le=2**31 - 1)]
EntryId = Annotated[int, Path(ge=1, le=2**31 - 1)]


_STATUS: dict[int, type[ApiError]] = {403: Forbidden, 404: NotFound, 409: Conflict, 422: Invalid}


@asynccontextmanager
async def _refusals() -> AsyncIterator[None]:
    try:
        yield
    except TournamentRefused as exc:
        kind = _STATUS[REFUSALS[exc.code]]
        raise kind(exc.message, code=exc.code, field=exc.field) from None


def _settings(body: RoomSettings, mode: str, field: str) -> dict[str, Any]:
    """Room settings checked as a room's (one home: lobby.resolve_settings), in the mode of the
    tournament; a table seats four players or two pairs, so no five-player Klasik."""
    if "mode" in body.model_fields_set and body.mode != mode:
        raise Invalid(f"the sets of a {mode} tournament are {mode}", field=f"{field}.mode")
    if body.players == 5:
        raise Invalid("a tournament table seats four", field=f"{field}.players")
    try:
        resolved = lobby.resolve_settings(body.model_copy(update={"mode": mode}))
    except Invalid as exc:
        raise Invalid(exc.message, field=f"{field}.{exc.field}" if exc.field else field) from None
    return lobby.stored_settings(resolved)


async def _view(session: AsyncSession, tournament_id: int) -> TournamentOut:
    async with _refusals():
        found = await tournaments.view(session, tournament_id=tournament_id)
    return TournamentOut.model_validate(found)


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    responses={
        **AUTH,
        403: _err(
            "`account_required`: guests cannot organize; `not_club_member`: a club's event is "
            "organized by a member"
        ),
        404: _err("`club_not_found`"),
        409: _err("`club_closed`"),
        **BAD,
    },
    dependencies=[Depends(rate_limit("tournaments"))],
)
async def create_tournament(
    body: TournamentIn, player: CurrentPlayer, session: SessionDep, hub: HubDep
) -> TournamentOut:
    """An account organizes a tournament; it is `registering` until it starts. A club's event
    (`club_id`) or a team battle (`club_battle`): the clubs' members get `club_tournament`."""
    name = lobby.clean_name(body.name, max_length=NAME_LENGTH[1])
    if len(name) < NAME_LENGTH[0]:
        raise Invalid(f"name must be at least {NAME_LENGTH[0]} characters", field="name")
    settings = _settings(body.settings, body.mode, "settings")
    bracket = (
        None
        if body.bracket_settings is None
        else _settings(body.bracket_settings, body.mode, "bracket_settings")
    )
    async with _refusals():
        made = await tournaments.create(
            session,
            organizer=player,
            name=name,
            format=body.format,
            mode=body.mode,
            rounds=body.rounds,
            settings=settings,
            bracket_settings=bracket,
            starts_at=body.starts_at,
            min_entrants=body.min_entrants,
            max_entrants=body.max_entrants,
            rated=body.rated,
            public=body.public,
            club_id=body.club_id,
            battle_clubs=body.club_battle.clubs if body.club_battle else (),
            battle_best=body.club_battle.best if body.club_battle else None,
        )
        notices = await announce(session, tournament=made, organizer=player, started=False)
    await session.commit()
    for notice in notices:
        hub.notify(notice)
    return await _view(session, made.id)


@router.get("", responses=BAD)
async def list_tournaments(
    session: SessionDep,
    status: TournamentFilter | None = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
    cursor: Annotated[
        str | None, Query(max_length=200, description="`next_cursor` of the previous page")
    ] = None,
) -> TournamentList:
    """Public tournaments: `upcoming` (registering) and `running` soonest first; `finished`,
    `cancelled` and all of them (no `status`) latest first."""
    page = await tournaments.listing(session, status=status, limit=limit, cursor=cursor)
    return TournamentList.model_validate(page)


async def _changed(request: Request, tournament_id: int) -> None:
    """The tournament's watchers (GET /ws/tournaments/{id}) get it as the change left it."""
    runner: TournamentRunner | None = request.app.state.tournaments
    if runner is not None:
        await runner.changed(tournament_id)


@router.get("/{tournament_id}", responses=FOUND)
async def get_tournament(tournament_id: TournamentId, session: SessionDep) -> TournamentOut:
    """The tournament, its entrants, rounds, standings and scoring (a private one too: by id)."""
    return await _view(session, tournament_id)


def _entry_out(tournament_id: int, view: TournamentOut, entry_id: int) -> EntryOut:
    entrant = next(e for e in view.entrants if e.id == entry_id)
    return EntryOut(tournament_id=tournament_id, entrant=entrant)


@router.post(
    "/{tournament_id}/entries",
    status_code=status.HTTP_201_CREATED,
    responses={
        **AUTH,
        **FOUND,
        403: _err("`not_club_member`: a club's event, or a team battle, takes members only"),
        409: _err(
            "`tournament_closed`, `tournament_full`, `already_entered`, `partner_entered`, "
            "`same_address`, `tournament_over`"
        ),
        **BAD,
    },
    dependencies=[Depends(rate_limit("tournament_entries"))],
)
async def enter_tournament(
    tournament_id: TournamentId,
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    body: Annotated[EntryIn, Body()] = EntryIn(),  # noqa: B008 - pydantic default
) -> EntryOut:
    """Enter (Ganda: with `partner_id`, who then confirms the entry)."""
    async with _refusals():
        entry = await tournaments.enter(
            session,
            tournament_id=tournament_id,
            player=player,
            partner_id=body.partner_id,
            mark=address_mark(client_address(request), settings.secret),
            apart_by_address=settings.apart_by_address,
            club_id=body.club_id,
        )
    await session.commit()
    await _changed(request, tournament_id)
    return _entry_out(tournament_id, await _view(session, tournament_id), entry.id)


@router.post(
    "/{tournament_id}/entries/{entry_id}/confirm",
    responses={
        **AUTH,
        403: _err("`not_partner`: only the partner the entry names"),
        404: _err("`tournament_not_found`, `entry_not_found`"),
        409: _err("`tournament_closed`, `tournament_over`"),
    },
    dependencies=[Depends(rate_limit("tournament_entries"))],
)
async def confirm_entry(
    tournament_id: TournamentId,
    entry_id: EntryId,
    player: CurrentPlayer,
    session: SessionDep,
    request: Request,
) -> EntryOut:
    """The partner a Ganda entry names confirms it: the pair is an entrant."""
    async with _refusals():
        await tournaments.confirm(
            session, tournament_id=tournament_id, entry_id=entry_id, player=player
        )
    await session.commit()
    await _changed(request, tournament_id)
    return _entry_out(tournament_id, await _view(session, tournament_id), entry_id)


@router.delete(
    "/{tournament_id}/entries/me",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={**AUTH, **FOUND, 409: _err("`not_entered`, `tournament_over`")},
    dependencies=[Depends(rate_limit("tournament_entries"))],
)
async def withdraw_from_tournament(
    tournament_id: TournamentId, player: CurrentPlayer, session: SessionDep, request: Request
) -> Response:
    """Withdraw the caller's entry (as its player or partner): removed before the start,
    marked withdrawn once running (it forfeits the rounds left)."""
    async with _refusals():
        await tournaments.withdraw(session, tournament_id=tournament_id, player=player)
    await session.commit()
    await _changed(request, tournament_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/{tournament_id}/start",
    responses={
        **AUTH,
        **ORGANIZER,
        **FOUND,
        409: _err("`too_few_entrants`, `tournament_started`, `tournament_over`"),
    },
)
async def start_tournament(
    tournament_id: TournamentId, player: CurrentPlayer, session: SessionDep, request: Request
) -> TournamentOut:
    """The organizer starts early: `running`, round 1's tables and byes stored, a room made
    for each table with its entrants seated and its set started."""
    async with _refusals():
        progress = await tournaments.start(
            session, tournament_id=tournament_id, player=player, new_code=lobby.new_room_code
        )
    await session.commit()
    runner: TournamentRunner | None = request.app.state.tournaments
    if runner is not None:
        await runner.tell(progress)
    return await _view(session, tournament_id)


@router.post(
    "/{tournament_id}/cancel",
    responses={**AUTH, **ORGANIZER, **FOUND, 409: _err("`tournament_over`")},
)
async def cancel_tournament(
    tournament_id: TournamentId, player: CurrentPlayer, session: SessionDep, request: Request
) -> TournamentOut:
    """The organizer calls it off, before or during it: `cancelled`."""
    async with _refusals():
        await tournaments.cancel(session, tournament_id=tournament_id, player=player)
    await session.commit()
    await _changed(request, tournament_id)
    return await _view(session, tournament_id)
