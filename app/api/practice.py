"""POST /api/practice: one tap to a private table against bots, the set already started.

Thin over the lobby: the room is created, the caller seated, the bots seated and the set started
by the same functions a host uses by hand (app.api.lobby, app.rooms.lifecycle), so practice has no
rules of its own. Practice tables are private (not in the lobby) and unrated.

A practice table the caller left behind (private, every seat taken by the caller, its host, and
bots) is closed first: practising again never runs into the limit of rooms a player may host.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, status
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import lobby
from app.api.auth import CurrentPlayer
from app.api.deps import LiveDep, NeedsCluster, SessionDep, SettingsDep
from app.api.ratelimit import rate_limit
from app.api.rooms import AUTH, BAD, STATE
from app.api.schemas import PracticeIn, PracticeOut, RoomSettings
from app.presets import LISTED, PRACTICE_PUBLIC, PRACTICE_RATED, seat_count
from app.rooms import lifecycle
from app.store import rooms
from app.store.models import Player, Room

router = APIRouter(tags=["rooms"])

PLAYER_SEAT = 0


def practice_settings(choice: PracticeIn) -> RoomSettings:
    """The room a practice choice makes: the preset's defaults, private and unrated."""
    wanted = choice.model_dump(exclude={"bot"}, exclude_none=True)
    return RoomSettings.model_validate(
        {**wanted, "public": PRACTICE_PUBLIC, "rated": PRACTICE_RATED}
    )


async def _left_behind(session: AsyncSession, player: Player) -> list[Room]:
    """The caller's earlier practice tables: private rooms they host whose every seat is taken,
    by the caller and bots only (one of them perhaps in the seat the caller left)."""
    found = []
    for room in await rooms.get_hosted_rooms(session, host_id=player.id, statuses=LISTED):
        if room.settings.get("public", True):
            continue
        seats = await rooms.get_seats(session, room_id=room.id)
        mine = any(player.id in (s.player_id, s.left_by) for s in seats)
        others = any(s.player_id not in (None, player.id) for s in seats)
        if len(seats) == seat_count(room.settings) and mine and not others:
            found.append(room)
    return found


async def close_left_behind(session: AsyncSession, *, player: Player) -> list[str]:
    """Close the caller's earlier practice tables (commits); their ids."""
    closed = []
    for room in await _left_behind(session, player):
        await lifecycle.close(session, room_id=room.id, reason="host_closed", by=player.id)
        closed.append(room.id)
    await session.commit()
    return closed


async def open_practice(
    session: AsyncSession, *, player: Player, choice: PracticeIn, rooms_per_player: int
) -> Room:
    """A new private table with the caller in seat 0, bots of ``choice.bot`` in the others and
    the set started. Bad settings are refused (422) before anything is written."""
    settings = lobby.resolve_settings(practice_settings(choice))
    room = await lobby.create_room(
        session, host=player, settings=settings, rooms_per_player=rooms_per_player
    )
    await lobby.sit(session, room=room, player=player, seat=PLAYER_SEAT)
    for seat in range(seat_count(room.settings)):
        if seat != PLAYER_SEAT:
            await lobby.seat_bot(session, room=room, player=player, seat=seat, kind=choice.bot)
    await lobby.start(session, room=room, player=player)
    return room


@router.post(
    "/practice",
    status_code=status.HTTP_201_CREATED,
    responses={**AUTH, **STATE, **BAD},
    dependencies=[Depends(rate_limit("practice")), NeedsCluster],
)
async def start_practice(
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
    body: PracticeIn | None = None,
) -> PracticeOut:
    """A private, unrated table against bots, already playing: the caller in seat 0, bots
    (`bot`, default `normal`) in every other seat. The body is optional: the default preset
    and mode. The caller's earlier practice tables (private, the caller and bots only) are
    closed.
    Connect to `/ws/rooms/{code}` to play."""
    choice = body or PracticeIn()
    lobby.resolve_settings(practice_settings(choice))  # a 422 closes nothing
    for room_id in await close_left_behind(session, player=player):
        await live.room_closed(room_id, "host_closed")
    room = await open_practice(
        session, player=player, choice=choice, rooms_per_player=settings.rooms_per_player
    )
    await live.seats_changed(room.id)
    await live.room_started(room.id)
    view = await lobby.room_view(
        session,
        room=room,
        live=live,
        request=request,
        settings=settings,
    )
    return PracticeOut(room=view, seat=PLAYER_SEAT)
