"""Challenges (docs/API.md "Challenges"): a player invites one to three others to a table with
the settings they chose. Each invitee answers; once every one accepted, a room with those
settings is made with everyone seated (the challenger at seat 0; Ganda: the partner they chose
across, at seat 2), bots in the other seats unless they are left open, and the set starts.

Answers to one challenge take its lock (app/store/locks.py), so two last acceptances at once
make one room. A pending challenge past its ``expires_at`` is expired: that is read at call
time, so nothing is made late; the sweeper (app/rooms/sweeper.py) then stores it ``expired`` and
tells its players (``expire``). Whom a player may challenge is app/players/social.py's
``reachable``: a player who blocks the challenger is refused exactly as one who does not exist.

Functions take the session first, then keyword-only args; they flush but never commit. The
caller pushes the notifications and tells the live tables after the commit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import GapleError
from app.players import social
from app.presets import DEFAULT_BOT, seat_count
from app.rooms import lifecycle, quickplay
from app.store import challenges, players, rooms
from app.store.locks import serialise
from app.store.models import Challenge, ChallengeInvitee, Notification, Player, Room
from app.store.types import utcnow

ChallengeStatus = Literal["pending", "accepted", "declined", "expired", "cancelled"]
Answer = Literal["pending", "accepted", "declined"]
MAX_INVITEES = 3
PARTNER_SEAT = 2  # Ganda: across from the challenger's seat 0


class ChallengeError(GapleError):
    """codes: invalid (a bad list of invitees or partner; ``field`` names it),
    challenge_not_found (also for a player who is not part of it), challenge_expired,
    challenge_closed (answered, declined or cancelled already), not_challenger, not_invitee."""


@dataclass(frozen=True)
class Invitee:
    player_id: str
    name: str
    answer: Answer


@dataclass(frozen=True)
class View:
    challenge: Challenge
    from_name: str
    invitees: list[Invitee]
    status: ChallengeStatus
    room: Room | None  # the table made once everyone accepted


@dataclass(frozen=True)
class Done:
    view: View
    notices: list[Notification] = field(default_factory=list)  # to push after the commit
    started: bool = False  # a room was made for it: tell the live tables


def status_of(row: Challenge, now: datetime) -> ChallengeStatus:
    if row.status == "pending" and now >= row.expires_at:
        return "expired"
    return row.status  # type: ignore[return-value]  # only ChallengeStatus is stored


def _key(challenge_id: str) -> str:
    return f"challenge:{challenge_id}"


async def create(
    session: AsyncSession,
    *,
    player: Player,
    to: list[str],
    settings: dict[str, Any],
    partner: str | None,
    open_seats: bool,
    seconds: float,
) -> Done:
    """The challenge, and a ``challenge`` notification for each invitee. ``settings`` are the
    room's, resolved and checked already (as for POST /api/rooms)."""
    if len(set(to)) != len(to):
        raise ChallengeError("invalid", "a player is named twice", field="to")
    if not 1 <= len(to) <= min(MAX_INVITEES, seat_count(settings) - 1):
        raise ChallengeError(
            "invalid", f"name 1 to {MAX_INVITEES} players (one seat is yours)", field="to"
        )
    if partner is not None:
        if settings.get("mode") != "ganda":
            raise ChallengeError("invalid", "a partner is chosen in ganda only", field="partner")
        if partner not in to:
            raise ChallengeError("invalid", "the partner must be one of `to`", field="partner")
    invited = [
        await social.reachable(session, player=player, other_id=other, verb="challenge")
        for other in to
    ]
    await social.apart(session, player_ids=to)  # invitees who block one another: as nobody
    row = await challenges.add_challenge(
        session,
        from_id=player.id,
        to=to,
        settings=settings,
        partner_id=partner,
        open_seats=open_seats,
        expires_at=utcnow() + timedelta(seconds=seconds),
    )
    extra = {
        "challenge_id": row.id,
        "mode": settings.get("mode"),
        "preset": settings.get("preset"),
        "expires_at": _iso(row.expires_at),
    }
    notices = [
        await social.notify(
            session, player_id=other.id, kind=social.CHALLENGE, about=player, extra=extra
        )
        for other in invited
    ]
    return Done(await _view(session, row), notices)


