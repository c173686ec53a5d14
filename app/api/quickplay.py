"""POST /api/quickplay: a seat at a waiting public table with the chosen settings, or a new one.
Thin: parse, seat (app.rooms.quickplay), commit, notify the live layer."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from app.api import lobby
from app.api.auth import CurrentPlayer
from app.api.deps import LiveDep, NeedsCluster, SessionDep, SettingsDep
from app.api.ratelimit import rate_limit
from app.api.rooms import AUTH, BAD, _base_url
from app.api.schemas import QuickplayIn, QuickplayOut
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
        session, player_id=player.id, choice=choice, new_code=lobby.new_room_code
    )
    await session.commit()
    for room_id in seated.left:
        await live.seats_changed(room_id)
    for room_id in seated.closed:
        await live.room_closed(room_id, "no_host")
    await live.seats_changed(seated.room.id)
    if seated.started:
        await live.room_started(seated.room.id)
    room = await lobby.room_view(
        session, room=seated.room, live=live, base_url=_base_url(request, settings)
    )
    return QuickplayOut(room=room, seat=seated.seat)
