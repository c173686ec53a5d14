"""Repository for rooms and seats. Session first, keyword-only args, flush but never commit."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, delete, func, or_, select, true, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.store.models import SEATS_PER_TABLE, Base, Room, Seat
from app.store.types import utcnow


async def create_room(
    session: AsyncSession,
    *,
    code: str,
    host_id: str,
    settings: dict[str, Any],
    quickplay: bool = False,
    club_id: int | None = None,
) -> Room:
    return (
        await create_rooms(
            session, hosts={code: host_id}, settings=settings, quickplay=quickplay, club_id=club_id
        )
    )[0]


async def create_rooms(
    session: AsyncSession,
    *,
    hosts: Mapping[str, str],
    settings: dict[str, Any],
    quickplay: bool = False,
    **columns: Any,
) -> list[Room]:
    """Open rooms, code -> host each, with the same settings (and ``columns``: a tournament's
    table's ``tournament_id`` and ``round``, a club's table's ``club_id``), in one flush: a
    tournament's round makes dozens."""
    made = [
        Room(
            code=code,
            host_id=host_id,
            settings=settings,
            status="open",
            quickplay=quickplay,
            **columns,
        )
        for code, host_id in hosts.items()
    ]
    session.add_all(made)
    await session.flush()
    return made


async def get_room(session: AsyncSession, *, room_id: str, for_update: bool = False) -> Room | None:
    if not for_update:
        return await session.get(Room, room_id)
    query = select(Room).where(Room.id == room_id).with_for_update()
    # populate_existing: a row locked now must not be read from an older copy in the session.
    result = await session.execute(query.execution_options(populate_existing=True))
    return result.scalar_one_or_none()


async def get_rooms(
    session: AsyncSession, *, room_ids: Iterable[str], for_update: bool = False
) -> dict[str, Room]:
    """The rooms that exist of ``room_ids`` (``for_update``: locked, read afresh)."""
    query = select(Room).where(Room.id.in_(set(room_ids)))
    if for_update:
        query = query.with_for_update().execution_options(populate_existing=True)
    return {room.id: room for room in await session.scalars(query)}


async def get_room_by_code(
    session: AsyncSession, *, code: str, for_update: bool = False
) -> Room | None:
    query = select(Room).where(Room.code == code.upper())
    if for_update:
        # Serialises seat changes and the start on PostgreSQL; SQLite locks the whole file anyway.
        query = query.with_for_update()
    result = await session.execute(query)
    return result.scalar_one_or_none()


async def code_exists(session: AsyncSession, *, code: str) -> bool:
    return bool(await codes_taken(session, codes=[code]))


async def codes_taken(session: AsyncSession, *, codes: Iterable[str]) -> set[str]:
    """Those of ``codes`` that a room has."""
    result = await session.scalars(select(Room.code).where(Room.code.in_(set(codes))))
    return set(result)


async def count_hosted_rooms(
    session: AsyncSession, *, host_id: str, statuses: Iterable[str]
) -> int:
    query = select(func.count(Room.id)).where(
        Room.host_id == host_id, Room.status.in_(list(statuses))
    )
    return int((await session.execute(query)).scalar_one())


async def get_hosted_rooms(
    session: AsyncSession, *, host_id: str, statuses: Iterable[str]
) -> list[Room]:
    query = (
        select(Room)
        .where(Room.host_id == host_id, Room.status.in_(list(statuses)))
        .order_by(Room.created_at, Room.id)
    )
    return list((await session.execute(query)).scalars())


async def update_room(
    session: AsyncSession,
    *,
    room: Room,
    settings: dict[str, Any] | None = None,
) -> Room:
    """Settings (and the room's activity time); the status is set_status's, the lifecycle's."""
    if settings is not None:
        room.settings = settings
    room.updated_at = room.active_at = utcnow()
    await session.flush()
    return room


async def set_status(
    session: AsyncSession, *, room: Room, status: str, closed_reason: str | None = None
) -> None:
    """The status column's one writer: app/rooms/lifecycle.py, which checks the transition."""
    await set_statuses(session, rooms=[room], status=status, closed_reason=closed_reason)


async def set_statuses(
    session: AsyncSession, *, rooms: Sequence[Room], status: str, closed_reason: str | None = None
) -> None:
    """``set_status`` of several rooms, in one flush."""
    now = utcnow()
    for room in rooms:
        room.status = status
        room.closed_reason = closed_reason
        room.updated_at = room.active_at = now
    await session.flush()


async def set_host(session: AsyncSession, *, room: Room, host_id: str) -> None:
    room.host_id = host_id
    room.updated_at = room.active_at = utcnow()
    await session.flush()


ROOMS = Base.metadata.tables["rooms"]


async def set_presence(
    db: AsyncSession | AsyncConnection, *, room_id: str, humans_online: int, at: datetime
) -> None:
    await set_presences(db, presences=[(room_id, humans_online, at)])


async def set_presences(
    db: AsyncSession | AsyncConnection, *, presences: Sequence[tuple[str, int, datetime]]
) -> None:
    """Rooms' presence, (room, seated humans connected, last activity) each, in one statement:
    the live tables' presence changes that come together are written together. Written with
    Core: a room loaded in the session is not refreshed."""
    if not presences:
        return
    await db.execute(
        update(ROOMS)
        .where(ROOMS.c.id == bindparam("room"))
        .values(humans_online=bindparam("humans"), active_at=bindparam("at")),
        [{"room": room, "humans": humans, "at": at} for room, humans, at in presences],
    )


async def get_seats(session: AsyncSession, *, room_id: str) -> list[Seat]:
    result = await session.execute(select(Seat).where(Seat.room_id == room_id).order_by(Seat.seat))
    return list(result.scalars())


async def count_seats(
    session: AsyncSession, *, room_ids: list[str], below: int | Mapping[str, int] | None = None
) -> dict[str, int]:
    """Occupied seats per room (``below``: only seat numbers under it, one for all rooms or
    room -> its own)."""
    if not room_ids:
        return {}
    if isinstance(below, Mapping):
        query = select(Seat.room_id, Seat.seat).where(Seat.room_id.in_(room_ids))
        counts: dict[str, int] = {}
        for room_id, seat in await session.execute(query):
            if seat < below[room_id]:
                counts[room_id] = counts.get(room_id, 0) + 1
        return counts
    query = select(Seat.room_id, func.count()).where(Seat.room_id.in_(room_ids))
    if below is not None:
        query = query.where(Seat.seat < below)
    result = await session.execute(query.group_by(Seat.room_id))
    return {room_id: int(count) for room_id, count in result}


async def put_in_seat(
    session: AsyncSession,
    *,
    room_id: str,
    seat: int,
    player_id: str | None = None,
    bot: str | None = None,
    client_mark: str | None = None,
) -> Seat:
    """Occupy an empty seat; a taken seat raises IntegrityError at flush (primary key)."""
    row = Seat(room_id=room_id, seat=seat, player_id=player_id, bot=bot, client_mark=client_mark)
    session.add(row)
    await session.flush()
    return row


async def fill_seats(
    session: AsyncSession, *, room_id: str, occupants: Mapping[int, tuple[str | None, str | None]]
) -> None:
    """Occupy empty seats at once: seat -> (player, bot), one of the two set."""
    await fill_rooms(session, occupants={room_id: occupants})


async def fill_rooms(
    session: AsyncSession, *, occupants: Mapping[str, Mapping[int, tuple[str | None, str | None]]]
) -> None:
    """``fill_seats`` of several rooms, room -> its occupants, in one flush (a tournament round
    seats hundreds of players in its transaction)."""
    session.add_all(
        Seat(room_id=room_id, seat=seat, player_id=player_id, bot=bot)
        for room_id, seated in occupants.items()
        for seat, (player_id, bot) in sorted(seated.items())
    )
    await session.flush()


async def clear_ready(session: AsyncSession, *, room_id: str) -> None:
    """Nobody in the room has chosen "play again" (a set starts)."""
    await session.execute(
        update(Seat)
        .where(Seat.room_id == room_id, Seat.ready_at.is_not(None))
        .values(ready_at=None)
        .execution_options(synchronize_session="fetch")
    )
    await session.flush()


async def vacate_seat(session: AsyncSession, *, room_id: str, seat: int) -> None:
    await session.execute(delete(Seat).where(Seat.room_id == room_id, Seat.seat == seat))
    await session.flush()


async def change_bot(session: AsyncSession, *, room_id: str, seat: int, kind: str) -> bool:
    """The bot in a seat plays at level ``kind`` from now on; False if no bot sits there."""
    result = await session.execute(
        update(Seat)
        .where(Seat.room_id == room_id, Seat.seat == seat, Seat.bot.is_not(None))
        .values(bot=kind)
        .execution_options(synchronize_session="fetch")
    )
    await session.flush()
    return bool(getattr(result, "rowcount", 0))


async def replace_bot(session: AsyncSession, *, room_id: str, seat: int, player_id: str) -> bool:
    """A human takes a bot's seat (the bot leaves); False if no bot sits there any more. The same
    player already seated elsewhere in the room raises IntegrityError (one seat per player)."""
    result = await session.execute(
        update(Seat)
        .where(Seat.room_id == room_id, Seat.seat == seat, Seat.bot.is_not(None))
        .values(player_id=player_id, bot=None, left_by=None, sat_at=utcnow())
        .execution_options(synchronize_session="fetch")
    )
    await session.flush()
    return bool(getattr(result, "rowcount", 0))


def has_empty_seat() -> Any:
    """SQL: the room has an empty seat (of its settings' ``players``, else 4)."""
    seats = func.coalesce(Room.settings["players"].as_integer(), SEATS_PER_TABLE)
    taken = (
        select(func.count())
        .select_from(Seat)
        .where(Seat.room_id == Room.id)
        .correlate(Room)
        .scalar_subquery()
    )
    return taken < seats


async def list_usable(
    session: AsyncSession, *, limit: int, after: tuple[datetime, str] | None = None
) -> list[Room]:
    """Public rooms a person can use, newest activity first (ties: by id), ``limit`` of them after
    the ``(active_at, id)`` of the previous page's last room: ``open`` ones with an empty seat and
    a connected human, ``playing`` ones with a connected human (to watch or take a bot's seat)."""
    public = func.coalesce(Room.settings["public"].as_boolean(), True)
    usable = or_(
        and_(Room.status == "open", has_empty_seat()),
        Room.status == "playing",
    )
    query = select(Room).where(public == true(), Room.humans_online > 0, usable)
    if after is not None:
        at, room_id = after
        query = query.where(or_(Room.active_at < at, and_(Room.active_at == at, Room.id < room_id)))
    query = query.order_by(Room.active_at.desc(), Room.id.desc()).limit(limit)
    return list((await session.execute(query)).scalars())


async def get_seats_of_rooms(
    session: AsyncSession, *, room_ids: list[str]
) -> dict[str, list[Seat]]:
    if not room_ids:
        return {}
    result = await session.execute(
        select(Seat).where(Seat.room_id.in_(room_ids)).order_by(Seat.room_id, Seat.seat)
    )
    by_room: dict[str, list[Seat]] = {}
    for seat in result.scalars():
        by_room.setdefault(seat.room_id, []).append(seat)
    return by_room


async def live_rooms_of(session: AsyncSession, *, player_id: str) -> list[str]:
    """The ids of the rooms not over (``open`` or ``playing``) where the player has a seat."""
    query = (
        select(Room.id)
        .join(Seat, Seat.room_id == Room.id)
        .where(Seat.player_id == player_id, Room.status.in_(("open", "playing")))
        .order_by(Room.id)
    )
    return list((await session.execute(query)).scalars())


async def mark_client(
    db: AsyncSession | AsyncConnection, *, room_id: str, player_id: str, mark: str
) -> None:
    """The player's seat in the room (if any) carries the address mark of their latest socket."""
    await mark_clients(db, marks=[(room_id, player_id, mark)])


async def mark_clients(
    db: AsyncSession | AsyncConnection, *, marks: Sequence[tuple[str, str, str]]
) -> None:
    """``mark_client`` for many sockets, (room, player, mark) each, in one statement."""
    if not marks:
        return
    seats = Base.metadata.tables["seats"]
    await db.execute(
        update(seats)
        .where(seats.c.room_id == bindparam("room"), seats.c.player_id == bindparam("player"))
        .values(client_mark=bindparam("mark")),
        [{"room": room, "player": player, "mark": mark} for room, player, mark in marks],
    )
