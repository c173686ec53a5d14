"""Lobby endpoints under /api/rooms. Thin: parse, call app.api.lobby, notify the live layer."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Query, Request, status

from app.api import listing, lobby
from app.api.auth import CurrentPlayer
from app.api.deps import LiveDep, NeedsCluster, SessionDep, SettingsDep
from app.api.errors import ERROR_SCHEMA
from app.api.ratelimit import rate_limit
from app.api.schemas import BotIn, RoomIn, RoomList, RoomOut, RoomSettingsPatch
from app.presets import MAX_SEATS

router = APIRouter(prefix="/rooms", tags=["rooms"])


def _err(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_SCHEMA}}}


Responses = dict[int | str, dict[str, Any]]
AUTH: Responses = {401: _err("Missing or invalid token")}
ROOM: Responses = {404: _err("Unknown room code")}
HOST: Responses = {403: _err("Only the host may do this")}
STATE: Responses = {409: _err("Seat taken, room full, or the room's status forbids it")}
CLUB: Responses = {403: _err("`not_club_member`: a club's table seats its members only")}
BAD: Responses = {422: _err("Invalid input; `field` names it")}

SeatNumber = Annotated[
    int,
    Path(
        ge=0,
        le=MAX_SEATS - 1,
        description="Seat 0..3 (0..4 at a Klasik table of 5); play passes clockwise, from "
        "seat s to s+1",
    ),
]


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    responses={**AUTH, **CLUB, 404: _err("`club_not_found`"), **STATE, **BAD},
    dependencies=[Depends(rate_limit("rooms"))],
)
async def create_room(
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
    body: Annotated[RoomIn, Body()] = RoomIn(),  # noqa: B008 - pydantic default
) -> RoomOut:
    """A room with the host's settings; with `club_id`, a club's table (only its members sit)."""
    room = await lobby.create_room(
        session,
        host=player,
        settings=body.settings(),
        rooms_per_player=settings.rooms_per_player,
        club_id=body.club_id,
    )
    return await lobby.room_view(
        session,
        room=room,
        live=live,
        request=request,
        settings=settings,
    )


@router.get("", responses=BAD)
async def list_rooms(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
    limit: Annotated[int, Query(ge=1, le=listing.MAX_PAGE)] = listing.DEFAULT_PAGE,
    cursor: Annotated[
        str | None, Query(max_length=200, description="`next_cursor` of the previous page")
    ] = None,
) -> RoomList:
    """Public tables a person can use, newest activity first: open ones with an empty seat and a
    connected human, playing ones with a connected human."""
    return await listing.usable_rooms(
        session,
        live=live,
        base_url=lobby.public_base_url(request, settings),
        limit=limit,
        cursor=cursor,
    )


@router.get("/{code}", responses=ROOM)
async def get_room(
    code: str, request: Request, session: SessionDep, settings: SettingsDep, live: LiveDep
) -> RoomOut:
    room = await lobby.load_room(session, code=code)
    return await lobby.room_view(
        session,
        room=room,
        live=live,
        request=request,
        settings=settings,
    )


@router.delete("/{code}", responses={**AUTH, **ROOM, **HOST, **STATE}, dependencies=[NeedsCluster])
async def close_room(
    code: str,
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
) -> RoomOut:
    """The host closes the room: status `closed`; every socket gets `bye` `room_closed`."""
    room = await lobby.load_room(session, code=code, for_update=True)
    await lobby.close(session, room=room, player=player)
    await live.room_closed(room.id, "host_closed")
    return await lobby.room_view(
        session,
        room=room,
        live=live,
        request=request,
        settings=settings,
    )


@router.post(
    "/{code}/seats/{seat}",
    responses={**AUTH, **ROOM, **CLUB, **STATE, **BAD},
    dependencies=[Depends(rate_limit("seats")), NeedsCluster],
)
async def sit(
    code: str,
    seat: SeatNumber,
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
) -> RoomOut:
    room = await lobby.load_room(session, code=code, for_update=True)
    await lobby.sit(session, room=room, player=player, seat=seat)
    await live.seats_changed(room.id)
    return await lobby.room_view(
        session,
        room=room,
        live=live,
        request=request,
        settings=settings,
    )


@router.delete(
    "/{code}/seats/{seat}",
    responses={**AUTH, **ROOM, **HOST, **STATE, **BAD},
    dependencies=[Depends(rate_limit("seats")), NeedsCluster],
)
async def leave(
    code: str,
    seat: SeatNumber,
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
) -> RoomOut:
    """Stand up from one's own seat, or (host) remove a bot. Leaving a quick-play room so that no
    human is seated closes it (`no_host`); after a set, the next one starts if everyone still
    seated chose "play again"."""
    room = await lobby.load_room(session, code=code, for_update=True)
    departure = await lobby.leave(session, room=room, player=player, seat=seat)
    if departure == "closed":
        await live.room_closed(room.id, "no_host")
    else:
        await live.seats_changed(room.id)
    if departure == "started":
        await live.room_started(room.id)
    return await lobby.room_view(
        session,
        room=room,
        live=live,
        request=request,
        settings=settings,
    )


@router.post(
    "/{code}/bots/{seat}",
    responses={**AUTH, **ROOM, **HOST, **STATE, **BAD},
    dependencies=[Depends(rate_limit("seats")), NeedsCluster],
)
async def seat_bot(
    code: str,
    seat: SeatNumber,
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
    body: Annotated[BotIn, Body()] = BotIn(),  # noqa: B008 - pydantic default
) -> RoomOut:
    room = await lobby.load_room(session, code=code, for_update=True)
    await lobby.seat_bot(session, room=room, player=player, seat=seat, kind=body.kind)
    await live.seats_changed(room.id)
    return await lobby.room_view(
        session,
        room=room,
        live=live,
        request=request,
        settings=settings,
    )


@router.patch(
    "/{code}/settings",
    responses={**AUTH, **ROOM, **HOST, **STATE, **BAD},
    dependencies=[NeedsCluster],
)
async def change_settings(
    code: str,
    body: RoomSettingsPatch,
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
) -> RoomOut:
    room = await lobby.load_room(session, code=code, for_update=True)
    await lobby.change_settings(session, room=room, player=player, patch=body)
    # The live table shows the settings and, with them, the number of seats (Klasik: 4 or 5).
    await live.seats_changed(room.id)
    return await lobby.room_view(
        session,
        room=room,
        live=live,
        request=request,
        settings=settings,
    )


@router.post(
    "/{code}/start", responses={**AUTH, **ROOM, **HOST, **STATE}, dependencies=[NeedsCluster]
)
async def start(
    code: str,
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
) -> RoomOut:
    room = await lobby.load_room(session, code=code, for_update=True)
    await lobby.start(session, room=room, player=player)
    await live.room_started(room.id)
    return await lobby.room_view(
        session,
        room=room,
        live=live,
        request=request,
        settings=settings,
    )
