"""Clubs' rules: founding a club, joining (at once, or by a request a leader answers), leaders,
leaving, and who may use a club's tables and events (docs/API.md "Clubs").

A club has one or more ``leader``s and any number of ``member``s. Only accounts found or join
clubs (a guest's identity does not last), and a player belongs to at most ``max_clubs`` clubs
(``GAPLE_MAX_CLUBS``) that are not closed. The last leader cannot leave while others remain
without naming a successor; the last member leaving closes the club. A moderator may rename or
close any club (app/api/clubs.py, under /api/admin).

Every change to a club's members takes the club's lock first (app/store/locks.py), then the
player's, so a join and an acceptance, or two leaders answering at once, are served one after
the other on every node.

Functions take the session first, then keyword-only args; they flush but never commit. A refusal
is a ``ClubError`` with a stable code; ``REFUSALS`` gives the HTTP status the API answers.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from app import cursors
from app.errors import GapleError
from app.players import accounts, social
from app.players.ratings import MODEL, displayed, ordinal
from app.presets import LISTED, seat_count
from app.store import clubs as store
from app.store.clubs import LEADER
from app.store.locks import serialise
from app.store.models import RATED_MODES, Club, ClubMember, Notification, Player, Tournament
from app.store.types import utcnow

NAME_LENGTH = (3, 40)  # characters, after trimming
DESCRIPTION_LENGTH = 500
EVENTS_SHOWN = 20  # the club's latest events on its page
TABLES_SHOWN = 20  # and its tables in use
BATTLE_CLUBS = 10  # the most clubs one team battle lists

# Every code a refusal may carry, and the HTTP status the API answers it with.
REFUSALS: dict[str, int] = {
    "invalid": 422,
    "account_required": 403,
    "not_leader": 403,
    "not_club_member": 403,
    "club_not_found": 404,
    "member_not_found": 404,
    "request_not_found": 404,
    "club_name_taken": 409,
    "club_limit": 409,
    "club_closed": 409,
    "last_leader": 409,
    "member_is_leader": 409,
}

Joined = Literal["member", "requested"]


class ClubError(GapleError):
    """A request about a club that is not allowed; ``code`` is one of ``REFUSALS``."""

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        assert code in REFUSALS, code
        super().__init__(code, message, field=field)


def name_key(name: str) -> str:
    """What makes two names the same club's: the name case-folded."""
    return name.casefold()


def check_name(name: str) -> str:
    """A clean name (trimmed, printable: ``app.api.lobby.clean_name``) within ``NAME_LENGTH``,
    its case-folded key too."""
    low, high = NAME_LENGTH
    if not low <= len(name) <= high or len(name_key(name)) > high:
        raise ClubError("invalid", f"a club's name is {low}..{high} characters", field="name")
    return name


def check_description(text: str) -> str:
    text = text.strip()
    if len(text) > DESCRIPTION_LENGTH:
        raise ClubError(
            "invalid",
            f"a description is at most {DESCRIPTION_LENGTH} characters",
            field="description",
        )
    if any(not (c.isprintable() or c == "\n") for c in text):
        raise ClubError(
            "invalid", "a description must not contain control characters", field="description"
        )
    return text


async def _account(session: AsyncSession, player: Player, verb: str) -> None:
    if await accounts.account_of(session, player_id=player.id) is None:
        raise ClubError("account_required", f"save an account first: a guest cannot {verb} a club")


async def _club(session: AsyncSession, club_id: int, *, lock: bool = True) -> Club:
    if lock:
        await serialise(session, f"club:{club_id}")
    club = await store.get_club(session, club_id=club_id)
    if club is None:
        raise ClubError("club_not_found", "no such club")
    return club


def _live(club: Club) -> None:
    if club.closed_at is not None:
        raise ClubError("club_closed", "the club is closed")


async def _room_for_a_club(session: AsyncSession, player_id: str, max_clubs: int, who: str) -> None:
    await serialise(session, f"clubs-of:{player_id}")
    if await store.count_clubs_of(session, player_id=player_id) >= max_clubs:
        raise ClubError("club_limit", f"{who} in {max_clubs} clubs, the most there can be")


