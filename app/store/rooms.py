"""Repository for rooms and seats. Session first, keyword-only args, flush but never commit."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import Room, Seat
from app.store.types import utcnow


async def create_room(
    session: AsyncSession, *, code: str, host_id: str, settings: dict[str, Any]
) -> Room:
    room = Room(code=code, host_id=host_id, settings=settings, status="open")
    session.add(room)
    await session.flush()
    return room


async def get_room(session: AsyncSession, *, room_id: str) -> Room | None:
    return await session.get(Room, room_id)


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
    result = await session.execute(select(Room.id).where(Room.code == code))
    return result.first() is not None


async def list_rooms(
    session: AsyncSession, *, statuses: Iterable[str], public_only: bool = True, limit: int = 200
) -> list[Room]:
    query = select(Room).where(Room.status.in_(list(statuses)))
    query = query.order_by(Room.created_at.desc()).limit(limit)
    rooms = list((await session.execute(query)).scalars())
    if public_only:
        # settings is JSON; filter in Python so the query is the same on SQLite and PostgreSQL.
        rooms = [room for room in rooms if room.settings.get("public", True)]
    return rooms


async def count_hosted_rooms(
    session: AsyncSession, *, host_id: str, statuses: Iterable[str]
) -> int:
    query = select(func.count(Room.id)).where(
        Room.host_id == host_id, Room.status.in_(list(statuses))
    )
    return int((await session.execute(query)).scalar_one())


async def update_room(
    session: AsyncSession,
    *,
    room: Room,
    settings: dict[str, Any] | None = None,
    status: str | None = None,
) -> Room:
    if settings is not None:
        room.settings = settings
    if status is not None:
        room.status = status
    room.updated_at = utcnow()
    await session.flush()
    return room


async def get_seats(session: AsyncSession, *, room_id: str) -> list[Seat]:
    result = await session.execute(select(Seat).where(Seat.room_id == room_id).order_by(Seat.seat))
    return list(result.scalars())


async def count_seats(session: AsyncSession, *, room_ids: list[str]) -> dict[str, int]:
    if not room_ids:
        return {}
    result = await session.execute(
        select(Seat.room_id, func.count()).where(Seat.room_id.in_(room_ids)).group_by(Seat.room_id)
    )
    return {room_id: int(count) for room_id, count in result}


async def put_in_seat(
    session: AsyncSession,
    *,
    room_id: str,
    seat: int,
    player_id: str | None = None,
    bot: str | None = None,
) -> Seat:
    """Occupy an empty seat; a taken seat raises IntegrityError at flush (primary key)."""
    row = Seat(room_id=room_id, seat=seat, player_id=player_id, bot=bot)
    session.add(row)
    await session.flush()
    return row


async def vacate_seat(session: AsyncSession, *, room_id: str, seat: int) -> None:
    await session.execute(delete(Seat).where(Seat.room_id == room_id, Seat.seat == seat))
    await session.flush()
