"""A room's life: the only code that changes a room's status or host.

    open ──start_set──▶ playing ──end_set──▶ open ──▶ …
    open | playing ──close──▶ closed          playing ──abandon──▶ abandoned

``closed`` and ``abandoned`` are final. REST, the table actor and the sweeper all call these
functions; each takes an ``AsyncSession``, locks the room's row (PostgreSQL; SQLite has one writer),
checks, writes and flushes — the caller commits, then tells the live layer. A refusal is a
``LifecycleError`` with a stable code, which the API answers with 409 (403 for ``not_host``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.errors import GapleError
from app.presets import LISTED, ROOM_STATUSES, CloseReason, Status, seat_count
from app.store import rooms
from app.store.models import Room
from app.store.types import utcnow

__all__ = [
    "LISTED",
    "ROOM_STATUSES",
    "CloseReason",
    "LifecycleError",
    "Status",
    "abandon",
    "check_transition",
    "close",
    "end_set",
    "hand_over_host",
    "start_set",
    "touch",
]

FINAL: tuple[Status, ...] = ("closed", "abandoned")

# The one table of allowed moves: from a status, the statuses it may become.
TRANSITIONS: dict[str, tuple[Status, ...]] = {
    "open": ("playing", "closed"),
    "playing": ("open", "closed", "abandoned"),
    "closed": (),
    "abandoned": (),
}


class LifecycleError(GapleError):
    """A transition that is not allowed. ``code``: room_not_open, room_closed, set_in_progress,
    not_playing, seats_not_filled, not_host, room_not_found, tournament_room (a host's start or
    close at a tournament's table); quick play's "play again" and
    "start now with bots" (app/rooms/quickplay.py) add not_quickplay and not_seated."""


def check_transition(current: str, new: Status) -> None:
    """Raise ``LifecycleError`` unless a room in status ``current`` may become ``new``."""
    if new in TRANSITIONS.get(current, ()):
        return
    if current in FINAL:
        raise LifecycleError("room_closed", f"the room is {current}")
    if current == "playing" and new == "playing":
        raise LifecycleError("set_in_progress", "a set is already being played")
    if current == "open" and new in ("open", "abandoned"):
        raise LifecycleError("not_playing", "no set is being played")
    raise LifecycleError("room_not_open", f"a {current} room cannot become {new}")


async def _room(session: AsyncSession, room_id: str) -> Room:
    room = await rooms.get_room(session, room_id=room_id, for_update=True)
    if room is None:
        raise LifecycleError("room_not_found", f"no room {room_id}")
    return room


def _require_host(room: Room, by: str | None) -> None:
    if by is not None and room.tournament_id is not None:
        # The tournament starts its tables' sets; nobody ends one early or plays another there.
        raise LifecycleError("tournament_room", "a tournament's table is run by the tournament")
    if by is not None and by != room.host_id:
        raise LifecycleError("not_host", "only the host can do this")


async def start_set(session: AsyncSession, *, room_id: str, by: str | None) -> None:
    """open -> playing. Every seat holds a player or a bot; ``by`` is the host, or None when the
    server starts it (quick play)."""
    await start_sets(session, room_ids=[room_id], by=by)


async def start_sets(session: AsyncSession, *, room_ids: Sequence[str], by: str | None) -> None:
    """``start_set`` in each of the rooms (a tournament round's tables), a query and a flush
    for them all; any refusal refuses them all."""
    found = await rooms.get_rooms(session, room_ids=room_ids, for_update=True)
    missing = [r for r in room_ids if r not in found]
    if missing:
        raise LifecycleError("room_not_found", f"no room {missing[0]}")
    for room in found.values():
        if room.status not in FINAL:
            _require_host(room, by)
        check_transition(room.status, "playing")
    needed = {room.id: seat_count(room.settings) for room in found.values()}
    taken = await rooms.count_seats(session, room_ids=list(room_ids), below=needed)
    for room in found.values():
        seats = needed[room.id]
        if taken.get(room.id, 0) < seats:
            raise LifecycleError(
                "seats_not_filled",
                f"all {seats} seats must be filled ({taken.get(room.id, 0)} taken)",
            )
    await rooms.set_statuses(session, rooms=list(found.values()), status="playing")


async def end_set(session: AsyncSession, *, room_id: str) -> None:
    """playing -> open: the set is over; the host may start the next one."""
    room = await _room(session, room_id)
    check_transition(room.status, "open")
    await rooms.set_status(session, room=room, status="open")


async def close(
    session: AsyncSession, *, room_id: str, reason: CloseReason, by: str | None = None
) -> None:
    """open | playing -> closed. ``by``: the host closing it (None: the server)."""
    room = await _room(session, room_id)
    if room.status not in FINAL:
        _require_host(room, by)
    check_transition(room.status, "closed")
    await rooms.set_status(session, room=room, status="closed", closed_reason=reason)


async def abandon(session: AsyncSession, *, room_id: str) -> None:
    """playing -> abandoned: no human seat was connected for GAPLE_ABANDONED_TABLE_SECONDS."""
    room = await _room(session, room_id)
    check_transition(room.status, "abandoned")
    await rooms.set_status(session, room=room, status="abandoned")


async def hand_over_host(session: AsyncSession, *, room_id: str) -> str | None:
    """The host passes to the seated human (not the host) who sat down earliest; returns the new
    host's id. With no other seated human: if the host holds no seat either, the room is closed
    (``no_host``) and None is returned; otherwise None and nothing changes."""
    room = await _room(session, room_id)
    if room.status in FINAL:
        raise LifecycleError("room_closed", f"the room is {room.status}")
    humans = [s for s in await rooms.get_seats(session, room_id=room.id) if s.player_id]
    others = sorted((s for s in humans if s.player_id != room.host_id), key=lambda s: s.sat_at)
    if others:
        new_host = others[0].player_id
        assert new_host is not None
        await rooms.set_host(session, room=room, host_id=new_host)
        return new_host
    if not humans:
        check_transition(room.status, "closed")
        await rooms.set_status(session, room=room, status="closed", closed_reason="no_host")
    return None


async def touch(
    session: AsyncSession, *, room_id: str, humans_online: int, at: datetime | None = None
) -> None:
    """Presence, not a status: how many seated humans are connected, and the room's last
    activity (for the lobby listing and the idle sweeper)."""
    await rooms.set_presence(
        session, room_id=room_id, humans_online=humans_online, at=at or utcnow()
    )


async def touch_all(
    db: AsyncSession | AsyncConnection, *, presences: Sequence[tuple[str, int, datetime]]
) -> None:
    """``touch`` for many rooms at once, (room, humans online, at) each: the live tables'
    presence changes that come together are one statement."""
    await rooms.set_presences(db, presences=presences)
