"""The lobby's list of tables: only rooms a person can use, newest activity first, in pages."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from app import cursors
from app.api.lobby import free_seats, share_link
from app.api.schemas import ClubRef, RoomList, RoomSettings, RoomSummary
from app.live import LiveTables
from app.presets import with_defaults
from app.store import clubs as club_rows
from app.store import players, rooms

DEFAULT_PAGE = 50
MAX_PAGE = 100


async def usable_rooms(
    session: AsyncSession,
    *,
    live: LiveTables,
    base_url: str,
    limit: int = DEFAULT_PAGE,
    cursor: str | None = None,
) -> RoomList:
    # The (active_at, id) of the last room of the previous page.
    after = cursors.decode(cursor, datetime, str) if cursor else None
    # One more than asked: whether there is a next page, without a count query.
    listed = await rooms.list_usable(session, limit=limit + 1, after=after)
    more = len(listed) > limit
    listed = listed[:limit]
    ids = [room.id for room in listed]
    seats = await rooms.get_seats_of_rooms(session, room_ids=ids)
    hosts = await players.get_player_names(session, player_ids=[room.host_id for room in listed])
    named = [room.club_id for room in listed if room.club_id is not None]
    clubs = {
        i: ClubRef.model_validate(club_rows.summary(c))
        for i, c in (await club_rows.get_clubs(session, club_ids=named)).items()
    }
    watching = await live.spectator_counts(ids)
    summaries = []
    for room in listed:
        taken = seats.get(room.id, [])
        free = free_seats(room, {s.seat: s for s in taken}, None)
        summaries.append(
            RoomSummary(
                code=room.code,
                share_link=share_link(base_url, room.code),
                status=room.status,  # type: ignore[arg-type]  # DB check
                host_id=room.host_id,
                host_name=hosts.get(room.host_id, ""),
                settings=RoomSettings.model_validate(with_defaults(room.settings)),
                seats_taken=len(taken),
                seats_free=len(free),
                humans_online=room.humans_online,
                spectators=watching.get(room.id, 0),
                quickplay=room.quickplay,
                club=None if room.club_id is None else clubs.get(room.club_id),
                active_at=room.active_at,
            )
        )
    next_cursor = cursors.encode(listed[-1].active_at, listed[-1].id) if more else None
    return RoomList(rooms=summaries, next_cursor=next_cursor)
