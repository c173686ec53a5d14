"""Lobby services: the rules of guests, rooms and seats. Routers stay thin and call these.

Each function that changes something commits; the router notifies the live layer afterwards, so
the live tables never see a change that could still roll back.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from fastapi import Request
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

import engine
from app.api.errors import ApiError, Conflict, Forbidden, Invalid, NotFound, Unavailable, refusal
from app.api.schemas import (
    ClubRef,
    PlayerOut,
    RoomOut,
    RoomSettings,
    RoomSettingsPatch,
    RoomTournamentOut,
    SeatOut,
)
from app.live import LiveTables
from app.players import clubs
from app.players.sessions import hash_token, new_token
from app.presets import (
    KLASIK_OPTIONS,
    LISTED,
    PRESET_DEFAULTS,
    PRESET_DEPENDENT,
    RULE_KEYS,
    TARGET_POINTS_MAX,
    allow_join_bots_default,
    rule_settings,
    seat_count,
    with_defaults,
)
from app.rooms import challenges, lifecycle, quickplay
from app.rooms.lifecycle import LifecycleError
from app.settings import Settings
from app.store import challenges as challenge_rows
from app.store import clubs as club_rows
from app.store import games, players, rooms
from app.store.models import Notification, Player, Room, Seat
from app.store.types import utcnow

# No 0/O, 1/I/L: codes are read aloud and typed on phones.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


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


def resolve_settings(settings: RoomSettings) -> RoomSettings:
    """The host's settings with the preset's defaults filled in, checked by the engine.

    Raises ``Invalid`` (422) naming the field: a Klasik option in a PORDI room, a target out of
    the preset's range, or the first setting (in ``RULE_KEYS`` order) the engine refuses.
    """
    data = settings.model_dump()
    preset = data["preset"]
    if data.get("allow_join_bots") is None:
        data["allow_join_bots"] = allow_join_bots_default(data["public"])
    if preset != "klasik":
        for key in KLASIK_OPTIONS:
            if data.get(key) is not None:
                raise Invalid(f"{key} is a klasik option; this room plays {preset}", field=key)
    for key, default in PRESET_DEFAULTS[preset].items():
        if data.get(key) is None:
            data[key] = default
    top = TARGET_POINTS_MAX[preset]
    if data["target_points"] > top:
        raise Invalid(
            f"target_points for {preset} is 1..{top}, not {data['target_points']}",
            field="target_points",
        )
    check_rules(data)
    return RoomSettings.model_validate(data)


def check_rules(settings: dict[str, Any]) -> engine.RuleSet:
    """Ask the engine whether it plays these settings; its refusal becomes a 422 on the field
    whose value it could not accept (the first one, adding them in ``RULE_KEYS`` order)."""
    wanted = rule_settings(settings)
    try:
        return engine.rules_from_settings(wanted)
    except engine.EngineError as exc:
        reason = exc.message
    partial: dict[str, Any] = {}
    for key in RULE_KEYS:
        if key not in wanted:
            continue
        partial[key] = wanted[key]
        try:
            engine.rules_from_settings(partial)
        except engine.EngineError as exc:
            raise Invalid(exc.message, field=key) from None
    raise Invalid(reason, field="preset")


def stored_settings(settings: RoomSettings) -> dict[str, Any]:
    """What goes into ``rooms.settings``: no key for an option the preset does not have."""
    return settings.model_dump(exclude_none=True)


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
    session: AsyncSession,
    *,
    host: Player,
    settings: RoomSettings,
    rooms_per_player: int,
    club_id: int | None = None,
) -> Room:
    """A room the host made; with ``club_id``, a club's table: the club is not closed and the
    host belongs to it (``app.players.clubs.usable_club``)."""
    settings = resolve_settings(settings)
    if club_id is not None:
        try:
            await clubs.usable_club(session, club_id=club_id, player_id=host.id)
        except clubs.ClubError as exc:
            raise refusal(exc, clubs.REFUSALS) from None
    hosted = await rooms.count_hosted_rooms(session, host_id=host.id, statuses=LISTED)
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
                session,
                code=code,
                host_id=host.id,
                settings=stored_settings(settings),
                club_id=club_id,
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


@contextmanager
def transition() -> Iterator[None]:
    """A lifecycle refusal as the API's error: 403 for ``not_host``, 409 otherwise."""
    try:
        yield
    except LifecycleError as exc:
        kind: type[ApiError] = Forbidden if exc.code == "not_host" else Conflict
        raise kind(exc.message, code=exc.code) from None


def _require_host(room: Room, player: Player) -> None:
    if room.tournament_id is not None:
        raise Conflict("a tournament's table is run by the tournament", code="tournament_room")
    if room.host_id != player.id:
        raise Forbidden("only the host can do this", code="not_host")


def _require_live(room: Room) -> None:
    if room.status in lifecycle.FINAL:
        raise Conflict(f"the room is {room.status}", code="room_closed")


def _require_open(room: Room) -> None:
    _require_live(room)
    if room.status != "open":
        raise Conflict(f"the room is {room.status}", code="room_not_open")