def _iso(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


async def _view(session: AsyncSession, row: Challenge) -> View:
    invitees = await challenges.invitees_of(session, challenge_id=row.id)
    names = await players.get_player_names(
        session, player_ids=[row.from_id, *(i.player_id for i in invitees)]
    )
    room = None if row.room_id is None else await rooms.get_room(session, room_id=row.room_id)
    return View(
        challenge=row,
        from_name=names.get(row.from_id, ""),
        invitees=[
            Invitee(i.player_id, names.get(i.player_id, ""), i.answer)  # type: ignore[arg-type]
            for i in invitees
        ],
        status=status_of(row, utcnow()),
        room=room,
    )


async def _load(
    session: AsyncSession, challenge_id: str, player_id: str
) -> tuple[Challenge, list[ChallengeInvitee]]:
    """The challenge, for its challenger or one of its invitees; anyone else: not found."""
    row = await challenges.get_challenge(session, challenge_id=challenge_id)
    invitees = [] if row is None else await challenges.invitees_of(session, challenge_id=row.id)
    if row is None or player_id not in {row.from_id, *(i.player_id for i in invitees)}:
        raise ChallengeError("challenge_not_found", "no such challenge")
    return row, invitees


def _require_pending(row: Challenge) -> None:
    status = status_of(row, utcnow())
    if status == "expired":
        raise ChallengeError("challenge_expired", "the challenge has expired")
    if status != "pending":
        raise ChallengeError("challenge_closed", f"the challenge is {status}")


async def get(session: AsyncSession, *, player: Player, challenge_id: str) -> View:
    row, _ = await _load(session, challenge_id, player.id)
    return await _view(session, row)


async def answer(
    session: AsyncSession,
    *,
    player: Player,
    challenge_id: str,
    accept: bool,
    new_code: Callable[[], str],
) -> Done:
    """An invitee accepts or declines. The same answer again changes nothing; a declined
    invitee cannot accept later. The challenger is told each answer (``challenge_answered``,
    with the room's code once it was made)."""
    await serialise(session, _key(challenge_id))
    row, invitees = await _load(session, challenge_id, player.id)
    mine = next((i for i in invitees if i.player_id == player.id), None)
    if mine is None:
        raise ChallengeError("not_invitee", "only an invited player answers")
    wanted: Answer = "accepted" if accept else "declined"
    if mine.answer == wanted and row.status != "pending":
        return Done(await _view(session, row))
    _require_pending(row)
    if mine.answer == wanted:
        return Done(await _view(session, row))
    if accept:
        await _still_apart(session, row, invitees)
    mine.answer = wanted
    started = False
    if not accept:
        row.status = "declined"
    elif all(i.answer == "accepted" for i in invitees):
        room = await _make_room(session, row, invitees, new_code)
        row.status, row.room_id = "accepted", room.id
        started = True
    await session.flush()
    view = await _view(session, row)
    extra = {
        "challenge_id": row.id,
        "answer": wanted,
        "room": view.room.code if view.room is not None else None,
    }
    notice = await social.notify(
        session, player_id=row.from_id, kind=social.CHALLENGE_ANSWERED, about=player, extra=extra
    )
    return Done(view, [notice], started)


async def _still_apart(
    session: AsyncSession, row: Challenge, invitees: list[ChallengeInvitee]
) -> None:
    """A block made since the challenge between two of its players: it cannot be played, and
    an acceptance is answered as for a challenge that does not exist (nothing changes)."""
    try:
        await social.apart(session, player_ids=[row.from_id, *(i.player_id for i in invitees)])
    except social.SocialError:
        raise ChallengeError("challenge_not_found", "no such challenge") from None


async def expire(session: AsyncSession, *, challenge_id: str, now: datetime) -> list[Notification]:
    """Store a pending challenge past its time as ``expired`` and leave its challenger and
    invitees a ``challenge_expired`` notification (to push after the commit). Under the
    challenge's lock, as answers are: of the sweepers of several nodes and a last acceptance
    at once exactly one acts, and nothing is made late. [] when it is no longer pending."""
    await serialise(session, _key(challenge_id))
    row = await challenges.get_challenge(session, challenge_id=challenge_id)
    if row is None or row.status != "pending" or now < row.expires_at:
        return []
    row.status = "expired"
    await session.flush()
    challenger = await players.get_player(session, player_id=row.from_id)
    assert challenger is not None  # challenges.from_id references players
    invitees = await challenges.invitees_of(session, challenge_id=row.id)
    return [
        await social.notify(
            session,
            player_id=player_id,
            kind=social.CHALLENGE_EXPIRED,
            about=challenger,
            extra={"challenge_id": row.id},
        )
        for player_id in [row.from_id, *(i.player_id for i in invitees)]
    ]


def seating(row: Challenge, invitees: list[ChallengeInvitee], seats: int) -> dict[int, str]:
    """Seat -> player: the challenger at 0, the partner (Ganda) at 2, the others in the order
    named in the lowest seats left."""
    placed = {0: row.from_id}
    if row.partner_id is not None:
        placed[PARTNER_SEAT] = row.partner_id
    others = iter(i.player_id for i in invitees if i.player_id != row.partner_id)
    for seat in range(seats):
        if seat not in placed:
            player_id = next(others, None)
            if player_id is None:
                break
            placed[seat] = player_id
    return placed


async def _make_room(
    session: AsyncSession,
    row: Challenge,
    invitees: list[ChallengeInvitee],
    new_code: Callable[[], str],
) -> Room:
    room = await quickplay.open_table(
        session, host_id=row.from_id, settings=row.settings, quickplay=False, new_code=new_code
    )
    seats = seat_count(room.settings)
    placed = seating(row, invitees, seats)
    for seat in range(seats):
        if seat in placed:
            await rooms.put_in_seat(session, room_id=room.id, seat=seat, player_id=placed[seat])
        elif not row.open_seats:
            await rooms.put_in_seat(session, room_id=room.id, seat=seat, bot=DEFAULT_BOT)
    await rooms.update_room(session, room=room)
    if len(placed) == seats or not row.open_seats:
        await lifecycle.start_set(session, room_id=room.id, by=None)
    return room


async def rematch(
    session: AsyncSession, *, room: Room, player: Player
) -> tuple[bool, list[Notification]]:
    """ "Play again" after a set (``quickplay.again``: at a challenge's table, the rematch):
    whether the next set started, and, when the caller is the first to choose it there, a
    ``rematch`` notification for each other seated human (``table``: the code) — never for one
    who blocks the caller. The room is locked; flushes, never commits."""
    seats = await rooms.get_seats(session, room_id=room.id)
    humans = [s.player_id for s in seats if s.player_id is not None]
    first = not room.quickplay and all(s.ready_at is None for s in seats if s.player_id)
    started = await quickplay.again(session, room=room, player_id=player.id)
    if started or not first:
        return started, []
    avoid = await social.blocked_ids(session, player_id=player.id)
    notices = [
        await social.notify(
            session, player_id=other, kind=social.REMATCH, about=player, extra={"table": room.code}
        )
        for other in humans
        if other != player.id and other not in avoid
    ]
    return False, notices


async def cancel(session: AsyncSession, *, player: Player, challenge_id: str) -> None:
    """The challenger withdraws a pending challenge."""
    await serialise(session, _key(challenge_id))
    row, _ = await _load(session, challenge_id, player.id)
    if row.from_id != player.id:
        raise ChallengeError("not_challenger", "only the challenger cancels a challenge")
    _require_pending(row)
    row.status = "cancelled"
    await session.flush()
