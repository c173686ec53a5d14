"""POST /api/quickplay: a seat at a waiting public table with the chosen settings, or a new one;
POST /api/rooms/{code}/again and /fill: "play again" after a set, "start now with bots".
Thin: parse, call app.rooms.quickplay (through app.api.lobby), commit, notify the live layer."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from app.api import lobby
from app.api.auth import CurrentPlayer
from app.api.deps import HubDep, LiveDep, NeedsCluster, SessionDep, SettingsDep
from app.api.ratelimit import rate_limit
from app.api.rooms import AUTH, BAD, ROOM, STATE
from app.api.schemas import QuickplayIn, QuickplayOut, RoomOut
from app.clients import address_mark, client_address
from app.rooms import quickplay

router = APIRouter(tags=["rooms"])


@router.post(
    "/quickplay",
    responses={**AUTH, **BAD},
    dependencies=[Depends(rate_limit("quickplay")), NeedsCluster],
)
async def quick_play(
    body: QuickplayIn,
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
) -> QuickplayOut:
    """Seats the caller at the longest-waiting public quick-play table with these settings and
    an empty seat, or opens one (the caller is its host). When every seat holds a human the set
    starts at once; otherwise bots fill the empty seats GAPLE_QUICKPLAY_BOT_FILL_SECONDS after
    the last human sat down. A caller already waiting at such a table keeps their seat; one
    waiting at another quick-play table leaves it."""
    choice = quickplay.Choice(preset=body.preset, mode=body.mode, turn_seconds=body.turn_seconds)
    seated = await quickplay.seat_player(
        session,
        player_id=player.id,
        choice=choice,
        new_code=lobby.new_room_code,
        mark=address_mark(client_address(request), settings.secret),
        apart_by_address=settings.apart_by_address,
    )
    await session.commit()
    for room_id in seated.left:
        await live.seats_changed(room_id)
    for room_id in seated.restarted:
        await live.room_started(room_id)
    for room_id in seated.closed:
        await live.room_closed(room_id, "no_host")
    await live.seats_changed(seated.room.id)
    if seated.started:
        await live.room_started(seated.room.id)
    room = await lobby.room_view(
        session,
        room=seated.room,
        live=live,
        request=request,
        settings=settings,
    )
    return QuickplayOut(room=room, seat=seated.seat)


@router.post(
    "/rooms/{code}/again",
    responses={**AUTH, **ROOM, **STATE},
    dependencies=[Depends(rate_limit("seats")), NeedsCluster],
)
async def play_again(
    code: str,
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
    hub: HubDep,
) -> RoomOut:
    """Quick play or a challenge's table, after a set: the seated caller chooses "play again"
    (again is harmless). Once every seated human has, the next set starts at the same table,
    bots in any empty seat; otherwise, in quick play, bots fill
    GAPLE_QUICKPLAY_BOT_FILL_SECONDS after the first choice, taking the seats of those who did
    not choose it too (`bots_in_ms`). At a challenge's table this is the rematch: the first
    to choose it offers it to the other seated players (a `rematch` notification)."""
    room = await lobby.load_room(session, code=code, for_update=True)
    started, offers = await lobby.again(session, room=room, player=player)
    for notice in offers:
        hub.notify(notice)
    await live.seats_changed(room.id)
    if started:
        await live.room_started(room.id)
    return await lobby.room_view(
        session,
        room=room,
        live=live,
        request=request,
        settings=settings,
    )


@router.post(
    "/rooms/{code}/fill",
    responses={**AUTH, **ROOM, **STATE},
    dependencies=[Depends(rate_limit("seats")), NeedsCluster],
)
async def start_with_bots(
    code: str,
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
) -> RoomOut:
    """Quick play: "start now with bots". The seated caller does now what the bot fill would
    do later: bots into the empty seats (after a set: the caller chooses "play again", and bots
    take the seats of those who did not), and the set starts."""
    room = await lobby.load_room(session, code=code, for_update=True)
    await lobby.start_now(session, room=room, player=player)
    await live.seats_changed(room.id)
    await live.room_started(room.id)
    return await lobby.room_view(
        session,
        room=room,
        live=live,
        request=request,
        settings=settings,
    )
