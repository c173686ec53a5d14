"""Lobby services: the rules of guests, rooms and seats. Routers stay thin and call these.

Each function that changes something commits; the router notifies the live layer afterwards, so
the live tables never see a change that could still roll back.
"""

from __future__ import annotations

import secrets

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.auth import hash_token, new_token
from app.api.errors import Conflict, Forbidden, Invalid, NotFound, Unavailable
from app.api.schemas import (
    PlayerOut,
    RoomOut,
    RoomSettings,
    RoomSettingsPatch,
    RoomSummary,
    SeatOut,
)
from app.live import LiveTables
from app.store import players, rooms
from app.store.models import SEATS_PER_TABLE, Player, Room

# No 0/O, 1/I/L: codes are read aloud and typed on phones.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
LISTED_STATUSES = ("open", "playing")


def new_room_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def clean_name(raw: str, *, max_length: int) -> str:
    name = raw.strip()
    if not name:
        raise Invalid("name must not be empty", field="name")
    if len(name) > max_length:
        raise Invalid(f"name must be at most {max_length} characters", field="name")
    if not name.isprintable():
        raise Invalid("name must not contain control or invisible characters", field="name")
    return name


async def create_guest(
    session: AsyncSession, *, name: str, secret_key: str, max_name_length: int
) -> tuple[Player, str]:
    """A new guest and its token (the token itself is never stored)."""
    name = clean_name(name, max_length=max_name_length)
    token = new_token()
    player = await players.create_player(
        session, name=name, token_hash=hash_token(token, secret_key=secret_key)
    )
    await session.commit()
    return player, token


async def create_room(
    session: AsyncSession, *, host: Player, settings: RoomSettings, rooms_per_player: int
) -> Room:
    hosted = await rooms.count_hosted_rooms(session, host_id=host.id, statuses=LISTED_STATUSES)
    if hosted >= rooms_per_player:
        raise Conflict(
            f"you already host {hosted} rooms (limit {rooms_per_player})", code="too_many_rooms"
        )
    for _ in range(8):  # 31^6 codes: a collision is rare, several in a row practically never
        code = new_room_code()
        if await rooms.code_exists(session, code=code):
            continue
        try:
            room = await rooms.create_room(
                session, code=code, host_id=host.id, settings=settings.model_dump()
            )
            await session.commit()
        except IntegrityError:  # another request took the same code meanwhile
            await session.rollback()
            continue
        return room
    raise Unavailable("could not allocate a room code, try again", code="code_exhausted")


async def load_room(session: AsyncSession, *, code: str, for_update: bool = False) -> Room:
    room = await rooms.get_room_by_code(session, code=code, for_update=for_update)
    if room is None:
        raise NotFound(f"no room with code {code.upper()!r}", code="room_not_found")
    return room


def _require_host(room: Room, player: Player) -> None:
    if room.host_id != player.id:
        raise Forbidden("only the host can do this", code="not_host")


def _require_open(room: Room) -> None:
    if room.status != "open":
        raise Conflict(f"the room is {room.status}", code="room_not_open")


async def sit(session: AsyncSession, *, room: Room, player: Player, seat: int) -> None:
    """Take an empty seat; a player already seated in this room moves (before the start)."""
    _require_open(room)
    taken = {s.seat: s for s in await rooms.get_seats(session, room_id=room.id)}
    current = next((s for s in taken.values() if s.player_id == player.id), None)
    if current is not None and current.seat == seat:
        return  # already there: retrying is harmless
    if seat in taken:
        raise Conflict(f"seat {seat} is taken", code="seat_taken", field="seat")
    if current is not None:
        await rooms.vacate_seat(session, room_id=room.id, seat=current.seat)
    await _occupy(session, room=room, seat=seat, player_id=player.id)


async def seat_bot(
    session: AsyncSession, *, room: Room, player: Player, seat: int, kind: str
) -> None:
    _require_host(room, player)
    _require_open(room)
    if any(s.seat == seat for s in await rooms.get_seats(session, room_id=room.id)):
        raise Conflict(f"seat {seat} is taken", code="seat_taken", field="seat")
    await _occupy(session, room=room, seat=seat, bot=kind)


