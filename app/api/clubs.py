"""Clubs under /api/clubs (docs/API.md "Clubs"; the moderators' actions are
app/api/club_moderation.py). Thin: parse, clean the name as a player's is
(``lobby.clean_name``), call app.players.clubs, commit, and map its refusals to the envelope."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Response, status

from app.api import lobby
from app.api.auth import CurrentPlayer
from app.api.deps import SessionDep, SettingsDep
from app.api.errors import ERROR_SCHEMA, refusal
from app.api.listing import DEFAULT_PAGE, MAX_PAGE
from app.api.ratelimit import rate_limit
from app.api.schemas import (
    ClubIn,
    ClubJoinOut,
    ClubList,
    ClubOut,
    ClubPatch,
    ClubRequestsOut,
    LeaderIn,
)
from app.players import clubs
from app.players.clubs import REFUSALS, ClubError
from app.store.models import Player

router = APIRouter(prefix="/clubs", tags=["clubs"])


def _err(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_SCHEMA}}}


Responses = dict[int | str, dict[str, Any]]
AUTH: Responses = {401: _err("Missing or invalid token")}
FOUND: Responses = {404: _err("`club_not_found`")}
LEADER: Responses = {403: _err("`not_leader`: only a leader of the club")}
CLOSED: Responses = {409: _err("`club_closed`")}
BAD: Responses = {422: _err("Invalid input; `field` names it")}
ClubId = Annotated[int, Path(ge=1, le=2**31 - 1)]
PlayerId = Annotated[str, Path(min_length=1, max_length=32, description="A player's id")]
MEMBERS = [Depends(rate_limit("club_members"))]


@contextmanager
def refusals() -> Iterator[None]:
    """A club refusal as the API's error (for the rooms and tournaments that name a club too)."""
    try:
        yield
    except ClubError as exc:
        raise refusal(exc, REFUSALS) from None


async def view(session: SessionDep, club_id: int) -> ClubOut:
    with refusals():
        return ClubOut.model_validate(await clubs.view(session, club_id=club_id))


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    responses={
        **AUTH,
        403: _err("`account_required`: guests cannot found a club"),
        409: _err("`club_name_taken`, `club_limit`"),
        422: _err("Invalid input; `field` names it"),
    },
    dependencies=[Depends(rate_limit("clubs"))],
)
async def create_club(
    body: ClubIn, player: CurrentPlayer, session: SessionDep, settings: SettingsDep
) -> ClubOut:
    """An account founds a club and is its first leader."""
    name = lobby.clean_name(body.name, max_length=clubs.NAME_LENGTH[1])
    with refusals():
        club = await clubs.create(
            session,
            player=player,
            name=name,
            description=body.description,
            open=body.open,
            max_clubs=settings.max_clubs,
        )
    await session.commit()
    return await view(session, club.id)


