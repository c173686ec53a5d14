"""Clubs' rows: clubs, their members and join requests, and the events that name a club.

Repository functions, keyword-only, on a session the caller holds: they flush but never commit.
The rules (who may join, who leads, the last leader) are app/players/clubs.py's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import and_, delete, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import (
    Club,
    ClubMember,
    ClubRequest,
    Player,
    Rating,
    Room,
    Seat,
    Tournament,
    TournamentClub,
)

LEADER, MEMBER = "leader", "member"


async def add_club(
    session: AsyncSession, *, name: str, name_key: str, description: str, open: bool
) -> Club:
    club = Club(name=name, name_key=name_key, description=description, open=open)
    session.add(club)
    await session.flush()
    return club


async def get_club(session: AsyncSession, *, club_id: int) -> Club | None:
    return await session.get(Club, club_id, populate_existing=True)


async def name_taken(
    session: AsyncSession, *, name_key: str, other_than: int | None = None
) -> bool:
    query = select(Club.id).where(Club.name_key == name_key)
    if other_than is not None:
        query = query.where(Club.id != other_than)
    return (await session.execute(query)).first() is not None


async def get_clubs(session: AsyncSession, *, club_ids: Iterable[int]) -> dict[int, Club]:
    ids = set(club_ids)
    if not ids:
        return {}
    return {c.id: c for c in await session.scalars(select(Club).where(Club.id.in_(ids)))}


async def list_clubs(
    session: AsyncSession, *, query: str | None, limit: int, after: tuple[str, int] | None
) -> list[tuple[Club, int]]:
    """Clubs not closed, by name (case-folded) then id, with their member counts; ``query``: a
    part of the case-folded name."""
    members = (
        select(ClubMember.club_id, func.count().label("n")).group_by(ClubMember.club_id).subquery()
    )
    stmt = (
        select(Club, func.coalesce(members.c.n, 0))
        .outerjoin(members, members.c.club_id == Club.id)
        .where(Club.closed_at.is_(None))
    )
    if query:
        escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        stmt = stmt.where(Club.name_key.like(f"%{escaped}%", escape="\\"))
    if after is not None:
        key, club_id = after
        stmt = stmt.where(or_(Club.name_key > key, and_(Club.name_key == key, Club.id > club_id)))
    rows = await session.execute(stmt.order_by(Club.name_key, Club.id).limit(limit))
    return [(club, int(count)) for club, count in rows]


# --- members --------------------------------------------------------------------------------------


async def membership(session: AsyncSession, *, club_id: int, player_id: str) -> ClubMember | None:
    return await session.get(ClubMember, (club_id, player_id), populate_existing=True)


async def add_member(
    session: AsyncSession, *, club_id: int, player_id: str, role: str = MEMBER
) -> ClubMember:
    row = ClubMember(club_id=club_id, player_id=player_id, role=role)
    session.add(row)
    await session.flush()
    return row


async def remove_member(session: AsyncSession, *, club_id: int, player_id: str) -> None:
    await session.execute(
        delete(ClubMember).where(ClubMember.club_id == club_id, ClubMember.player_id == player_id)
    )
    await session.flush()


async def members_of(session: AsyncSession, *, club_id: int) -> list[tuple[ClubMember, str]]:
    """Every member with their name: leaders first, then by when they joined."""
    rows = await session.execute(
        select(ClubMember, Player.name)
        .join(Player, Player.id == ClubMember.player_id)
        .where(ClubMember.club_id == club_id)
        .order_by(ClubMember.role != LEADER, ClubMember.joined_at, ClubMember.player_id)
    )
    return [(member, name) for member, name in rows]


async def members_among(session: AsyncSession, *, club_ids: Iterable[int]) -> dict[str, set[int]]:
    """The players who belong to any of these clubs, each with which of them."""
    ids = set(club_ids)
    if not ids:
        return {}
    found: dict[str, set[int]] = {}
    rows = await session.execute(
        select(ClubMember.player_id, ClubMember.club_id).where(ClubMember.club_id.in_(ids))
    )
    for player_id, club_id in rows:
        found.setdefault(player_id, set()).add(club_id)
    return found


async def count_members(session: AsyncSession, *, club_id: int, role: str | None = None) -> int:
    query = select(func.count()).where(ClubMember.club_id == club_id)
    if role is not None:
        query = query.where(ClubMember.role == role)
    return int(await session.scalar(query) or 0)


async def clubs_of(session: AsyncSession, *, player_id: str) -> list[tuple[Club, str]]:
    """The clubs (not closed) the player belongs to, with their role, by when they joined."""
    rows = await session.execute(
        select(Club, ClubMember.role)
        .join(ClubMember, ClubMember.club_id == Club.id)
        .where(ClubMember.player_id == player_id, Club.closed_at.is_(None))
        .order_by(ClubMember.joined_at, Club.id)
    )
    return [(club, role) for club, role in rows]


async def count_clubs_of(session: AsyncSession, *, player_id: str) -> int:
    return int(
        await session.scalar(
            select(func.count())
            .select_from(ClubMember)
            .join(Club, Club.id == ClubMember.club_id)
            .where(ClubMember.player_id == player_id, Club.closed_at.is_(None))
        )
        or 0
    )


async def memberships_among(
    session: AsyncSession, *, player_id: str, club_ids: Iterable[int]
) -> set[int]:
    """Which of these clubs the player belongs to."""
    ids = set(club_ids)
    if not ids:
        return set()
    rows = await session.scalars(
        select(ClubMember.club_id).where(
            ClubMember.player_id == player_id, ClubMember.club_id.in_(ids)
        )
    )
    return set(rows)


async def ratings_of(session: AsyncSession, *, player_ids: Iterable[str]) -> list[Rating]:
    ids = set(player_ids)
    if not ids:
        return []
    return list(await session.scalars(select(Rating).where(Rating.player_id.in_(ids))))


# --- requests -------------------------------------------------------------------------------------


async def get_request(session: AsyncSession, *, club_id: int, player_id: str) -> ClubRequest | None:
    return await session.get(ClubRequest, (club_id, player_id), populate_existing=True)


async def add_request(session: AsyncSession, *, club_id: int, player_id: str) -> ClubRequest:
    row = ClubRequest(club_id=club_id, player_id=player_id)
    session.add(row)
    await session.flush()
    return row


async def delete_request(session: AsyncSession, *, club_id: int, player_id: str) -> bool:
    result = await session.execute(
        delete(ClubRequest).where(
            ClubRequest.club_id == club_id, ClubRequest.player_id == player_id
        )
    )
    await session.flush()
    return bool(getattr(result, "rowcount", 0))


async def requests_of(session: AsyncSession, *, club_id: int) -> list[tuple[ClubRequest, str]]:
    """The club's waiting requests with the asking players' names, oldest first."""
    rows = await session.execute(
        select(ClubRequest, Player.name)
        .join(Player, Player.id == ClubRequest.player_id)
        .where(ClubRequest.club_id == club_id)
        .order_by(ClubRequest.created_at, ClubRequest.player_id)
    )
    return [(request, name) for request, name in rows]


# --- events ---------------------------------------------------------------------------------------


async def add_battle_clubs(
    session: AsyncSession, *, tournament_id: int, club_ids: list[int]
) -> None:
    for position, club_id in enumerate(club_ids):
        session.add(TournamentClub(tournament_id=tournament_id, club_id=club_id, position=position))
    await session.flush()


async def battle_clubs(session: AsyncSession, *, tournament_id: int) -> list[int]:
    """A team battle's clubs in the organizer's order (empty: no battle)."""
    rows = await session.scalars(
        select(TournamentClub.club_id)
        .where(TournamentClub.tournament_id == tournament_id)
        .order_by(TournamentClub.position)
    )
    return list(rows)


async def events_of(session: AsyncSession, *, club_id: int, limit: int) -> list[Tournament]:
    """The club's tournaments (its own, and the team battles it plays in), latest start first."""
    battles = select(TournamentClub.tournament_id).where(TournamentClub.club_id == club_id)
    rows = await session.scalars(
        select(Tournament)
        .where(or_(Tournament.club_id == club_id, Tournament.id.in_(battles)))
        .order_by(Tournament.starts_at.desc(), Tournament.id.desc())
        .limit(limit)
    )
    return list(rows)


async def tables_of(
    session: AsyncSession, *, club_id: int, statuses: Iterable[str], limit: int
) -> list[tuple[Room, str, int]]:
    """The club's rooms in these statuses, newest activity first, with their host's name and
    how many seats are taken."""
    taken = (
        select(func.count())
        .select_from(Seat)
        .where(Seat.room_id == Room.id)
        .correlate(Room)
        .scalar_subquery()
    )
    rows = await session.execute(
        select(Room, Player.name, taken)
        .join(Player, Player.id == Room.host_id)
        .where(Room.club_id == club_id, Room.status.in_(list(statuses)))
        .order_by(Room.active_at.desc(), Room.id.desc())
        .limit(limit)
    )
    return [(room, name, int(count)) for room, name, count in rows]


def summary(club: Club) -> dict[str, Any]:
    """A club as other views name it."""
    return {"id": club.id, "name": club.name}