async def _occupy(
    session: AsyncSession,
    *,
    room: Room,
    seat: int,
    player_id: str | None = None,
    bot: str | None = None,
) -> None:
    try:
        await rooms.put_in_seat(session, room_id=room.id, seat=seat, player_id=player_id, bot=bot)
        await rooms.update_room(session, room=room)
        await session.commit()
    except IntegrityError:  # a concurrent request sat there first
        await session.rollback()
        raise Conflict(f"seat {seat} is taken", code="seat_taken", field="seat") from None


async def leave(session: AsyncSession, *, room: Room, player: Player, seat: int) -> None:
    """Stand up from one's own seat, or (host) remove a bot."""
    _require_open(room)
    occupant = next(
        (s for s in await rooms.get_seats(session, room_id=room.id) if s.seat == seat), None
    )
    if occupant is None:
        raise Conflict(f"seat {seat} is empty", code="seat_empty", field="seat")
    if occupant.player_id != player.id:
        if occupant.bot is None:
            raise Forbidden("you can only leave your own seat", code="not_your_seat")
        _require_host(room, player)
    await rooms.vacate_seat(session, room_id=room.id, seat=seat)
    await rooms.update_room(session, room=room)
    await session.commit()


async def change_settings(
    session: AsyncSession, *, room: Room, player: Player, patch: RoomSettingsPatch
) -> None:
    _require_host(room, player)
    if room.status != "open":
        raise Conflict("settings can't change after the start", code="room_started")
    merged = RoomSettings.model_validate({**room.settings, **patch.model_dump(exclude_none=True)})
    await rooms.update_room(session, room=room, settings=merged.model_dump())
    await session.commit()


async def start(session: AsyncSession, *, room: Room, player: Player) -> None:
    _require_host(room, player)
    _require_open(room)
    taken = len(await rooms.get_seats(session, room_id=room.id))
    if taken < SEATS_PER_TABLE:
        raise Conflict(
            f"all {SEATS_PER_TABLE} seats must be filled ({taken} taken)", code="seats_not_filled"
        )
    await rooms.update_room(session, room=room, status="playing")
    await session.commit()


def share_link(base_url: str, code: str) -> str:
    return f"{base_url.rstrip('/')}/r/{code}"


async def room_view(
    session: AsyncSession, *, room: Room, live: LiveTables, base_url: str
) -> RoomOut:
    seats = await rooms.get_seats(session, room_id=room.id)
    names = await players.get_player_names(
        session, player_ids=[room.host_id, *(s.player_id for s in seats if s.player_id)]
    )
    by_seat = {s.seat: s for s in seats}
    seat_views = []
    for number in range(SEATS_PER_TABLE):
        s = by_seat.get(number)
        if s is None:
            seat_views.append(SeatOut(seat=number))
        else:
            name = names.get(s.player_id) if s.player_id else None
            seat_views.append(SeatOut(seat=number, player_id=s.player_id, name=name, bot=s.bot))
    return RoomOut(
        id=room.id,
        code=room.code,
        share_link=share_link(base_url, room.code),
        status=room.status,  # type: ignore[arg-type]  # DB check
        host=PlayerOut(player_id=room.host_id, name=names.get(room.host_id, "")),
        settings=RoomSettings.model_validate(room.settings),
        seats=seat_views,
        seats_taken=len(seats),
        spectators=live.spectator_count(room.id),
        created_at=room.created_at,
    )


async def public_rooms(
    session: AsyncSession, *, live: LiveTables, base_url: str
) -> list[RoomSummary]:
    listed = await rooms.list_rooms(session, statuses=LISTED_STATUSES, public_only=True)
    counts = await rooms.count_seats(session, room_ids=[room.id for room in listed])
    hosts = await players.get_player_names(session, player_ids=[room.host_id for room in listed])
    return [
        RoomSummary(
            code=room.code,
            share_link=share_link(base_url, room.code),
            status=room.status,  # type: ignore[arg-type]  # DB check
            host_name=hosts.get(room.host_id, ""),
            settings=RoomSettings.model_validate(room.settings),
            seats_taken=counts.get(room.id, 0),
            spectators=live.spectator_count(room.id),
        )
        for room in listed
    ]
