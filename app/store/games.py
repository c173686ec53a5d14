"""A table's history in the database: rooms as the tables read them, sets, deals and the
append-only move log.

Repository functions, keyword-only, each on a session or connection the caller holds: the live
tables' store (app/rooms/store.py) decides what makes one transaction, so that a move commits
together with what it concluded (the deal's result, the set's result and scores, and the rating
changes that app/players books in the same transaction).

History is written with SQLAlchemy Core against the tables themselves, not ORM sessions: it is the
hot path of every move, and a unit of work per batch costs more CPU than the SQL itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.store import fairplay, players, social
from app.store.db import Database, insert_rows
from app.store.models import (
    FAIR_SHUFFLE,
    Base,
    Deal,
    GameSet,
    Move,
    Room,
    Seat,
    Tournament,
    seat_count,
)
from app.store.records import (
    MoveRecord,
    RoomInfo,
    SeatInfo,
    StoreConflict,
    StoredDeal,
    StoredMove,
    StoredSet,
)
from app.store.types import utcnow

SETS = Base.metadata.tables["game_sets"]
DEALS = Base.metadata.tables["deals"]
MOVES = Base.metadata.tables["moves"]
SCORES = Base.metadata.tables["scores"]


@asynccontextmanager
async def history(db: Database) -> AsyncIterator[AsyncConnection]:
    """A transaction appending to a table's history. The unique (parent, number) keys make a
    second writer fail here, as ``StoreConflict``: that is how a node that lost its table finds
    out."""
    try:
        async with db.history() as conn:
            yield conn
    except IntegrityError as exc:
        raise StoreConflict(str(exc.orig)) from exc


async def load_room(session: AsyncSession, *, room_id: str) -> RoomInfo | None:
    return (await load_rooms(session, room_ids=[room_id])).get(room_id)


async def load_rooms(session: AsyncSession, *, room_ids: Iterable[str]) -> dict[str, RoomInfo]:
    """The rooms as their tables read them (those that exist), in one query per kind of row
    whatever their number: a tournament's round opens its tables together."""
    found = list(await session.scalars(select(Room).where(Room.id.in_(set(room_ids)))))
    if not found:
        return {}
    seats_of: dict[str, list[Seat]] = {room.id: [] for room in found}
    for seat in await session.scalars(select(Seat).where(Seat.room_id.in_(list(seats_of)))):
        seats_of[seat.room_id].append(seat)
    everyone = [s.player_id for seats in seats_of.values() for s in seats if s.player_id]
    names = await players.get_player_names(session, player_ids=everyone)
    # Blocks and mutes of everyone at once; each room keeps those among its own players.
    blocks = await social.blocks_among(session, player_ids=everyone)
    muted = await fairplay.muted_until(session, player_ids=everyone, at=utcnow())
    tournament_ids = {room.tournament_id for room in found if room.tournament_id is not None}
    tournament_names = (
        dict(
            (
                await session.execute(
                    select(Tournament.id, Tournament.name).where(Tournament.id.in_(tournament_ids))
                )
            ).all()
        )
        if tournament_ids
        else {}
    )
    infos = {}
    for room in found:
        by_seat = {s.seat: s for s in seats_of[room.id]}
        seated = {s.player_id for s in seats_of[room.id] if s.player_id}
        seat_infos = []
        for number in range(seat_count(room.settings)):  # 4, or 5 (Klasik)
            row = by_seat.get(number)
            player_id = row.player_id if row else None
            seat_infos.append(
                SeatInfo(
                    seat=number,
                    player_id=player_id,
                    name=names.get(player_id) if player_id else None,
                    bot=row.bot if row else None,
                    left_by=row.left_by if row else None,
                    ready=row is not None and row.ready_at is not None,
                )
            )
        infos[room.id] = RoomInfo(
            id=room.id,
            code=room.code,
            host_id=room.host_id,
            status=room.status,
            settings=dict(room.settings),
            seats=tuple(seat_infos),
            blocks=frozenset(b for b in blocks if b[0] in seated and b[1] in seated),
            muted=tuple(
                sorted((p, until.timestamp()) for p, until in muted.items() if p in seated)
            ),
            quickplay=room.quickplay,
            tournament_id=room.tournament_id,
            tournament_round=room.round,
            tournament_name=(
                None if room.tournament_id is None else tournament_names.get(room.tournament_id)
            ),
        )
    return infos


