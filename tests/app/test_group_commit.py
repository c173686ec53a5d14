"""Moves from many tables share commits, and one conflicting move does not sink the others;
the reads and small writes of tables opening together share queries and statements."""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, func, insert, select, text

from app.batch import BatchedLoad, GroupCommit
from app.rooms.store import SqlGameStore
from app.store import fairplay, players, rooms, social
from app.store.db import Database
from app.store.models import Deal, Move, Room, Score, Seat
from app.store.records import MoveRecord, StoreConflict
from app.store.types import utcnow

NOW = datetime(2026, 11, 30, tzinfo=UTC)


async def test_items_arriving_during_a_commit_share_the_next_one() -> None:
    batches: list[list[int]] = []
    gate = asyncio.Event()

    async def commit(items: list[int]) -> list[BaseException | None]:
        batches.append(items)
        await gate.wait()
        return [ValueError("odd") if i % 2 else None for i in items]

    group: GroupCommit[int] = GroupCommit(commit)
    tasks = [asyncio.create_task(group.submit(0))]
    while not batches:  # the first commit is under way...
        await asyncio.sleep(0)
    tasks += [asyncio.create_task(group.submit(i)) for i in range(1, 6)]  # ...while these arrive
    await asyncio.sleep(0)
    gate.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert batches == [[0], [1, 2, 3, 4, 5]]  # the first commits at once, the rest together
    assert [isinstance(r, ValueError) for r in results] == [i % 2 == 1 for i in range(6)]


class Count:
    """An event listener that counts the times it is called."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, *_: object) -> None:
        self.n += 1


async def deal_ids(db: Database, count: int) -> list[int]:
    return [deal for _, deal in await set_and_deal_ids(db, count)]


async def set_and_deal_ids(db: Database, count: int) -> list[tuple[int, int]]:
    store = SqlGameStore(db)
    async with db.session() as session, session.begin():
        host = await players.create_player(session, name="Host", token_hash="h" * 64)
        room_ids = []
        for n in range(count):
            room = await rooms.create_room(
                session, code=f"GRP{n:03d}", host_id=host.id, settings={"preset": "pordi"}
            )
            room_ids.append(room.id)
    ids = []
    for room_id in room_ids:
        set_id = await store.create_set(room_id=room_id, number=1, rules={}, at=NOW)
        deal_id = await store.create_deal(
            set_id=set_id, number=1, secret="1" * 64, opener=0, at=NOW
        )
        ids.append((set_id, deal_id))
    return ids


def record(deal_id: int, seq: int) -> MoveRecord:
    return MoveRecord(
        deal_id=deal_id, seq=seq, seat=0, tile="6-6", end=None, auto=False,
        client_move_id=None, at=NOW,
    )  # fmt: skip


@pytest.mark.parametrize("batch", [5])
async def test_a_conflicting_move_fails_alone(database_url: str, batch: int) -> None:
    db = Database(database_url, secret_key="k")
    try:
        store = SqlGameStore(db)
        ids = await deal_ids(db, batch)
        await store.record_move(record(ids[0], 1))
        # The same (deal, seq) again — what a node that lost its table would try — with others.
        results = await asyncio.gather(
            store.record_move(record(ids[0], 1)),
            *(store.record_move(record(deal_id, 1)) for deal_id in ids[1:]),
            return_exceptions=True,
        )
        assert isinstance(results[0], StoreConflict)
        assert results[1:] == [None] * (batch - 1)
        async with db.session() as session:
            assert await session.scalar(select(func.count()).select_from(Move)) == batch
    finally:
        await db.dispose()


async def test_history_written_concurrently_by_many_tables(database_url: str) -> None:
    """Sets, deals, moves and score lines from 20 tables at once, with the lobby reading
    meanwhile. On SQLite they all go through one connection (its single write lock is never
    fought over); elsewhere through the shared pool."""
    db = Database(database_url, secret_key="k")
    in_use = peak = 0

    def checked_out(*_: object) -> None:
        nonlocal in_use, peak
        in_use += 1
        peak = max(peak, in_use)

    def checked_in(*_: object) -> None:
        nonlocal in_use
        in_use -= 1

    event.listen(db.history_engine.sync_engine.pool, "checkout", checked_out)
    event.listen(db.history_engine.sync_engine.pool, "checkin", checked_in)
    try:
        store = SqlGameStore(db)
        ids = await set_and_deal_ids(db, 20)

        async def table(n: int, set_id: int, deal_id: int) -> None:
            for seq in range(1, 6):
                last = seq == 5
                await store.record_move(
                    replace(
                        record(deal_id, seq),
                        deal_result={"winner": n} if last else None,
                        set_id=set_id if last else None,
                        scores=[n, seq, 0, 0] if last else None,
                    )
                )

        async def lobby() -> None:
            for _ in range(20):
                async with db.session() as session:
                    await session.scalar(select(func.count()).select_from(Move))
                await asyncio.sleep(0)

        await asyncio.gather(*(table(n, s, d) for n, (s, d) in enumerate(ids)), lobby())
        async with db.session() as session:
            assert await session.scalar(select(func.count()).select_from(Move)) == 100
            ended = await session.scalars(select(Deal.result).order_by(Deal.id))
            assert [r["winner"] for r in ended] == list(range(20))
            for n, (set_id, _) in enumerate(ids):
                lines = await session.scalars(
                    select(Score.points).where(Score.set_id == set_id).order_by(Score.seat)
                )
                assert list(lines) == [n, 5, 0, 0]
        if database_url.startswith("sqlite"):
            assert db.history_engine is not db.engine
            assert peak == 1
    finally:
        await db.dispose()


async def test_history_keeps_its_connection_open_and_drops_one_whose_transaction_failed(
    database_url: str,
) -> None:
    """Moves commit one after another on one connection kept open (no pool checkout each);
    a transaction that fails (here a second writer of the same move) is rolled back and its
    connection closed, and the next move commits on a fresh one."""
    db = Database(database_url, secret_key="k")
    checkouts = Count()
    try:
        store = SqlGameStore(db)
        [(_, deal_id)] = await set_and_deal_ids(db, 1)  # the set and the deal: history too
        event.listen(db.history_engine.sync_engine.pool, "checkout", checkouts)
        for seq in range(1, 6):
            await store.record_move(record(deal_id, seq))
        assert checkouts.n == 0  # still the connection that wrote the set and the deal
        with pytest.raises(StoreConflict):
            await store.record_move(replace(record(deal_id, 5), tile="5-5"))
        await store.record_move(record(deal_id, 6))
        assert checkouts.n == 1
        async with db.session() as session:
            tiles = await session.scalars(
                select(Move.tile).where(Move.deal_id == deal_id).order_by(Move.seq)
            )
            assert list(tiles) == ["6-6"] * 6  # the conflicting write left nothing
    finally:
        await db.dispose()


class Trips:
    """aiosqlite's queue of calls for its thread, counting what goes in."""

    def __init__(self, queue: Any) -> None:
        self.queue = queue
        self.n = 0

    def put_nowait(self, item: object) -> None:
        self.n += 1
        self.queue.put_nowait(item)


