"""Repository for tournaments, their entries, rounds and tables. Session first, keyword-only
args, flush but never commit: the caller (app/rooms/tournaments.py) owns the transaction."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, or_, select, tuple_, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.store.models import (
    Base,
    GameSet,
    Rating,
    Room,
    Tournament,
    TournamentEntry,
    TournamentRound,
    TournamentTable,
)
from app.store.types import utcnow


async def create_tournament(session: AsyncSession, **fields: Any) -> Tournament:
    """A new tournament, ``registering``; ``fields`` are its columns."""
    tournament = Tournament(status="registering", **fields)
    session.add(tournament)
    await session.flush()
    return tournament


async def get_tournament(session: AsyncSession, *, tournament_id: int) -> Tournament | None:
    return await session.get(Tournament, tournament_id)


async def lock_tournament(session: AsyncSession, *, tournament_id: int) -> Tournament | None:
    """The tournament, locked until the transaction ends: every change to it or its entries
    takes this lock first, so they happen one at a time on every node. The lock is a write (it
    only stamps ``updated_at``): a row lock on PostgreSQL, and on SQLite the database's write
    lock, taken before anything is read (so what is read cannot change before the commit)."""
    done = await session.execute(
        update(Tournament)
        .where(Tournament.id == tournament_id)
        .values(updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    if not getattr(done, "rowcount", 0):
        return None
    query = select(Tournament).where(Tournament.id == tournament_id)
    result = await session.execute(query.execution_options(populate_existing=True))
    return result.scalar_one_or_none()


async def list_tournaments(
    session: AsyncSession,
    *,
    statuses: Sequence[str] | None,
    ascending: bool,
    limit: int,
    after: tuple[datetime, int] | None = None,
) -> list[Tournament]:
    """Public tournaments (of ``statuses``, or all), by (``starts_at``, ``id``), soonest first
    when ``ascending``, else latest first; ``after``: the key of the previous page's last."""
    query = select(Tournament).where(Tournament.public.is_(True))
    if statuses is not None:
        query = query.where(Tournament.status.in_(list(statuses)))
    key = tuple_(Tournament.starts_at, Tournament.id)
    if after is not None:
        query = query.where(key > tuple_(*after) if ascending else key < tuple_(*after))
    if ascending:
        query = query.order_by(Tournament.starts_at, Tournament.id)
    else:
        query = query.order_by(Tournament.starts_at.desc(), Tournament.id.desc())
    return list((await session.execute(query.limit(limit))).scalars())


async def set_status(session: AsyncSession, *, tournament: Tournament, status: str) -> None:
    tournament.status = status
    await session.flush()


async def set_pools(session: AsyncSession, *, tournament: Tournament, pools: list[Any]) -> None:
    tournament.pools = pools
    await session.flush()


# --- entries ------------------------------------------------------------------------------------


async def get_entries(session: AsyncSession, *, tournament_id: int) -> list[TournamentEntry]:
    """Every entry, withdrawn ones too, in the order they were made (by id)."""
    query = (
        select(TournamentEntry)
        .where(TournamentEntry.tournament_id == tournament_id)
        .order_by(TournamentEntry.id)
    )
    return list((await session.execute(query)).scalars())


async def get_entry(
    session: AsyncSession, *, tournament_id: int, entry_id: int
) -> TournamentEntry | None:
    entry = await session.get(TournamentEntry, entry_id)
    return entry if entry is not None and entry.tournament_id == tournament_id else None


async def entry_of(
    session: AsyncSession, *, tournament_id: int, player_id: str
) -> TournamentEntry | None:
    """The entry ``player_id`` holds in the tournament, as its player or as its partner."""
    query = select(TournamentEntry).where(
        TournamentEntry.tournament_id == tournament_id,
        or_(TournamentEntry.player_id == player_id, TournamentEntry.partner_id == player_id),
    )
    return (await session.execute(query)).scalars().first()


async def count_entries(session: AsyncSession, *, tournament_id: int) -> int:
    """Entries that hold a place: every one not withdrawn (a pair waiting for its partner too)."""
    query = select(func.count(TournamentEntry.id)).where(
        TournamentEntry.tournament_id == tournament_id, TournamentEntry.withdrawn_at.is_(None)
    )
    return int((await session.execute(query)).scalar_one())