async def _leader(session: AsyncSession, club: Club, player: Player) -> None:
    row = await store.membership(session, club_id=club.id, player_id=player.id)
    if row is None or row.role != LEADER:
        raise ClubError("not_leader", "only a leader of the club can do this")


# --- founding, joining ----------------------------------------------------------------------------


async def create(
    session: AsyncSession,
    *,
    player: Player,
    name: str,
    description: str,
    open: bool,
    max_clubs: int,
) -> Club:
    """A new club, ``player`` (an account) its first leader. Refused when the name (in any case)
    is another club's, or the player is in ``max_clubs`` clubs already."""
    await _account(session, player, "found")
    name = check_name(name)
    description = check_description(description)
    key = name_key(name)
    await serialise(session, f"club-name:{key}")
    if await store.name_taken(session, name_key=key):
        raise ClubError("club_name_taken", "a club has this name already", field="name")
    await _room_for_a_club(session, player.id, max_clubs, "you are")
    club = await store.add_club(
        session, name=name, name_key=key, description=description, open=open
    )
    await store.add_member(session, club_id=club.id, player_id=player.id, role=LEADER)
    return club


async def join(session: AsyncSession, *, player: Player, club_id: int, max_clubs: int) -> Joined:
    """Join an open club at once (``member``), or ask to join a closed one (``requested``).
    Asking again, or a member joining, changes nothing."""
    await _account(session, player, "join")
    club = await _club(session, club_id)
    _live(club)
    if await store.membership(session, club_id=club.id, player_id=player.id) is not None:
        return "member"
    if not club.open:
        if await store.get_request(session, club_id=club.id, player_id=player.id) is None:
            await store.add_request(session, club_id=club.id, player_id=player.id)
        return "requested"
    await _room_for_a_club(session, player.id, max_clubs, "you are")
    await store.add_member(session, club_id=club.id, player_id=player.id)
    return "member"


async def answer(
    session: AsyncSession,
    *,
    leader: Player,
    club_id: int,
    player_id: str,
    accept: bool,
    max_clubs: int,
) -> bool:
    """A leader accepts (the player is a member) or declines (the request goes) a request.
    Whether the player is a member afterwards."""
    club = await _club(session, club_id)
    _live(club)
    await _leader(session, club, leader)
    if await store.get_request(session, club_id=club.id, player_id=player_id) is None:
        raise ClubError("request_not_found", "no such request", field="player_id")
    if accept:
        await _room_for_a_club(session, player_id, max_clubs, "they are")
    await store.delete_request(session, club_id=club.id, player_id=player_id)
    if accept:
        await store.add_member(session, club_id=club.id, player_id=player_id)
    return accept


async def _leaders_member(
    session: AsyncSession, *, leader: Player, club_id: int, player_id: str
) -> tuple[Club, ClubMember]:
    """The live club whose leader ``leader`` is, and its member ``player_id`` they act on."""
    club = await _club(session, club_id)
    _live(club)
    await _leader(session, club, leader)
    row = await store.membership(session, club_id=club.id, player_id=player_id)
    if row is None:
        raise ClubError("member_not_found", "no such member of the club", field="player_id")
    return club, row


async def remove(session: AsyncSession, *, leader: Player, club_id: int, player_id: str) -> None:
    """A leader removes a member (a leader stays: leaders leave by themselves)."""
    club, row = await _leaders_member(session, leader=leader, club_id=club_id, player_id=player_id)
    if row.role == LEADER:
        raise ClubError(
            "member_is_leader", "a leader cannot be removed; they may leave", field="player_id"
        )
    await store.remove_member(session, club_id=club.id, player_id=player_id)


async def promote(session: AsyncSession, *, leader: Player, club_id: int, player_id: str) -> bool:
    """A leader makes another member a leader; False when they were one already."""
    _, row = await _leaders_member(session, leader=leader, club_id=club_id, player_id=player_id)
    if row.role == LEADER:
        return False
    row.role = LEADER
    await session.flush()
    return True