async def test_a_move_in_the_middle_of_a_deal_is_one_trip_to_the_sqlite_drivers_thread(
    tmp_path: Path, _sqlite_template: Path
) -> None:
    """aiosqlite runs each driver call in its thread: a move that concludes nothing is its
    insert and its commit in one call there; the one that ends the deal books its result too,
    in the same transaction, through SQLAlchemy."""
    shutil.copyfile(_sqlite_template, tmp_path / "trips.sqlite3")
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'trips.sqlite3'}", secret_key="k")
    try:
        store = SqlGameStore(db)
        [(set_id, deal_id)] = await set_and_deal_ids(db, 1)
        async with db.history() as conn:
            driver = (await conn.get_raw_connection()).driver_connection
        driver._tx = trips = Trips(driver._tx)  # the thread still reads the queue itself
        for seq in range(1, 4):
            await store.record_move(record(deal_id, seq))
        assert trips.n == 3
        await store.record_move(
            replace(record(deal_id, 4), deal_result={"winner": 0}, set_id=set_id, scores=[1, 0])
        )
        assert trips.n > 4  # the row, the deal, the scores, the commit: trips of their own
        async with db.session() as session:
            seqs = await session.scalars(select(Move.seq).where(Move.deal_id == deal_id))
            assert list(seqs) == [1, 2, 3, 4]
            result = await session.scalar(select(Deal.result).where(Deal.id == deal_id))
            assert result == {"winner": 0}
    finally:
        await db.dispose()