async def add_entry(
    session: AsyncSession,
    *,
    tournament_id: int,
    player_id: str,
    partner_id: str | None,
    client_mark: str | None = None,
    club_id: int | None = None,
) -> TournamentEntry:
    entry = TournamentEntry(
        tournament_id=tournament_id,
        player_id=player_id,
        partner_id=partner_id,
        partner_confirmed=False,
        client_mark=client_mark,
        club_id=club_id,
    )
    session.add(entry)
    await session.flush()
    return entry


async def confirm_partner(session: AsyncSession, *, entry: TournamentEntry) -> None:
    entry.partner_confirmed = True
    await session.flush()


async def withdraw_entry(session: AsyncSession, *, entry: TournamentEntry, at: datetime) -> None:
    entry.withdrawn_at = at
    await session.flush()


async def delete_entries(session: AsyncSession, *, entry_ids: Iterable[int]) -> None:
    ids = list(entry_ids)
    if ids:
        await session.execute(delete(TournamentEntry).where(TournamentEntry.id.in_(ids)))
        await session.flush()


async def ratings_of(
    session: AsyncSession, *, player_ids: Iterable[str], mode: str
) -> dict[str, float]:
    """The players' rating ordinals in ``mode`` (mu - 3 sigma); a player never rated is absent."""
    ids = set(player_ids)
    if not ids:
        return {}
    query = select(Rating.player_id, Rating.ordinal).where(
        Rating.mode == mode, Rating.player_id.in_(ids)
    )
    return {row.player_id: row.ordinal for row in await session.execute(query)}


# --- rounds and tables --------------------------------------------------------------------------


async def add_round(
    session: AsyncSession,
    *,
    tournament_id: int,
    number: int,
    tables: Sequence[Sequence[int]],
    byes: Sequence[int],
) -> None:
    """A paired round: its byes and its tables (entry ids in seat order), numbered from 1."""
    session.add(
        TournamentRound(tournament_id=tournament_id, number=number, status="paired", byes=[*byes])
    )
    await session.flush()
    session.add_all(
        TournamentTable(tournament_id=tournament_id, round=number, number=n, entrants=[*table])
        for n, table in enumerate(tables, start=1)
    )
    await session.flush()


async def get_rounds(
    session: AsyncSession, *, tournament_id: int
) -> tuple[list[TournamentRound], list[TournamentTable]]:
    """Every round and every table of the tournament, in order. Only the tables of the rounds
    read: outside a transaction's snapshot (a view read while a round is stored) the tables'
    query may see a round that the rounds' query did not."""
    rounds = list(
        await session.scalars(
            select(TournamentRound)
            .where(TournamentRound.tournament_id == tournament_id)
            .order_by(TournamentRound.number)
        )
    )
    tables = await session.scalars(
        select(TournamentTable)
        .where(TournamentTable.tournament_id == tournament_id)
        .order_by(TournamentTable.round, TournamentTable.number)
    )
    numbers = {r.number for r in rounds}
    return rounds, [t for t in tables if t.round in numbers]


async def count_rounds(session: AsyncSession, *, tournament_id: int) -> int:
    query = select(func.count()).where(TournamentRound.tournament_id == tournament_id)
    return int((await session.execute(query)).scalar_one())


async def count_entries_of(
    session: AsyncSession, *, tournament_ids: Iterable[int]
) -> dict[int, int]:
    """``count_entries`` for many tournaments at once (absent: none)."""
    ids = set(tournament_ids)
    if not ids:
        return {}
    query = (
        select(TournamentEntry.tournament_id, func.count(TournamentEntry.id))
        .where(TournamentEntry.tournament_id.in_(ids), TournamentEntry.withdrawn_at.is_(None))
        .group_by(TournamentEntry.tournament_id)
    )
    return {row[0]: int(row[1]) for row in await session.execute(query)}


async def room_codes(session: AsyncSession, *, room_ids: Iterable[str]) -> dict[str, str]:
    """The codes of the rooms that play tables, by room id."""
    ids = set(room_ids)
    if not ids:
        return {}
    query = select(Room.id, Room.code).where(Room.id.in_(ids))
    return {row.id: row.code for row in await session.execute(query)}