async def leave(
    session: AsyncSession, *, player: Player, club_id: int, successor_id: str | None = None
) -> bool:
    """The player leaves. The last leader names a member as the next (``successor_id``) while
    others remain; the last member leaving closes the club. Whether the club closed."""
    club = await _club(session, club_id)
    _live(club)
    row = await store.membership(session, club_id=club.id, player_id=player.id)
    if row is None:
        raise ClubError("member_not_found", "you are not a member of this club")
    if successor_id is not None:
        if successor_id == player.id:
            raise ClubError("invalid", "name another member", field="successor")
        await _leader(session, club, player)
        heir = await store.membership(session, club_id=club.id, player_id=successor_id)
        if heir is None:
            raise ClubError("member_not_found", "no such member of the club", field="successor")
        heir.role = LEADER
    members = await store.count_members(session, club_id=club.id)
    leaders = await store.count_members(session, club_id=club.id, role=LEADER)
    if row.role == LEADER and leaders == 1 and members > 1:
        raise ClubError(
            "last_leader",
            "you are the club's last leader: name another member as leader first",
            field="successor",
        )
    await store.remove_member(session, club_id=club.id, player_id=player.id)
    if members == 1:
        club.closed_at = utcnow()
        await session.flush()
        return True
    return False


async def edit(
    session: AsyncSession,
    *,
    leader: Player,
    club_id: int,
    description: str | None,
    open: bool | None,
) -> Club:
    """A leader changes the description, or whether anyone may join at once."""
    club = await _club(session, club_id)
    _live(club)
    await _leader(session, club, leader)
    if description is not None:
        club.description = check_description(description)
    if open is not None:
        club.open = open
    await session.flush()
    return club


# --- the moderators -------------------------------------------------------------------------------


async def rename(session: AsyncSession, *, club_id: int, name: str) -> Club:
    """A moderator renames the club (to a name no other club has, in any case)."""
    club = await _club(session, club_id)
    name = check_name(name)
    key = name_key(name)
    await serialise(session, f"club-name:{key}")
    if await store.name_taken(session, name_key=key, other_than=club.id):
        raise ClubError("club_name_taken", "a club has this name already", field="name")
    club.name, club.name_key = name, key
    await session.flush()
    return club


async def close(session: AsyncSession, *, club_id: int, at: datetime | None = None) -> bool:
    """A moderator closes the club: nobody joins it, its tables and events are no longer made.
    False when it was closed already."""
    club = await _club(session, club_id)
    if club.closed_at is not None:
        return False
    club.closed_at = at or utcnow()
    await session.flush()
    return True


# --- club tables and events -----------------------------------------------------------------------


async def usable_club(session: AsyncSession, *, club_id: int, player_id: str) -> Club:
    """The club a table or an event is made for: it exists, is not closed, and ``player_id`` (who
    makes it) belongs to it."""
    club = await _club(session, club_id, lock=False)
    _live(club)
    await require_member(session, club_id=club.id, player_id=player_id)
    return club


async def require_member(
    session: AsyncSession, *, club_id: int, player_id: str, field: str | None = None
) -> None:
    """Refuse (``not_club_member``) a player who does not belong to the club."""
    if await store.membership(session, club_id=club_id, player_id=player_id) is None:
        raise ClubError("not_club_member", "only the club's members can do this", field=field)


async def announce(
    session: AsyncSession,
    *,
    kind: social.NotificationKind,
    tournament: Tournament,
    club_ids: list[int],
    about: Player,
) -> list[Notification]:
    """Tell every member of these clubs of a club event (``kind``: created or started)."""
    clubs = await store.get_clubs(session, club_ids=club_ids)
    memberships = await store.members_among(session, club_ids=club_ids)
    extras = []
    for player_id in sorted(memberships):
        # A member of several of a battle's clubs hears of it once, as the first listed's.
        club = clubs[min(memberships[player_id], key=club_ids.index)]
        extras.append(
            (
                player_id,
                {
                    "club_id": club.id,
                    "club": club.name,
                    "tournament_id": tournament.id,
                    "tournament": tournament.name,
                    "starts_at": tournament.starts_at.isoformat(),
                },
            )
        )
    if not extras:
        return []
    return await social.notify_all(session, kind=kind, about=about, extras=extras)