async def test_a_move_is_stored_as_sqlalchemy_stores_it(database_url: str) -> None:
    """On SQLite the moves skip SQLAlchemy's execution for the driver's (db.insert_rows): the
    columns hold the same values, of the same types, as a plain INSERT writes."""
    db = Database(database_url, secret_key="k")
    try:
        store = SqlGameStore(db)
        [(_, deal_id)] = await set_and_deal_ids(db, 1)
        at = datetime(2026, 12, 3, 19, 30, 15, 123456, tzinfo=timezone(timedelta(hours=7)))
        values = {"seat": 2, "tile": "3-4", "end": "left", "auto": True, "client_move_id": "m-1"}
        await store.record_move(replace(record(deal_id, 1), at=at, **values))
        async with db.history() as conn:
            await conn.execute(
                insert(Move.__table__), [{"deal_id": deal_id, "seq": 2, "created_at": at, **values}]
            )
        columns = 'seat, tile, "end", auto, client_move_id, created_at'
        if database_url.startswith("sqlite"):
            columns += ", typeof(created_at), typeof(auto)"  # text and integer, both ways
        async with db.session() as session:
            raw = (await session.execute(text(f"SELECT {columns} FROM moves ORDER BY seq"))).all()
            read = list(await session.scalars(select(Move).order_by(Move.seq)))
        assert len(raw) == 2 and raw[0] == raw[1]
        assert [m.created_at for m in read] == [at, at]
        assert read[0].created_at.utcoffset() == timedelta(0)  # stored as UTC
        assert (read[0].end, read[0].auto, read[0].client_move_id) == ("left", True, "m-1")
    finally:
        await db.dispose()


async def test_an_in_memory_sqlite_database_writes_history_where_it_reads() -> None:
    # An in-memory database exists once per connection: a second engine would write elsewhere.
    db = Database("sqlite+aiosqlite://", secret_key="k")
    try:
        async with db.history() as conn:
            await conn.execute(text("CREATE TABLE t (x INTEGER)"))
            await conn.execute(text("INSERT INTO t VALUES (1)"))
        async with db.session() as session:
            assert await session.scalar(text("SELECT x FROM t")) == 1
    finally:
        await db.dispose()


async def test_sets_and_deals_starting_together_share_commits(database_url: str) -> None:
    """A tournament round's tables start at once: their sets and deals go in a few commits,
    each table still gets its own rows, and one conflicting deal fails alone."""
    db = Database(database_url, secret_key="k")
    commits = Count()
    try:
        store = SqlGameStore(db)
        async with db.session() as session, session.begin():
            host = await players.create_player(session, name="Host", token_hash="h" * 64)
            room_ids = []
            for n in range(12):
                room = await rooms.create_room(
                    session, code=f"OPN{n:03d}", host_id=host.id, settings={"preset": "pordi"}
                )
                room_ids.append(room.id)
        event.listen(db.history_engine.sync_engine, "commit", commits)
        set_ids = await asyncio.gather(
            *(store.create_set(room_id=r, number=1, rules={}, at=NOW) for r in room_ids)
        )
        assert len(set(set_ids)) == 12
        assert commits.n < 12
        first = await store.create_deal(
            set_id=set_ids[0], number=1, secret="1" * 64, opener=0, at=NOW
        )
        commits.n = 0
        deals = await asyncio.gather(
            # deal 1 of the first set again: what a node that lost its table would try
            store.create_deal(set_id=set_ids[0], number=1, secret="2" * 64, opener=0, at=NOW),
            *(
                store.create_deal(set_id=s, number=1, secret="1" * 64, opener=0, at=NOW)
                for s in set_ids[1:]
            ),
            return_exceptions=True,
        )
        assert isinstance(deals[0], StoreConflict)
        assert all(isinstance(d, int) for d in deals[1:])
        async with db.session() as session:
            stored = dict((await session.execute(select(Deal.set_id, Deal.id))).all())
        assert stored == {s: d for s, d in zip(set_ids, [first, *deals[1:]], strict=True)}
    finally:
        await db.dispose()


async def test_loads_asked_together_share_a_query() -> None:
    fetched: list[list[int]] = []
    gate = asyncio.Event()

    async def fetch(keys: list[int]) -> dict[int, str]:
        fetched.append(keys)
        await gate.wait()
        if 13 in keys:
            raise ValueError("unlucky")
        return {k: f"v{k}" for k in keys if k % 2 == 0}

    load: BatchedLoad[int, str] = BatchedLoad(fetch)
    tasks = [asyncio.create_task(load.load(0))]
    while not fetched:  # the first query is under way...
        await asyncio.sleep(0)
    # ...while these are asked for: they wait for the next one (asked after the first began)
    tasks += [asyncio.create_task(load.load(k)) for k in (1, 2, 2, 3)]
    await asyncio.sleep(0)
    gate.set()
    assert await asyncio.gather(*tasks) == ["v0", None, "v2", "v2", None]
    assert fetched == [[0], [1, 2, 3]]  # each key once
    # A query that fails fails the loads it answers, and only those.
    gate.clear()
    failing = [asyncio.create_task(load.load(k)) for k in (12, 13)]
    while len(fetched) < 3:
        await asyncio.sleep(0)
    later = asyncio.create_task(load.load(4))
    await asyncio.sleep(0)
    gate.set()
    results = await asyncio.gather(*failing, later, return_exceptions=True)
    assert [type(r) for r in results] == [ValueError, ValueError, str]


