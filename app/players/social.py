"""The social graph's rules: friend requests, friendships, blocks, and the notifications they
leave (docs/API.md "Friends, blocks, notifications").

A tie between two players is one row for the pair (app/store/social.py): none, ``requested`` by
one of them, or ``friends``. Every change to a pair takes the pair's lock first
(app/store/locks.py), so two requests crossing each other, or a request and a block at once, are
served one after the other on every node: a request that finds the other's request waiting
accepts it.

A block hides itself: a blocked player who asks the blocker is refused exactly as for a player
who does not exist (``player_not_found``). A block ends the pair's friendship or request.

Functions take the session first, then keyword-only args; they flush but never commit. A refusal
is a ``SocialError`` with a stable code; the API maps codes to HTTP statuses.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import GapleError
from app.store import players, social
from app.store.locks import serialise
from app.store.models import Friendship, Notification, Player
from app.store.social import FRIENDS, REQUESTED
from app.store.types import utcnow

KEEP_NOTIFICATIONS = 100  # per player: older ones are forgotten
NotificationKind = Literal[
    "friend_request",
    "friend_accepted",
    "challenge",
    "challenge_answered",
    "challenge_expired",
    "party_invite",
    "rematch",
    "warning",
    "tournament_round",
    "club_tournament",
    "club_tournament_started",
]
FRIEND_REQUEST: NotificationKind = "friend_request"
FRIEND_ACCEPTED: NotificationKind = "friend_accepted"
CHALLENGE: NotificationKind = "challenge"
CHALLENGE_ANSWERED: NotificationKind = "challenge_answered"
CHALLENGE_EXPIRED: NotificationKind = "challenge_expired"  # the sweeper (app/rooms/sweeper.py)
PARTY_INVITE: NotificationKind = "party_invite"
REMATCH: NotificationKind = "rematch"  # "play again" at a challenge's table (rematch)
WARNING: NotificationKind = "warning"  # an operator's warning (app/players/fairplay.py)
TOURNAMENT_ROUND: NotificationKind = "tournament_round"  # a round starts: the entrant's table
CLUB_TOURNAMENT: NotificationKind = "club_tournament"  # a club event is made (app/players/clubs.py)
CLUB_TOURNAMENT_STARTED: NotificationKind = "club_tournament_started"  # ...and it starts

# The one answer for a player who does not exist, and for one who blocks the caller.
NO_SUCH_PLAYER = "no such player"

TieState = Literal["friends", "outgoing"]


class SocialError(GapleError):
    """codes: player_not_found, not_yourself, friend_limit, player_blocked."""


@dataclass(frozen=True)
class Tie:
    """Another player as a list shows them; ``since``: when the tie last changed state."""

    player_id: str
    name: str
    since: datetime


@dataclass(frozen=True)
class Ties:
    friends: list[Tie]
    incoming: list[Tie]  # requests waiting for this player's answer
    outgoing: list[Tie]  # this player's requests waiting for the other's


def _pair_key(a: str, b: str) -> str:
    low, high = social.pair(a, b)
    return f"social:{low}:{high}"


async def reachable(session: AsyncSession, *, player: Player, other_id: str, verb: str) -> Player:
    """The other player, if ``player`` may ask them something (befriend, challenge, invite):
    not themselves, existing, not blocking ``player`` (answered exactly as for nobody), not
    blocked by ``player``. Take the pair's lock first where the answer must hold."""
    other = await _other(session, player, other_id, verb)
    await _not_blocked(session, player, other)
    return other


async def apart(session: AsyncSession, *, player_ids: list[str]) -> None:
    """Refuse a table for these players when one of them blocks another: answered as for a
    player who does not exist, so the block is not revealed to whoever asked."""
    if await social.blocks_among(session, player_ids=player_ids):
        raise SocialError("player_not_found", NO_SUCH_PLAYER, field="player_id")


async def blocked_ids(session: AsyncSession, *, player_id: str) -> set[str]:
    """The players this one blocks or is blocked by."""
    return await social.blocked_either_way(session, player_id=player_id)