# --- reading --------------------------------------------------------------------------------------


async def clubs_of(session: AsyncSession, *, player_id: str) -> list[dict[str, Any]]:
    """The player's clubs as a profile lists them."""
    return [
        {**store.summary(club), "role": role}
        for club, role in await store.clubs_of(session, player_id=player_id)
    ]


async def listing(
    session: AsyncSession, *, query: str | None, limit: int, cursor: str | None
) -> dict[str, Any]:
    """A page of clubs not closed, by name, whose name holds ``query`` (any case)."""
    after = cursors.decode(cursor, str, int) if cursor else None
    found = await store.list_clubs(
        session, query=name_key(query) if query else None, limit=limit + 1, after=after
    )
    more = len(found) > limit
    found = found[:limit]
    last = found[-1][0] if more else None
    return {
        "clubs": [
            {
                **store.summary(club),
                "description": club.description,
                "open": club.open,
                "members": count,
            }
            for club, count in found
        ],
        "next_cursor": cursors.encode(last.name_key, last.id) if last else None,
    }


async def view(session: AsyncSession, *, club_id: int) -> dict[str, Any]:
    """The club's page (docs/API.md "Clubs"): members with roles and ratings, its latest events
    and, in each mode, its members ranked by rating."""
    club = await _club(session, club_id, lock=False)
    members = await store.members_of(session, club_id=club.id)
    ratings = {
        (r.player_id, r.mode): r
        for r in await store.ratings_of(session, player_ids=[m.player_id for m, _ in members])
    }

    def rating(player_id: str, mode: str) -> tuple[float, int, int]:
        """(ordinal, shown rating, rated sets) in a mode; an unrated player the model's start."""
        found = ratings.get((player_id, mode))
        mu, sigma = (found.mu, found.sigma) if found else (MODEL.mu, MODEL.sigma)
        return ordinal(mu, sigma), displayed(mu, sigma), found.sets if found else 0

    board: dict[str, list[dict[str, Any]]] = {}
    for mode in RATED_MODES:
        ranked = sorted(members, key=lambda m: (-rating(m[0].player_id, mode)[0], m[0].player_id))
        board[mode] = [
            {
                "position": position,
                "player_id": m.player_id,
                "name": name,
                "rating": rating(m.player_id, mode)[1],
                "rated_sets": rating(m.player_id, mode)[2],
            }
            for position, (m, name) in enumerate(ranked, start=1)
        ]
    events = await store.events_of(session, club_id=club.id, limit=EVENTS_SHOWN)
    tables = await store.tables_of(session, club_id=club.id, statuses=LISTED, limit=TABLES_SHOWN)
    return {
        **store.summary(club),
        "description": club.description,
        "open": club.open,
        "created_at": club.created_at,
        "closed_at": club.closed_at,
        "members": [
            {
                "player_id": m.player_id,
                "name": name,
                "role": m.role,
                "joined_at": m.joined_at,
                "ratings": {mode: rating(m.player_id, mode)[1] for mode in RATED_MODES},
            }
            for m, name in members
        ],
        "events": [
            {
                "id": t.id,
                "name": t.name,
                "format": t.format,
                "mode": t.mode,
                "status": t.status,
                "starts_at": t.starts_at,
                "battle": t.battle_best is not None,
            }
            for t in events
        ],
        "leaderboard": board,
        "tables": [
            {
                "code": room.code,
                "status": room.status,
                "host": {"player_id": room.host_id, "name": host},
                "seats_taken": taken,
                "seats": seat_count(room.settings),
            }
            for room, host, taken in tables
        ],
    }


async def requests(session: AsyncSession, *, leader: Player, club_id: int) -> list[dict[str, Any]]:
    """The club's waiting requests, for its leaders."""
    club = await _club(session, club_id, lock=False)
    await _leader(session, club, leader)
    return [
        {"player_id": r.player_id, "name": name, "since": r.created_at}
        for r, name in await store.requests_of(session, club_id=club.id)
    ]