async def tournament_name(session: AsyncSession, *, tournament_id: int | None) -> str | None:
    """The name of a tournament table's tournament (None: not a tournament's table)."""
    if tournament_id is None:
        return None
    return await session.scalar(select(Tournament.name).where(Tournament.id == tournament_id))


async def room_ids_for_codes(session: AsyncSession, *, codes: Iterable[str]) -> dict[str, str]:
    """Room code -> room id, for the codes that name a room."""
    query = select(Room.code, Room.id).where(Room.code.in_(set(codes)))
    return {code: room_id for code, room_id in await session.execute(query)}


async def abandon_set(session: AsyncSession, *, set_id: int, at: datetime) -> None:
    """The set stops unfinished (its moves are kept)."""
    await session.execute(
        update(GameSet)
        .where(GameSet.id == set_id, GameSet.ended_at.is_(None))
        .values(ended_at=at, result={"abandoned": True})
    )


async def put_bot_in_seat(
    session: AsyncSession, *, room_id: str, seat: int, bot: str, left_by: str | None
) -> None:
    await session.execute(
        update(Seat)
        .where(Seat.room_id == room_id, Seat.seat == seat)
        .values(player_id=None, bot=bot, left_by=left_by)
    )


async def insert_sets(
    conn: AsyncConnection, *, sets: Sequence[tuple[str, int, dict[str, Any], datetime]]
) -> list[int]:
    """Sets (room, number, rules, started at) in one statement; their ids, in that order."""
    result = await conn.execute(
        insert(SETS).returning(SETS.c.id, sort_by_parameter_order=True),
        [
            {"room_id": room_id, "number": number, "rules": rules, "started_at": at}
            for room_id, number, rules, at in sets
        ],
    )
    return [int(set_id) for set_id in result.scalars()]


async def insert_deals(
    conn: AsyncConnection, *, deals: Sequence[tuple[int, int, str, int, datetime]]
) -> list[int]:
    """Fair deals (set, number, secret, opener, started at) in one statement; their ids, in
    that order."""
    result = await conn.execute(
        insert(DEALS).returning(DEALS.c.id, sort_by_parameter_order=True),
        [
            {
                "set_id": set_id,
                "number": number,
                "shuffle": FAIR_SHUFFLE,
                "secret": secret,
                "opener": opener,
                "started_at": at,
            }
            for set_id, number, secret, opener, at in deals
        ],
    )
    return [int(deal_id) for deal_id in result.scalars()]


async def write_moves(conn: AsyncConnection, records: list[MoveRecord]) -> None:
    """Append the moves (one multi-row INSERT), then book what each of them concluded."""
    await insert_rows(conn, MOVES, [_move_row(r) for r in records])
    for record in records:
        await _book_result(conn, record)


async def append_moves(db: Database, records: list[MoveRecord]) -> None:
    """Moves that conclude nothing (no deal's or set's end), in a transaction of their own: the
    common case, a move in the middle of a deal, with the fewest trips to the database."""
    assert not any(concludes(r) for r in records)
    try:
        await db.append(MOVES, [_move_row(r) for r in records])
    except IntegrityError as exc:
        raise StoreConflict(str(exc.orig)) from exc


def concludes(record: MoveRecord) -> bool:
    """Whether storing ``record`` books more than its row (a deal's result, scores, a set's)."""
    return not (record.deal_result is None and record.scores is None and record.set_result is None)


def _move_row(r: MoveRecord) -> dict[str, Any]:
    return {
        "deal_id": r.deal_id,
        "seq": r.seq,
        "seat": r.seat,
        "tile": r.tile,
        "end": r.end,
        "auto": r.auto,
        "client_move_id": r.client_move_id,
        "created_at": r.at,
    }