async def first_sets(session: AsyncSession, *, room_ids: Iterable[str]) -> dict[str, int]:
    """The set each room played first (a tournament table's one set), by room id."""
    ids = set(room_ids)
    if not ids:
        return {}
    query = (
        select(GameSet.room_id, func.min(GameSet.id))
        .where(GameSet.room_id.in_(ids))
        .group_by(GameSet.room_id)
    )
    return {row[0]: int(row[1]) for row in await session.execute(query)}


async def tables_of_round(
    session: AsyncSession, *, tournament_id: int, number: int
) -> list[TournamentTable]:
    query = (
        select(TournamentTable)
        .where(TournamentTable.tournament_id == tournament_id, TournamentTable.round == number)
        .order_by(TournamentTable.number)
    )
    return list((await session.execute(query)).scalars())


async def due_to_start(session: AsyncSession, *, now: datetime, limit: int = 100) -> list[int]:
    """Tournaments still registering whose ``starts_at`` has come."""
    query = (
        select(Tournament.id)
        .where(Tournament.status == "registering", Tournament.starts_at <= now)
        .order_by(Tournament.starts_at)
        .limit(limit)
    )
    return list((await session.execute(query)).scalars())


async def waiting_to_advance(session: AsyncSession, *, limit: int = 100) -> list[int]:
    """Running tournaments whose last round is being played and has a result at every table:
    the next round is due (normally paired at once; this finds one a node died before)."""
    last = (
        select(func.max(TournamentRound.number))
        .where(TournamentRound.tournament_id == Tournament.id)
        .correlate(Tournament)
        .scalar_subquery()
    )
    open_table = (
        select(TournamentTable.number)
        .where(
            TournamentTable.tournament_id == Tournament.id,
            TournamentTable.round == last,
            TournamentTable.result.is_(None),
        )
        .correlate(Tournament)
        .exists()
    )
    playing = (
        select(TournamentRound.number)
        .where(
            TournamentRound.tournament_id == Tournament.id,
            TournamentRound.number == last,
            TournamentRound.status != "finished",
        )
        .correlate(Tournament)
        .exists()
    )
    query = (
        select(Tournament.id)
        .where(Tournament.status == "running", playing, ~open_table)
        .order_by(Tournament.id)
        .limit(limit)
    )
    return list((await session.execute(query)).scalars())


# --- a table's result, in the transaction of the move that ended its set ------------------------

TABLES = Base.metadata.tables["tournament_tables"]
ENTRIES = Base.metadata.tables["tournament_entries"]


async def table_of_room(conn: AsyncConnection, *, room_id: str) -> Any | None:
    """The tournament table a room plays (its row: tournament_id, round, number, entrants,
    result), or None for any other room."""
    query = select(TABLES).where(TABLES.c.room_id == room_id)
    return (await conn.execute(query)).first()


async def entries_by_id(conn: AsyncConnection, *, entry_ids: Iterable[int]) -> dict[int, Any]:
    query = select(ENTRIES).where(ENTRIES.c.id.in_(list(entry_ids)))
    return {row.id: row for row in await conn.execute(query)}


async def store_result(
    conn: AsyncConnection, *, tournament_id: int, round: int, number: int, result: dict[str, Any]
) -> bool:
    """The table's result, unless it has one already (stored once, whoever sends it twice);
    True if it was stored now."""
    done = await conn.execute(
        update(TABLES)
        .where(
            TABLES.c.tournament_id == tournament_id,
            TABLES.c.round == round,
            TABLES.c.number == number,
            TABLES.c.result.is_(None),
        )
        .values(result=result)
    )
    return bool(getattr(done, "rowcount", 0))


async def entry_with_mark(session: AsyncSession, *, tournament_id: int, mark: str) -> bool:
    """Whether an entry not withdrawn came from the address ``mark`` (app/clients.py)."""
    query = (
        select(TournamentEntry.id)
        .where(
            TournamentEntry.tournament_id == tournament_id,
            TournamentEntry.client_mark == mark,
            TournamentEntry.withdrawn_at.is_(None),
        )
        .limit(1)
    )
    return (await session.scalar(query)) is not None
