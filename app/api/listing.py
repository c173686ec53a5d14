"""The lobby's list of tables: only rooms a person can use, newest activity first, in pages."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from app.api.errors import Invalid
from app.api.lobby import free_seats, share_link
from app.api.schemas import RoomList, RoomSettings, RoomSummary
from app.live import LiveTables
from app.rooms.settings import with_defaults
from app.store import players, rooms
from app.store.models import Room

DEFAULT_PAGE = 50
MAX_PAGE = 100


def encode_cursor(room: Room) -> str:
    """Opaque to clients: the (active_at, id) the next page starts after."""
    raw = json.dumps([room.active_at.isoformat(), room.id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        at, room_id = json.loads(raw)
        when = datetime.fromisoformat(at)
        if when.tzinfo is None or not isinstance(room_id, str):
            raise ValueError(cursor)
    except (ValueError, TypeError, binascii.Error):
        raise Invalid("cursor is not one this server gave out", field="cursor") from None
    return when, room_id


async def usable_rooms(
    session: AsyncSession,
    *,
    live: LiveTables,
    base_url: str,
    limit: int = DEFAULT_PAGE,
    cursor: str | None = None,
) -> RoomList:
    after = decode_cursor(cursor) if cursor else None
    # One more than asked: whether there is a next page, without a count query.
    listed = await rooms.list_usable(session, limit=limit + 1, after=after)
    more = len(listed) > limit
    listed = listed[:limit]
    ids = [room.id for room in listed]
    seats = await rooms.get_seats_of_rooms(session, room_ids=ids)
    hosts = await players.get_player_names(session, player_ids=[room.host_id for room in listed])
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
                spectators=live.spectator_count(room.id),
                quickplay=room.quickplay,
                active_at=room.active_at,
            )
        )
    return RoomList(rooms=summaries, next_cursor=encode_cursor(listed[-1]) if more else None)