@router.get("", responses={422: _err("Invalid input; `field` names it")})
async def list_clubs(
    session: SessionDep,
    q: Annotated[
        str | None, Query(max_length=clubs.NAME_LENGTH[1], description="Part of the name")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
    cursor: Annotated[
        str | None, Query(max_length=200, description="`next_cursor` of the previous page")
    ] = None,
) -> ClubList:
    """Clubs that are not closed, by name; `q` finds those whose name holds it (any case)."""
    page = await clubs.listing(session, query=(q or "").strip() or None, limit=limit, cursor=cursor)
    return ClubList.model_validate(page)


@router.get("/{club_id}", responses=FOUND)
async def get_club(club_id: ClubId, session: SessionDep) -> ClubOut:
    """The club's page: members with roles and ratings, its events, its leaderboard per mode."""
    return await view(session, club_id)


@router.patch(
    "/{club_id}",
    responses={**AUTH, **FOUND, **LEADER, **CLOSED, **BAD},
    dependencies=MEMBERS,
)
async def edit_club(
    club_id: ClubId, body: ClubPatch, player: CurrentPlayer, session: SessionDep
) -> ClubOut:
    """A leader changes the description, or whether anyone may join at once (`open`)."""
    with refusals():
        await clubs.edit(
            session, leader=player, club_id=club_id, description=body.description, open=body.open
        )
    await session.commit()
    return await view(session, club_id)


@router.post(
    "/{club_id}/members",
    responses={
        **AUTH,
        **FOUND,
        403: _err("`account_required`: guests cannot join a club"),
        409: _err("`club_closed`, `club_limit`"),
    },
    dependencies=MEMBERS,
)
async def join_club(
    club_id: ClubId, player: CurrentPlayer, session: SessionDep, settings: SettingsDep
) -> ClubJoinOut:
    """Join an open club (`member`), or ask to join one that is not (`requested`): a leader
    answers. Again: no change."""
    with refusals():
        state = await clubs.join(
            session, player=player, club_id=club_id, max_clubs=settings.max_clubs
        )
    await session.commit()
    return ClubJoinOut(club_id=club_id, state=state)


@router.delete(
    "/{club_id}/members/me",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={
        **AUTH,
        404: _err("`club_not_found`, `member_not_found` (the caller or the successor)"),
        403: _err("`not_leader`: only a leader names the next leader"),
        409: _err("`club_closed`, `last_leader`: name a `successor` first"),
        **BAD,
    },
    dependencies=MEMBERS,
)
async def leave_club(
    club_id: ClubId,
    player: CurrentPlayer,
    session: SessionDep,
    successor: Annotated[
        str | None,
        Query(min_length=1, max_length=32, description="A member who becomes a leader first"),
    ] = None,
) -> Response:
    """Leave the club. Its last leader names a member as the next (`successor`) while others
    remain; the last member leaving closes it."""
    with refusals():
        await clubs.leave(session, player=player, club_id=club_id, successor_id=successor)
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete(
    "/{club_id}/members/{player_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={
        **AUTH,
        **LEADER,
        404: _err("`club_not_found`, `member_not_found`"),
        409: _err("`club_closed`, `member_is_leader`"),
    },
    dependencies=MEMBERS,
)
async def remove_club_member(
    club_id: ClubId, player_id: PlayerId, player: CurrentPlayer, session: SessionDep
) -> Response:
    """A leader removes a member (not another leader)."""
    with refusals():
        await clubs.remove(session, leader=player, club_id=club_id, player_id=player_id)
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/{club_id}/leaders",
    responses={
        **AUTH,
        **LEADER,
        404: _err("`club_not_found`, `member_not_found`"),
        **CLOSED,
        **BAD,
    },
    dependencies=MEMBERS,
)
async def add_club_leader(
    club_id: ClubId, body: LeaderIn, player: CurrentPlayer, session: SessionDep
) -> ClubOut:
    """A leader makes another member a leader too (one already: no change)."""
    with refusals():
        await clubs.promote(session, leader=player, club_id=club_id, player_id=body.player_id)
    await session.commit()
    return await view(session, club_id)


@router.get("/{club_id}/requests", responses={**AUTH, **FOUND, **LEADER})
async def list_club_requests(
    club_id: ClubId, player: CurrentPlayer, session: SessionDep
) -> ClubRequestsOut:
    """The requests waiting for a leader's answer (leaders only)."""
    with refusals():
        found = await clubs.requests(session, leader=player, club_id=club_id)
    return ClubRequestsOut.model_validate({"requests": found})


async def _answer(
    session: SessionDep,
    settings: SettingsDep,
    player: Player,
    club_id: int,
    player_id: str,
    ok: bool,
) -> ClubOut:
    with refusals():
        await clubs.answer(
            session,
            leader=player,
            club_id=club_id,
            player_id=player_id,
            accept=ok,
            max_clubs=settings.max_clubs,
        )
    await session.commit()
    return await view(session, club_id)


ANSWER: Responses = {
    **AUTH,
    **LEADER,
    404: _err("`club_not_found`, `request_not_found`"),
    409: _err("`club_closed`, `club_limit` (the player is in GAPLE_MAX_CLUBS clubs)"),
}


@router.post("/{club_id}/requests/{player_id}/accept", responses=ANSWER, dependencies=MEMBERS)
async def accept_club_request(
    club_id: ClubId,
    player_id: PlayerId,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
) -> ClubOut:
    """A leader accepts the player's request: they are a member."""
    return await _answer(session, settings, player, club_id, player_id, True)


@router.post("/{club_id}/requests/{player_id}/decline", responses=ANSWER, dependencies=MEMBERS)
async def decline_club_request(
    club_id: ClubId,
    player_id: PlayerId,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
) -> ClubOut:
    """A leader declines the player's request: it goes (they may ask again)."""
    return await _answer(session, settings, player, club_id, player_id, False)