def _require_seat(room: Room, seat: int) -> None:
    seats = seat_count(room.settings)
    if not 0 <= seat < seats:
        raise Invalid(
            f"seat {seat} does not exist: this table has seats 0..{seats - 1}", field="seat"
        )


def may_take(room: Room, occupant: Seat, player_id: str | None) -> bool:
    """A human may take a bot's seat back when they left it, or when the host allows it."""
    if occupant.bot is None:
        return False
    if player_id is not None and occupant.left_by == player_id:
        return True
    return bool(with_defaults(room.settings)["allow_join_bots"])


def free_seats(room: Room, taken: dict[int, Seat], player_id: str | None) -> list[int]:
    """The seats this player could sit in: empty ones before the start; bots' seats they may
    take (``may_take``) while the set runs."""

    def free(occupant: Seat | None) -> bool:
        if room.status == "open":
            return occupant is None
        playing = room.status == "playing"
        return playing and occupant is not None and may_take(room, occupant, player_id)

    return [n for n in range(seat_count(room.settings)) if free(taken.get(n))]


def _refuse_seat(room: Room, taken: dict[int, Seat], player: Player, seat: int) -> ApiError:
    """``seat_taken`` while some other seat is there for the player; ``room_full`` otherwise."""
    if free_seats(room, taken, player.id):
        return Conflict(f"seat {seat} is taken", code="seat_taken", field="seat")
    return Conflict("this table is full: watch, or quick play", code="room_full", field="seat")


async def sit(session: AsyncSession, *, room: Room, player: Player, seat: int) -> None:
    """Before the start: take an empty seat (a seated player moves). While the set runs: take a
    bot's seat back that one left, or any bot's seat if the host allows it (``may_take``)."""
    _require_seat(room, seat)
    _require_live(room)
    if room.club_id is not None:
        try:
            await clubs.require_member(session, club_id=room.club_id, player_id=player.id)
        except clubs.ClubError as exc:
            raise refusal(exc, clubs.REFUSALS) from None
    taken = {s.seat: s for s in await rooms.get_seats(session, room_id=room.id)}
    current = next((s for s in taken.values() if s.player_id == player.id), None)
    if current is not None and current.seat == seat:
        return  # already there: retrying is harmless
    if room.status == "playing" and current is not None:
        raise Conflict("you already have a seat at this table", code="already_seated")
    if seat not in free_seats(room, taken, player.id):
        raise _refuse_seat(room, taken, player, seat)
    if room.status == "open":
        if current is not None:
            await rooms.vacate_seat(session, room_id=room.id, seat=current.seat)
        await _occupy(session, room=room, seat=seat, player_id=player.id)
        return
    if not await rooms.replace_bot(session, room_id=room.id, seat=seat, player_id=player.id):
        await session.rollback()  # the bot left meanwhile
        raise Conflict(f"seat {seat} is taken", code="seat_taken", field="seat")
    await rooms.update_room(session, room=room)
    await session.commit()


async def seat_bot(
    session: AsyncSession, *, room: Room, player: Player, seat: int, kind: str
) -> None:
    """Seat a bot of level ``kind`` in an empty seat; a bot already there takes that level."""
    _require_seat(room, seat)
    _require_host(room, player)
    _require_open(room)
    occupant = next(
        (s for s in await rooms.get_seats(session, room_id=room.id) if s.seat == seat), None
    )
    if occupant is None:
        await _occupy(session, room=room, seat=seat, bot=kind)
        return
    if occupant.bot is None or not await rooms.change_bot(
        session, room_id=room.id, seat=seat, kind=kind
    ):
        await session.rollback()  # a human sits there (or sat down meanwhile)
        raise Conflict(f"seat {seat} is taken", code="seat_taken", field="seat")
    await rooms.update_room(session, room=room)
    await session.commit()


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


async def leave(
    session: AsyncSession, *, room: Room, player: Player, seat: int
) -> quickplay.Departure:
    """Stand up from one's own seat, or (host) remove a bot. In a quick-play room the rules of
    ``quickplay.stand_up`` follow: the last human's departure closes it, and after a set the
    next one starts if everyone still seated chose "play again"."""
    _require_seat(room, seat)
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
    elif room.quickplay:
        with transition():
            departure = await quickplay.stand_up(session, room=room, seat=seat, player_id=player.id)
        await session.commit()
        return departure
    await rooms.vacate_seat(session, room_id=room.id, seat=seat)
    await rooms.update_room(session, room=room)
    await session.commit()
    return "left"