async def blocks_among_either(session: AsyncSession, *, a: str, b: str) -> bool:
    """Whether one of the two blocks the other."""
    return bool(await social.blocks_among(session, player_ids=[a, b]))


async def _not_blocked(session: AsyncSession, player: Player, other: Player) -> None:
    if await social.get_block(session, blocker_id=other.id, blocked_id=player.id) is not None:
        raise SocialError("player_not_found", NO_SUCH_PLAYER, field="player_id")
    if await social.get_block(session, blocker_id=player.id, blocked_id=other.id) is not None:
        raise SocialError(
            "player_blocked", "you block this player: unblock them first", field="player_id"
        )


async def _other(session: AsyncSession, player: Player, other_id: str, verb: str) -> Player:
    if other_id == player.id:
        raise SocialError("not_yourself", f"you cannot {verb} yourself", field="player_id")
    other = await players.get_player(session, player_id=other_id)
    if other is None:
        raise SocialError("player_not_found", NO_SUCH_PLAYER, field="player_id")
    return other


@dataclass(frozen=True)
class Befriended:
    """The pair's state as the caller sees it, and the notification the other player was left
    (None when nothing changed)."""

    state: TieState
    notice: Notification | None = None


async def befriend(
    session: AsyncSession, *, player: Player, other_id: str, max_friends: int
) -> Befriended:
    """Ask ``other_id`` to be friends, or accept their waiting request (a request that crosses
    theirs is an acceptance). Asking again, or asking a friend, changes nothing."""
    other = await _other(session, player, other_id, "befriend")
    await serialise(session, _pair_key(player.id, other.id))
    await _not_blocked(session, player, other)
    row = await social.get_friendship(session, a=player.id, b=other.id)
    if row is not None and row.state == FRIENDS:
        return Befriended("friends")
    if row is not None and row.requester_id == player.id:
        return Befriended("outgoing")
    await _check_room_for_a_friend(session, player.id, max_friends, "you have")
    if row is None:
        await social.add_request(session, requester_id=player.id, other_id=other.id)
        return Befriended("outgoing", await _notify(session, other.id, FRIEND_REQUEST, player))
    await _check_room_for_a_friend(session, other.id, max_friends, "they have")
    await social.make_friends(session, row=row)
    return Befriended("friends", await _notify(session, other.id, FRIEND_ACCEPTED, player))


async def _check_room_for_a_friend(
    session: AsyncSession, player_id: str, max_friends: int, who: str
) -> None:
    if await social.count_friends(session, player_id=player_id) >= max_friends:
        raise SocialError("friend_limit", f"{who} {max_friends} friends, the most there can be")


async def unfriend(session: AsyncSession, *, player: Player, other_id: str) -> bool:
    """Decline their request, cancel one's own, or end the friendship: the pair has no tie
    afterwards. False when there was none."""
    other = await _other(session, player, other_id, "unfriend")
    await serialise(session, _pair_key(player.id, other.id))
    row = await social.get_friendship(session, a=player.id, b=other.id)
    if row is None:
        return False
    await _withdraw(session, row)
    return True


async def _withdraw(session: AsyncSession, row: Friendship) -> None:
    """Delete the tie; a request that goes takes its notification with it."""
    if row.state == REQUESTED:
        asked = social.other_of(row, row.requester_id)
        await social.delete_notifications_about(
            session, player_id=asked, kind=FRIEND_REQUEST, about=row.requester_id
        )
    await social.delete_friendship(session, a=row.low_id, b=row.high_id)


async def ties(session: AsyncSession, *, player_id: str) -> Ties:
    rows = await social.ties_of(session, player_id=player_id)
    others = [social.other_of(row, player_id) for row in rows]
    names = await players.get_player_names(session, player_ids=others)
    found = Ties(friends=[], incoming=[], outgoing=[])
    for row, other in zip(rows, others, strict=True):
        tie = Tie(player_id=other, name=names.get(other, ""), since=row.updated_at)
        if row.state == FRIENDS:
            found.friends.append(tie)
        elif row.requester_id == player_id:
            found.outgoing.append(tie)
        else:
            found.incoming.append(tie)
    return found


