"""Quick play: one tap to a seat at a waiting public table with the chosen settings.

Callers with the same settings are served one at a time, on every node: PostgreSQL takes a
transaction-scoped advisory lock on the settings key, SQLite (one writer) takes its write lock
first (app/store/locks.py). So two callers at once never get the same seat, and never open two
half-empty tables when one would do: the second sees the first one's table and sits there.
Two players where one blocks the other are never seated at one table: the check is made under
the same lock as the choice of the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, exists, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.presets import (
    QUICKPLAY_RATED,
    Mode,
    QuickplayPreset,
    TurnSeconds,
    new_room_defaults,
    seat_count,
)
from app.rooms import lifecycle
from app.store import rooms, social
from app.store.locks import serialise
from app.store.models import GameSet, Room, Seat


@dataclass(frozen=True)
class Choice:
    preset: QuickplayPreset
    mode: Mode
    turn_seconds: TurnSeconds

    @property
    def key(self) -> str:
        return f"quickplay:{self.preset}:{self.mode}:{self.turn_seconds}"

    def settings(self) -> dict[str, object]:
        return {
            **new_room_defaults(self.preset, public=True, rated=QUICKPLAY_RATED),
            "mode": self.mode,
            "turn_seconds": self.turn_seconds,
        }


@dataclass(frozen=True)
class Seated:
    room: Room
    seat: int
    started: bool  # every seat holds a human: the set started at once
    left: tuple[str, ...]  # other waiting quick-play rooms the player left (ids)
    closed: tuple[str, ...] = ()  # of those, the ones left with nobody (closed: no_host)


def never_played() -> ColumnElement[bool]:
    """The SQL condition of a room that has not started a set yet. A quick-play room ``open``
    after a set is not waiting for players: it shows its result until its players choose."""
    return ~exists(select(GameSet.id).where(GameSet.room_id == Room.id).correlate(Room))


def _waiting(choice: Choice) -> list[ColumnElement[bool]]:
    """The SQL conditions of a waiting public quick-play table with these settings."""
    return [
        Room.status == "open",
        Room.quickplay.is_(True),
        never_played(),
        Room.settings["preset"].as_string() == choice.preset,
        Room.settings["mode"].as_string() == choice.mode,
        Room.settings["turn_seconds"].as_integer() == choice.turn_seconds,
    ]


async def _my_waiting_rooms(session: AsyncSession, player_id: str) -> list[Room]:
    """The open quick-play rooms the player sits in: waiting ones, and ones after a set."""
    query = (
        select(Room)
        .join(Seat, and_(Seat.room_id == Room.id, Seat.player_id == player_id))
        .where(Room.status == "open", Room.quickplay.is_(True))
    )
    return list((await session.execute(query)).scalars())


async def _table_with_a_seat(session: AsyncSession, choice: Choice, avoid: set[str]) -> Room | None:
    """The longest-waiting table of this choice with an empty seat (locked) where none of
    ``avoid`` sits."""
    apart = ~exists(
        select(Seat.seat).where(Seat.room_id == Room.id, Seat.player_id.in_(avoid)).correlate(Room)
    )
    query = (
        select(Room)
        .where(*_waiting(choice), rooms.has_empty_seat(), *([apart] if avoid else []))
        .order_by(Room.created_at, Room.id)
        .limit(1)
        .with_for_update()
    )
    return (await session.execute(query)).scalar_one_or_none()


async def seat_player(
    session: AsyncSession, *, player_id: str, choice: Choice, new_code: Callable[[], str]
) -> Seated:
    """Seat the player (flushes, never commits). A player already waiting at a table of this
    choice keeps that seat; waiting at another quick-play table, or seated at one whose set is
    over, they leave it first (Play now is a new set, never the finished one again). Never at a
    table where a player sits whom they block or who blocks them."""
    await serialise(session, choice.key)
    left: list[str] = []
    closed: list[str] = []
    for room in await _my_waiting_rooms(session, player_id):
        mine = [s for s in await rooms.get_seats(session, room_id=room.id) if s.player_id]
        seat = next(s.seat for s in mine if s.player_id == player_id)
        if _same_choice(room, choice) and not await _has_played(session, room.id):
            return Seated(room, seat, False, left=tuple(left), closed=tuple(closed))
        await rooms.vacate_seat(session, room_id=room.id, seat=seat)
        if room.host_id == player_id:
            await lifecycle.hand_over_host(session, room_id=room.id)
        (closed if room.status == "closed" else left).append(room.id)
    # Read under the lock: a player who sits meanwhile waits for it, and then sees this one.
    avoid = await social.blocked_either_way(session, player_id=player_id)
    found = await _table_with_a_seat(session, choice, avoid)
    room = found or await _new_table(session, player_id=player_id, choice=choice, new_code=new_code)
    taken = {s.seat for s in await rooms.get_seats(session, room_id=room.id)}
    seat = min(n for n in range(seat_count(room.settings)) if n not in taken)
    await rooms.put_in_seat(session, room_id=room.id, seat=seat, player_id=player_id)
    await rooms.update_room(session, room=room)
    started = len(taken) + 1 == seat_count(room.settings)
    if started:  # every seat a human's: no reason to wait
        await lifecycle.start_set(session, room_id=room.id, by=None)
    return Seated(room, seat, started, left=tuple(left), closed=tuple(closed))


async def _has_played(session: AsyncSession, room_id: str) -> bool:
    played = await session.scalar(select(GameSet.id).where(GameSet.room_id == room_id).limit(1))
    return played is not None


def _same_choice(room: Room, choice: Choice) -> bool:
    s = room.settings
    return (s.get("preset"), s.get("mode"), s.get("turn_seconds")) == (
        choice.preset,
        choice.mode,
        choice.turn_seconds,
    )


async def _new_table(
    session: AsyncSession, *, player_id: str, choice: Choice, new_code: Callable[[], str]
) -> Room:
    for _ in range(8):  # 31^6 codes: a collision is rare, several in a row practically never
        code = new_code()
        if not await rooms.code_exists(session, code=code):
            return await rooms.create_room(
                session, code=code, host_id=player_id, settings=choice.settings(), quickplay=True
            )
    raise RuntimeError("could not allocate a room code")