async def test_tables_opening_together_read_their_rooms_in_one_query_each(
    database_url: str,
) -> None:
    """A tournament round's tables open at once: their rooms (seats, names, blocks, mutes,
    tournament), stored sets, codes and mutes are read in a query per kind, not per table; each
    table gets what a table read alone gets: only the blocks and mutes among its own players."""
    db = Database(database_url, secret_key="k")
    try:
        async with db.session() as session, session.begin():
            people = [
                await players.create_player(session, name=f"P{n}", token_hash=f"{n:064d}")
                for n in range(8)
            ]
            room_ids = []
            for n in range(2):  # two tables of four
                room = await rooms.create_room(
                    session, code=f"TOG{n:03d}", host_id=people[4 * n].id,
                    settings={"preset": "pordi"},
                )  # fmt: skip
                await rooms.fill_seats(
                    session,
                    room_id=room.id,
                    occupants={s: (people[4 * n + s].id, None) for s in range(4)},
                )
                room_ids.append(room.id)
            # A block within the first table, one across the tables; a mute at the second.
            await social.add_block(session, blocker_id=people[0].id, blocked_id=people[1].id)
            await social.add_block(session, blocker_id=people[2].id, blocked_id=people[5].id)
            await fairplay.add_mute(
                session, player_id=people[6].id, operator="op", reason=None,
                at=utcnow(), until=utcnow() + timedelta(hours=1),
            )  # fmt: skip
        alone = [await SqlGameStore(db).load_room(r) for r in room_ids]
        statements: list[str] = []

        def seen(_conn: object, _cursor: object, statement: str, *_: object) -> None:
            statements.append(statement.split()[0].upper())

        store = SqlGameStore(db)
        event.listen(db.engine.sync_engine, "before_cursor_execute", seen)
        try:
            together = await asyncio.gather(*(store.load_room(r) for r in room_ids))
            reads = len(statements)
            sets = await asyncio.gather(*(store.load_current_set(r) for r in room_ids))
            codes = await asyncio.gather(
                store.room_id_for_code("TOG000"),
                store.room_id_for_code("TOG001"),
                store.room_id_for_code("NOPE00"),
            )
            mutes = await asyncio.gather(*(store.muted_until(p.id) for p in people))
        finally:
            event.remove(db.engine.sync_engine, "before_cursor_execute", seen)
        assert together == alone
        assert alone[0] is not None and alone[1] is not None
        assert alone[0].blocks == {(people[0].id, people[1].id)} and alone[1].blocks == set()
        assert alone[0].muted == () and [p for p, _ in alone[1].muted] == [people[6].id]
        assert statements.count("SELECT") == reads + 3  # one for the sets, codes and mutes each
        assert reads <= 6  # rooms, seats, names, blocks, mutes, tournaments: however many tables
        assert sets == [None, None]
        assert codes == [room_ids[0], room_ids[1], None]
        assert [m is not None for m in mutes] == [n == 6 for n in range(8)]
    finally:
        await db.dispose()


async def test_presence_and_address_marks_arriving_together_share_a_statement(
    database_url: str,
) -> None:
    db = Database(database_url, secret_key="k")
    try:
        async with db.session() as session, session.begin():
            host = await players.create_player(session, name="Host", token_hash="h" * 64)
            room_ids = []
            for n in range(6):
                room = await rooms.create_room(
                    session, code=f"PRS{n:03d}", host_id=host.id, settings={"preset": "pordi"}
                )
                await rooms.fill_seats(session, room_id=room.id, occupants={0: (host.id, None)})
                room_ids.append(room.id)
        store = SqlGameStore(db)
        updates: list[str] = []

        def seen(_conn: object, _cursor: object, statement: str, *_: object) -> None:
            if statement.split()[0].upper() == "UPDATE":
                updates.append(statement)

        event.listen(db.history_engine.sync_engine, "before_cursor_execute", seen)
        try:
            await asyncio.gather(
                *(store.touch(r, humans_online=n, at=NOW) for n, r in enumerate(room_ids)),
                *(store.mark_client(r, host.id, f"mark{n}") for n, r in enumerate(room_ids)),
            )
        finally:
            event.remove(db.history_engine.sync_engine, "before_cursor_execute", seen)
        assert len(updates) <= 4  # a statement per kind and commit, not one per table
        async with db.session() as session:
            online = dict((await session.execute(select(Room.id, Room.humans_online))).all())
            marks = dict((await session.execute(select(Seat.room_id, Seat.client_mark))).all())
        assert online == {r: n for n, r in enumerate(room_ids)}
        assert marks == {r: f"mark{n}" for n, r in enumerate(room_ids)}
    finally:
        await db.dispose()