# --- blocks ---------------------------------------------------------------------------------------


async def block(session: AsyncSession, *, player: Player, other_id: str) -> bool:
    """Block ``other_id``: their friendship or request with the caller ends. False when they
    were blocked already (nothing changes)."""
    other = await _other(session, player, other_id, "block")
    await serialise(session, _pair_key(player.id, other.id))
    if await social.get_block(session, blocker_id=player.id, blocked_id=other.id) is not None:
        return False
    await social.add_block(session, blocker_id=player.id, blocked_id=other.id)
    row = await social.get_friendship(session, a=player.id, b=other.id)
    if row is not None:
        await _withdraw(session, row)
    return True


async def unblock(session: AsyncSession, *, player: Player, other_id: str) -> bool:
    """Lift the block; False when there was none. Nothing it ended comes back."""
    other = await _other(session, player, other_id, "unblock")
    await serialise(session, _pair_key(player.id, other.id))
    return await social.delete_block(session, blocker_id=player.id, blocked_id=other.id)


async def blocked(session: AsyncSession, *, player_id: str) -> list[Tie]:
    rows = await social.blocks_by(session, blocker_id=player_id)
    names = await players.get_player_names(session, player_ids=[r.blocked_id for r in rows])
    return [
        Tie(player_id=r.blocked_id, name=names.get(r.blocked_id, ""), since=r.created_at)
        for r in rows
    ]


# --- notifications --------------------------------------------------------------------------------


async def _notify(
    session: AsyncSession, player_id: str, kind: NotificationKind, about: Player
) -> Notification:
    return await notify(session, player_id=player_id, kind=kind, about=about)


async def notify(
    session: AsyncSession,
    *,
    player_id: str,
    kind: NotificationKind,
    about: Player,
    extra: dict[str, Any] | None = None,
) -> Notification:
    """Store a notification for ``player_id`` about what ``about`` did: its payload names them
    (``player_id``, ``name``) and carries ``extra``. Pushing it live is the caller's, after the
    commit (``Hub.notify``)."""
    payload: dict[str, Any] = {"player_id": about.id, "name": about.name, **(extra or {})}
    return await social.add_notification(
        session, player_id=player_id, kind=kind, payload=payload, keep=KEEP_NOTIFICATIONS
    )


async def notify_all(
    session: AsyncSession,
    *,
    kind: NotificationKind,
    about: Player,
    extras: list[tuple[str, dict[str, Any]]],
) -> list[Notification]:
    """``notify`` for many players at once, (player, extra) each, in two statements."""
    rows = [
        (player_id, kind, {"player_id": about.id, "name": about.name, **extra})
        for player_id, extra in extras
    ]
    return await social.add_notifications(session, rows=rows, keep=KEEP_NOTIFICATIONS)


@dataclass(frozen=True)
class Inbox:
    notifications: list[Notification]  # newest first
    unread: int


async def inbox(session: AsyncSession, *, player_id: str) -> Inbox:
    rows = await social.notifications_of(session, player_id=player_id)
    return Inbox(notifications=rows, unread=sum(1 for row in rows if row.read_at is None))


async def mark_read(session: AsyncSession, *, player_id: str, ids: list[int] | None) -> int:
    """Mark the player's notifications ``ids`` (None: all of them) read; ids that are not (or no
    longer) the player's are passed over. How many changed."""
    return await social.mark_read(session, player_id=player_id, ids=ids, at=utcnow())


# --- presence -------------------------------------------------------------------------------------


async def friend_ids(session: AsyncSession, *, player_id: str) -> dict[str, bool]:
    """The player's friends, each with whether they hide their presence."""
    rows = await social.ties_of(session, player_id=player_id)
    ids = [social.other_of(row, player_id) for row in rows if row.state == FRIENDS]
    return await players.presence_hidden(session, player_ids=ids)


async def set_presence_visible(session: AsyncSession, *, player: Player, visible: bool) -> bool:
    """Show or hide the player's presence to their friends; whether it changed."""
    if player.presence_hidden == (not visible):
        return False
    player.presence_hidden = not visible
    await session.flush()
    return True