async def move_at(session: AsyncSession, *, deal_id: int, seq: int) -> StoredMove | None:
    """The deal's ``seq``-th stored move, if there is one."""
    m = await session.scalar(select(Move).where(Move.deal_id == deal_id, Move.seq == seq))
    if m is None:
        return None
    return StoredMove(
        seq=m.seq,
        seat=m.seat,
        tile=m.tile,
        end=m.end,
        auto=m.auto,
        client_move_id=m.client_move_id,
        created_at=m.created_at,
    )


async def _book_result(conn: AsyncConnection, record: MoveRecord) -> None:
    if record.deal_result is not None:
        await conn.execute(
            update(DEALS)
            .where(DEALS.c.id == record.deal_id)
            .values(ended_at=record.at, result=record.deal_result)
        )
    if record.set_id is not None and record.scores is not None:
        # The whole score line is rewritten: it is a handful of rows, once per deal.
        await conn.execute(delete(SCORES).where(SCORES.c.set_id == record.set_id))
        await conn.execute(
            insert(SCORES),
            [
                {"set_id": record.set_id, "seat": seat, "points": points}
                for seat, points in enumerate(record.scores)
            ],
        )
    if record.set_result is not None and record.set_id is not None:
        await conn.execute(
            update(SETS)
            .where(SETS.c.id == record.set_id)
            .values(ended_at=record.at, result=record.set_result)
        )


async def load_current_sets(
    session: AsyncSession, *, room_ids: Iterable[str]
) -> dict[str, StoredSet]:
    """``load_current_set`` of each room that has a set (one query for rooms that have none:
    a tournament round's tables, opening together before their first set)."""
    with_sets = await session.scalars(
        select(GameSet.room_id).where(GameSet.room_id.in_(set(room_ids))).distinct()
    )
    found = {}
    for room_id in list(with_sets):
        stored = await load_current_set(session, room_id=room_id)
        if stored is not None:
            found[room_id] = stored
    return found


async def load_current_set(session: AsyncSession, *, room_id: str) -> StoredSet | None:
    game_set = await session.scalar(
        select(GameSet).where(GameSet.room_id == room_id).order_by(GameSet.number.desc()).limit(1)
    )
    if game_set is None:
        return None
    deal_rows = list(
        await session.scalars(select(Deal).where(Deal.set_id == game_set.id).order_by(Deal.number))
    )
    move_rows = list(
        await session.scalars(
            select(Move)
            .where(Move.deal_id.in_([d.id for d in deal_rows]))
            .order_by(Move.deal_id, Move.seq)
        )
    )
    moves_by_deal: dict[int, list[StoredMove]] = {d.id: [] for d in deal_rows}
    for m in move_rows:
        moves_by_deal[m.deal_id].append(
            StoredMove(
                seq=m.seq,
                seat=m.seat,
                tile=m.tile,
                end=m.end,
                auto=m.auto,
                client_move_id=m.client_move_id,
                created_at=m.created_at,
            )
        )
    deals = [
        StoredDeal(
            id=d.id,
            number=d.number,
            source=d.source,
            started_at=d.started_at,
            ended=d.ended_at is not None,
            moves=moves_by_deal[d.id],
        )
        for d in deal_rows
    ]
    earlier = await session.execute(
        select(Move.seat, Move.client_move_id)
        .join(Deal, Deal.id == Move.deal_id)
        .join(GameSet, GameSet.id == Deal.set_id)
        .where(
            GameSet.room_id == room_id,
            GameSet.number < game_set.number,
            Move.client_move_id.is_not(None),
        )
    )
    return StoredSet(
        id=game_set.id,
        number=game_set.number,
        rules=dict(game_set.rules),
        ended=game_set.ended_at is not None,
        deals=deals,
        earlier_move_ids=tuple((int(seat), str(move_id)) for seat, move_id in earlier),
    )


async def playing_room_ids(session: AsyncSession) -> list[str]:
    result = await session.scalars(select(Room.id).where(Room.status == "playing"))
    return list(result)
