"""Quick play: one tap to a seat at a waiting public table with the chosen settings.

Callers with the same settings are served one at a time, on every node: PostgreSQL takes a
transaction-scoped advisory lock on the settings key, SQLite (one writer) takes its write lock
first (app/store/locks.py). So two callers at once never get the same seat, and never open two
half-empty tables when one would do: the second sees the first one's table and sits there.
Two players where one blocks the other are never seated at one table: the check is made under
the same lock as the choice of the table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import ColumnElement, and_, exists, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.presets import (
    QUICKPLAY_BOT,
    QUICKPLAY_RATED,
    Mode,
    QuickplayPreset,
    TurnSeconds,
    new_room_defaults,
    seat_count,
)
from app.rooms import lifecycle
from app.rooms.lifecycle import LifecycleError
from app.store import challenges, parties, rooms, social
from app.store.locks import serialise
from app.store.models import GameSet, Room, Seat
from app.store.types import utcnow


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
    restarted: tuple[str, ...] = ()  # of those, finished ones whose next set started


def waiting(room: Room, *, played: bool) -> bool:
    """The one rule of what a quick-play room is waiting for. True: a fresh room waiting for
    players (bots fill it GAPLE_QUICKPLAY_BOT_FILL_SECONDS after the last human sat down). False:
    anything else; in particular a room ``open`` again after a set is *finished*: its result
    stays, and each player chooses "play again" (``again``) or leaves (``finished``)."""
    return room.quickplay and room.status == "open" and not played


def finished(room: Room, *, played: bool) -> bool:
    """An ``open`` quick-play room after a set: its players choose "play again" or leave."""
    return room.quickplay and room.status == "open" and played


def bots_at(room: Room, seats: Sequence[Seat], *, played: bool, fill: timedelta) -> datetime | None:
    """When bots fill the room and its set starts, or None if nothing is pending. A waiting
    room: ``fill`` after the last human sat down. A finished room: ``fill`` after the first
    "play again" (then the seats of humans who did not choose it go to bots too)."""
    humans = [s for s in seats if s.player_id is not None]
    if not humans:
        return None
    if waiting(room, played=played):
        return max(s.sat_at for s in humans) + fill
    if finished(room, played=played):
        ready = [s.ready_at for s in humans if s.ready_at is not None]
        return min(ready) + fill if ready else None
    return None


def ms_until(at: datetime, now: datetime) -> int:
    """Milliseconds from ``now`` to ``at`` (0 once it is past: the fill is due)."""
    return max(0, round((at - now).total_seconds() * 1000))


async def has_played(session: AsyncSession, room_id: str) -> bool:
    played = await session.scalar(select(GameSet.id).where(GameSet.room_id == room_id).limit(1))
    return played is not None


async def due(session: AsyncSession, room: Room, *, fill: timedelta) -> datetime | None:
    """``bots_at`` of a stored room."""
    if not room.quickplay or room.status != "open":
        return None
    seats = await rooms.get_seats(session, room_id=room.id)
    return bots_at(room, seats, played=await has_played(session, room.id), fill=fill)


async def fill_and_start(session: AsyncSession, *, room: Room) -> None:
    """Bots into the empty seats and into those of humans who did not choose "play again"
    (after a set), then the set starts (flushes, never commits). The room is locked."""
    played = await has_played(session, room.id)
    seats = {s.seat: s for s in await rooms.get_seats(session, room_id=room.id)}
    for number in range(seat_count(room.settings)):
        seat = seats.get(number)
        if seat is not None and seat.player_id is not None and played and seat.ready_at is None:
            await rooms.vacate_seat(session, room_id=room.id, seat=number)
            seat = None
        if seat is None:
            await rooms.put_in_seat(session, room_id=room.id, seat=number, bot=QUICKPLAY_BOT)
    await _start(session, room=room)


async def _start(session: AsyncSession, *, room: Room) -> None:
    await rooms.clear_ready(session, room_id=room.id)
    if room.host_id not in {s.player_id for s in await rooms.get_seats(session, room_id=room.id)}:
        await lifecycle.hand_over_host(session, room_id=room.id)
    await lifecycle.start_set(session, room_id=room.id, by=None)


async def _my_seat(
    session: AsyncSession, room: Room, player_id: str, *, rematch: bool = False
) -> Seat:
    """The caller's seat at an open quick-play table (``rematch``: or a challenge's)."""
    if not room.quickplay and not (
        rematch and await challenges.made_room(session, room_id=room.id)
    ):
        raise LifecycleError("not_quickplay", "this is not a quick-play table")
    if room.status in lifecycle.FINAL:
        raise LifecycleError("room_closed", f"the room is {room.status}")
    if room.status == "playing":
        raise LifecycleError("set_in_progress", "a set is being played")
    seat = next(
        (s for s in await rooms.get_seats(session, room_id=room.id) if s.player_id == player_id),
        None,
    )
    if seat is None:
        raise LifecycleError("not_seated", "you have no seat at this table")
    return seat


async def again(session: AsyncSession, *, room: Room, player_id: str) -> bool:
    """The player chooses "play again" after a set (flushes, never commits; the room is
    locked). Returns whether the next set started: it does once every seated human chose it
    (bots into the empty seats); until then bots fill ``fill`` after the first choice (quick
    play). At a challenge's table this is the rematch (app/rooms/challenges.py ``rematch``):
    the same, without the bot fill."""
    seat = await _my_seat(session, room, player_id, rematch=True)
    if not await has_played(session, room.id):
        raise LifecycleError("not_playing", "no set has been played here yet")
    if seat.ready_at is None:
        seat.ready_at = utcnow()
        await rooms.update_room(session, room=room)
    return await settle(session, room=room)


async def start_now(session: AsyncSession, *, room: Room, player_id: str) -> None:
    """ "Start now with bots": the seated player does now what the bot fill would do later (a
    waiting room: bots into the empty seats; a finished one: the player chooses "play again",
    and bots take the seats of those who did not)."""
    seat = await _my_seat(session, room, player_id)
    if seat.ready_at is None and await has_played(session, room.id):
        seat.ready_at = utcnow()
        await session.flush()
    await fill_and_start(session, room=room)


async def settle(session: AsyncSession, *, room: Room) -> bool:
    """After a choice or a departure in a finished room: start the next set when every seated
    human chose "play again". Returns whether it started."""
    # (a challenge's table too: its rematch; ``finished`` is quick play's, for the bot fill)
    if room.status != "open" or not await has_played(session, room.id):
        return False
    humans = [s for s in await rooms.get_seats(session, room_id=room.id) if s.player_id]
    if not humans or any(s.ready_at is None for s in humans):
        return False
    await fill_and_start(session, room=room)
    return True


Departure = Literal["left", "closed", "started"]


async def stand_up(session: AsyncSession, *, room: Room, seat: int, player_id: str) -> Departure:
    """The player leaves their seat of an open quick-play room (flushes, never commits; the
    room is locked). No human left seated: the room closes (``no_host``). Otherwise the host
    passes on if it was them, and in a finished room the next set starts if everyone still
    seated has chosen "play again"."""
    await rooms.vacate_seat(session, room_id=room.id, seat=seat)
    await rooms.update_room(session, room=room)
    humans = [s for s in await rooms.get_seats(session, room_id=room.id) if s.player_id]
    if not humans:
        await lifecycle.close(session, room_id=room.id, reason="no_host")
        return "closed"
    if room.host_id == player_id:
        await lifecycle.hand_over_host(session, room_id=room.id)
    return "started" if await settle(session, room=room) else "left"


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


async def _my_waiting_rooms(
    session: AsyncSession, player_id: str, *, playing: bool = False
) -> list[Room]:
    """The open quick-play rooms the player sits in: waiting ones, and ones after a set (and,
    with ``playing``, those whose set is being played)."""
    statuses = ("open", "playing") if playing else ("open",)
    query = (
        select(Room)
        .join(Seat, and_(Seat.room_id == Room.id, Seat.player_id == player_id))
        .where(Room.status.in_(statuses), Room.quickplay.is_(True))
    )
    return list((await session.execute(query)).scalars())


async def _table_with_a_seat(
    session: AsyncSession, choice: Choice, avoid: set[str], avoid_mark: str | None = None
) -> Room | None:
    """The longest-waiting table of this choice with an empty seat (locked) where none of
    ``avoid`` sits, nor (``avoid_mark``) anyone from that address mark."""
    apart = ~exists(
        select(Seat.seat).where(Seat.room_id == Room.id, Seat.player_id.in_(avoid)).correlate(Room)
    )
    elsewhere = ~exists(
        select(Seat.seat)
        .where(Seat.room_id == Room.id, Seat.client_mark == avoid_mark)
        .correlate(Room)
    )
    conditions = [*([apart] if avoid else []), *([elsewhere] if avoid_mark else [])]
    query = (
        select(Room)
        .where(*_waiting(choice), rooms.has_empty_seat(), *conditions)
        .order_by(Room.created_at, Room.id)
        .limit(1)
        .with_for_update()
    )
    return (await session.execute(query)).scalar_one_or_none()


async def seat_player(
    session: AsyncSession,
    *,
    player_id: str,
    choice: Choice,
    new_code: Callable[[], str],
    mark: str | None = None,
    apart_by_address: bool = False,
) -> Seated:
    """Seat the player (flushes, never commits). A player already waiting at a table of this
    choice keeps that seat; waiting at another quick-play table, or seated at one whose set is
    over, they leave it first (Play now is a new set, never the finished one again). Never at a
    table where a player sits whom they block or who blocks them. Ganda, in a party: both
    partners are seated, across from each other (``_seat_pair``). ``mark``: the caller's
    address mark (app/clients.py), kept on the seat; with ``apart_by_address`` the caller is
    never seated where someone from that address sits (GAPLE_APART_BY_ADDRESS)."""
    await serialise(session, choice.key)
    gone: dict[Departure, list[str]] = {"left": [], "closed": [], "started": []}
    # Read under the lock: a player who sits meanwhile waits for it, and then sees this one.
    avoid = await social.blocked_either_way(session, player_id=player_id)
    partner = await parties.partner_of(session, player_id=player_id)
    if choice.mode == "ganda" and partner is not None and partner not in avoid:
        return await _seat_pair(session, (player_id, partner), choice, new_code, avoid, gone)
    kept = await _leave_waiting(session, player_id, choice, gone)
    if kept is not None:
        return _seated(kept[0], kept[1], False, gone)
    found = await _table_with_a_seat(session, choice, avoid, mark if apart_by_address else None)
    room = found or await _new_table(session, player_id=player_id, choice=choice, new_code=new_code)
    taken = {s.seat for s in await rooms.get_seats(session, room_id=room.id)}
    seat = min(n for n in range(seat_count(room.settings)) if n not in taken)
    return await _sit(session, room, {seat: player_id}, len(taken), gone, mark)


def _seated(room: Room, seat: int, started: bool, gone: dict[Departure, list[str]]) -> Seated:
    left = tuple(gone["left"] + gone["started"])
    return Seated(room, seat, started, left, tuple(gone["closed"]), tuple(gone["started"]))


async def _sit(
    session: AsyncSession,
    room: Room,
    placed: dict[int, str],
    taken: int,
    gone: dict[Departure, list[str]],
    mark: str | None = None,
) -> Seated:
    """Put ``placed`` (seat -> player, the caller first, from address ``mark``) in a table where
    ``taken`` seats are occupied; the set starts when every seat then holds a human."""
    for seat, player_id in placed.items():
        await rooms.put_in_seat(
            session, room_id=room.id, seat=seat, player_id=player_id, client_mark=mark
        )
    await rooms.update_room(session, room=room)
    started = taken + len(placed) == seat_count(room.settings)
    if started:  # every seat a human's: no reason to wait
        await lifecycle.start_set(session, room_id=room.id, by=None)
    return _seated(room, next(iter(placed)), started, gone)


async def _leave_waiting(
    session: AsyncSession,
    player_id: str,
    choice: Choice | None,
    gone: dict[Departure, list[str]],
) -> tuple[Room, int] | None:
    """The player leaves the open quick-play rooms they sit in, except a waiting one of
    ``choice``: that one and their seat are returned (they keep it)."""
    for room in await _my_waiting_rooms(session, player_id):
        mine = [s for s in await rooms.get_seats(session, room_id=room.id) if s.player_id]
        seat = next(s.seat for s in mine if s.player_id == player_id)
        keep = choice is not None and _same_choice(room, choice)
        if keep and not await has_played(session, room.id):
            return room, seat
        gone[await stand_up(session, room=room, seat=seat, player_id=player_id)].append(room.id)
    return None


ACROSS = ((0, 2), (1, 3))  # Ganda's partners' seats


async def _seat_pair(
    session: AsyncSession,
    pair: tuple[str, str],
    choice: Choice,
    new_code: Callable[[], str],
    avoid: set[str],
    gone: dict[Departure, list[str]],
) -> Seated:
    """Seat the caller and their partner across from each other at the longest-waiting Ganda
    table of this choice with two such seats free and nobody either of them is blocked with
    (another party may take the other two), or at a new one. Partners already across at a
    waiting table of this choice keep their seats; any other open quick-play seat is left."""
    me, partner = pair
    for room in await _my_waiting_rooms(session, me, playing=True):
        seats = {s.player_id: s.seat for s in await rooms.get_seats(session, room_id=room.id)}
        if (
            _same_choice(room, choice)
            and (room.status == "playing" or not await has_played(session, room.id))
            and partner in seats
            and (seats[me] - seats[partner]) % 4 == 2
        ):
            # The partner's call seated both already (and others may have filled the table
            # since, so that its set started): the same seats, not a second table.
            return _seated(room, seats[me], False, gone)
    for player_id in pair:
        await _leave_waiting(session, player_id, None, gone)
    avoid = avoid | await social.blocked_either_way(session, player_id=partner)
    found = await _table_with_two_across(session, choice, avoid)
    if found is None:
        room = await _new_table(session, player_id=me, choice=choice, new_code=new_code)
        found = room, ACROSS[0], 0
    room, (mine, theirs), taken = found
    return await _sit(session, room, {mine: me, theirs: partner}, taken, gone)


async def _table_with_two_across(
    session: AsyncSession, choice: Choice, avoid: set[str]
) -> tuple[Room, tuple[int, int], int] | None:
    """The longest-waiting table of this choice (locked) with two free seats across and none
    of ``avoid`` seated: the table, those seats, how many seats are taken."""
    apart = ~exists(
        select(Seat.seat).where(Seat.room_id == Room.id, Seat.player_id.in_(avoid)).correlate(Room)
    )
    query = (
        select(Room)
        .where(*_waiting(choice), rooms.has_empty_seat(), *([apart] if avoid else []))
        .order_by(Room.created_at, Room.id)
        .with_for_update()
    )
    for room in (await session.execute(query)).scalars():
        taken = {s.seat for s in await rooms.get_seats(session, room_id=room.id)}
        for across in ACROSS:
            if not taken & set(across):
                return room, across, len(taken)
    return None


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
    return await open_table(
        session, host_id=player_id, settings=choice.settings(), quickplay=True, new_code=new_code
    )


async def open_table(
    session: AsyncSession,
    *,
    host_id: str,
    settings: dict[str, Any],
    quickplay: bool,
    new_code: Callable[[], str],
) -> Room:
    """A new open room with a fresh code (flushes, never commits): quick play's, or the one a
    challenge makes (app/rooms/challenges.py)."""
    made = await open_tables(
        session, hosts=[host_id], settings=settings, quickplay=quickplay, new_code=new_code
    )
    return made[0]


async def open_tables(
    session: AsyncSession,
    *,
    hosts: Sequence[str],
    settings: dict[str, Any],
    quickplay: bool,
    new_code: Callable[[], str],
    **columns: Any,
) -> list[Room]:
    """``open_table`` for each of ``hosts`` (a tournament round's tables, with ``columns``),
    the codes checked in one query and the rooms made in one flush."""
    codes: list[str] = []
    for _ in range(8):  # 31^6 codes: a collision is rare, several in a row practically never
        wanted = len(hosts) - len(codes)
        fresh = list(dict.fromkeys(new_code() for _ in range(wanted)))
        taken = await rooms.codes_taken(session, codes=fresh)
        codes += [c for c in fresh if c not in taken and c not in codes]
        if len(codes) >= len(hosts):
            break
    else:
        raise RuntimeError("could not allocate a room code")
    return await rooms.create_rooms(
        session,
        hosts=dict(zip(codes, hosts, strict=True)),
        settings=settings,
        quickplay=quickplay,
        **columns,
    )