async def change_settings(
    session: AsyncSession, *, room: Room, player: Player, patch: RoomSettingsPatch
) -> None:
    _require_host(room, player)
    _require_live(room)
    if room.status != "open":
        raise Conflict("settings can't change after the start", code="room_started")
    if room.quickplay:
        raise Conflict("a quick-play table keeps its settings", code="quickplay_room")
    changes = patch.model_dump(exclude_none=True)
    current = engine.stuck_alias(room.settings)  # a row stored before `stuck` has `discard`
    if changes.get("preset", current.get("preset")) != current.get("preset"):
        for key in PRESET_DEPENDENT:  # the new preset's defaults, unless the patch sets them
            current.pop(key, None)
    if "public" in changes:
        current.pop("allow_join_bots", None)  # follows `public` unless the patch sets it
    merged = resolve_settings(RoomSettings.model_validate({**current, **changes}))
    seats = seat_count(merged.model_dump())
    beyond = [s.seat for s in await rooms.get_seats(session, room_id=room.id) if s.seat >= seats]
    if beyond:
        # Nobody is stood up behind their back: the host frees those seats first.
        raise Conflict(
            f"seat {beyond[0]} is taken: free seats {seats}.. before playing with {seats} seats",
            code="seat_in_use",
            field="players" if "players" in changes else "preset",
        )
    await rooms.update_room(session, room=room, settings=stored_settings(merged))
    await session.commit()


async def again(
    session: AsyncSession, *, room: Room, player: Player
) -> tuple[bool, list[Notification]]:
    """Quick play or a challenge's table, after a set: the player chooses "play again" (the
    rematch); whether the next set started, and the ``rematch`` offers to push."""
    with transition():
        started, notices = await challenges.rematch(session, room=room, player=player)
    await session.commit()
    return started, notices


async def start_now(session: AsyncSession, *, room: Room, player: Player) -> None:
    """Quick play: "start now with bots"."""
    with transition():
        await quickplay.start_now(session, room=room, player_id=player.id)
    await session.commit()


async def start(session: AsyncSession, *, room: Room, player: Player) -> None:
    """The one way to start a set (the first, and each next one once the room is open again)."""
    with transition():
        await lifecycle.start_set(session, room_id=room.id, by=player.id)
    await session.commit()


async def close(
    session: AsyncSession,
    *,
    room: Room,
    player: Player | None,
    reason: lifecycle.CloseReason = "host_closed",
) -> None:
    """The host closes the room (``player``), or an operator (None, ``reason="admin"``)."""
    by = player.id if player is not None else None
    with transition():
        await lifecycle.close(session, room_id=room.id, reason=reason, by=by)
    await session.commit()


async def _club_ref(session: AsyncSession, club_id: int | None) -> ClubRef | None:
    if club_id is None:
        return None
    club = await club_rows.get_club(session, club_id=club_id)
    return None if club is None else ClubRef.model_validate(club_rows.summary(club))


def public_base_url(request: Request, settings: Settings) -> str:
    """Where the service is reached: ``GAPLE_PUBLIC_URL``, else the address the call came to."""
    return settings.public_url or str(request.base_url)


def share_link(base_url: str, code: str) -> str:
    return f"{base_url.rstrip('/')}/r/{code}"


async def room_view(
    session: AsyncSession, *, room: Room, live: LiveTables, request: Request, settings: Settings
) -> RoomOut:
    """The room as REST shows it (its bot fill from ``GAPLE_QUICKPLAY_BOT_FILL_SECONDS``)."""
    seats = await rooms.get_seats(session, room_id=room.id)
    fill = timedelta(seconds=settings.quickplay_bot_fill_seconds)
    due = await quickplay.due(session, room, fill=fill)
    names = await players.get_player_names(
        session, player_ids=[room.host_id, *(s.player_id for s in seats if s.player_id)]
    )
    by_seat = {s.seat: s for s in seats}
    seat_views = []
    for number in range(seat_count(room.settings)):
        s = by_seat.get(number)
        if s is None:
            seat_views.append(SeatOut(seat=number))
        else:
            name = names.get(s.player_id) if s.player_id else None
            seat_views.append(
                SeatOut(
                    seat=number,
                    player_id=s.player_id,
                    name=name,
                    bot=s.bot,
                    left_by=s.left_by,
                    ready=s.ready_at is not None,
                )
            )
    return RoomOut(
        id=room.id,
        code=room.code,
        share_link=share_link(public_base_url(request, settings), room.code),
        status=room.status,  # type: ignore[arg-type]  # DB check
        closed_reason=room.closed_reason,  # type: ignore[arg-type]  # CloseReason
        quickplay=room.quickplay,
        rematch=not room.quickplay and await challenge_rows.made_room(session, room_id=room.id),
        host=PlayerOut(player_id=room.host_id, name=names.get(room.host_id, "")),
        settings=RoomSettings.model_validate(with_defaults(room.settings)),
        seats=seat_views,
        seats_taken=len(seats),
        bots_in_ms=None if due is None else quickplay.ms_until(due, utcnow()),
        humans_online=room.humans_online,
        spectators=(await live.spectator_counts([room.id])).get(room.id, 0),
        tournament=None
        if room.tournament_id is None
        else RoomTournamentOut(
            id=room.tournament_id,
            round=room.round,
            name=await games.tournament_name(session, tournament_id=room.tournament_id),
        ),
        club=await _club_ref(session, room.club_id),
        created_at=room.created_at,
        active_at=room.active_at,
    )
