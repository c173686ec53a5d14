"""What one group commit of moves costs the server, through the store and through the bare driver.

    .venv/bin/python bench/commit_cost.py [--db sqlite|postgres] [--commits 200]

Three ways to make N moves durable in one transaction, each timed in CPU (this process, all
threads: the driver's thread and the kernel's fsync work included) and wall clock:

* ``store``: ``SqlGameStore._commit_moves`` exactly as the live tables use it (SQLAlchemy Core,
  aiosqlite or asyncpg, on the history's connections kept open between commits);
* ``held``: the same statements on one connection of an engine of its own, kept open across
  commits;
* ``driver``: the bare driver, one transaction with an ``executemany`` (sqlite3 in this thread
  with the server's pragmas; asyncpg with a prepared statement).

The SQLite file (WAL, ``synchronous=FULL`` as the server runs it) is a fresh one in a temporary
directory; PostgreSQL gets a throwaway database ``gaple_bench_<random>``, dropped afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.rooms.store import SqlGameStore, write_moves
from app.store import migrate, players, rooms
from app.store.db import Database, create_engine
from app.store.records import MoveRecord

PG_SERVER = "postgres@127.0.0.1:5432"
NOW = datetime(2026, 11, 30, tzinfo=UTC)
BATCHES = (1, 4, 10)
Driver = Callable[[int, int], Awaitable[str]]  # (commits, batch) -> the timing line
INSERT_COLUMNS = '(deal_id, seq, seat, tile, "end", auto, client_move_id, created_at)'


class Moves:
    """Fresh move records for one deal, numbered on."""

    def __init__(self, deal_id: int) -> None:
        self.deal_id = deal_id
        self.seq = 0

    def take(self, n: int) -> list[MoveRecord]:
        out = []
        for _ in range(n):
            self.seq += 1
            out.append(
                MoveRecord(
                    deal_id=self.deal_id,
                    seq=self.seq,
                    seat=0,
                    tile="6-6",
                    end=None,
                    auto=False,
                    client_move_id=None,
                    at=NOW,
                )
            )
        return out


async def timed(commits: int, batch: int, commit: Callable[[int], Awaitable[None]]) -> str:
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(commits):
        await commit(batch)
    cpu_us = (time.process_time() - cpu) / commits * 1e6
    wall_ms = (time.perf_counter() - wall) / commits * 1e3
    return f"{cpu_us:7.0f} µs CPU/commit {cpu_us / batch:6.0f} µs/move {wall_ms:6.2f} ms wall"


async def new_deal(db: Database, code: str) -> int:
    store = SqlGameStore(db)
    async with db.session() as session, session.begin():
        host = await players.create_player(session, name="Bench", token_hash=secrets.token_hex(32))
        room = await rooms.create_room(
            session, code=code, host_id=host.id, settings={"preset": "pordi"}
        )
    set_id = await store.create_set(room_id=room.id, number=1, rules={}, at=NOW)
    return await store.create_deal(set_id=set_id, number=1, secret="1" * 64, opener=0, at=NOW)


async def measure(url: str, driver: Driver, commits: int) -> None:
    db = Database(url, secret_key="bench")
    try:
        store = SqlGameStore(db)
        moves = Moves(await new_deal(db, "BENCH1"))

        async def via_store(n: int) -> None:
            await store._commit_moves(moves.take(n))

        # an engine of its own: on SQLite the store holds the history's one connection
        held_engine = create_engine(url)
        held_conn = await held_engine.connect()

        async def via_held(n: int) -> None:
            async with held_conn.begin():
                await write_moves(held_conn, moves.take(n))

        await via_store(1)  # warm the statement caches
        await via_held(1)
        for batch in BATCHES:
            n = max(1, commits // batch)
            print(f"batch {batch:2d}  store  {await timed(n, batch, via_store)}")
            print(f"batch {batch:2d}  held   {await timed(n, batch, via_held)}")
            print(f"batch {batch:2d}  driver {await driver(n, batch)}")
        await held_conn.close()
        await held_engine.dispose()
    finally:
        await db.dispose()


def sqlite_driver(path: Path, deal_id_of: Callable[[], int]) -> Driver:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    seq = [1_000_000]

    async def run(commits: int, batch: int) -> str:
        deal_id = deal_id_of()

        async def commit(n: int) -> None:
            rows = []
            for _ in range(n):
                seq[0] += 1
                rows.append((deal_id, seq[0], 0, "6-6", None, 0, None, NOW.isoformat(" ")))
            conn.execute("BEGIN")
            conn.executemany(f"INSERT INTO moves {INSERT_COLUMNS} VALUES (?,?,?,?,?,?,?,?)", rows)
            conn.execute("COMMIT")

        return await timed(commits, batch, commit)

    return run


def postgres_driver(dsn: str, deal_id_of: Callable[[], int]) -> Driver:
    seq = [1_000_000]
    sql = f"INSERT INTO moves {INSERT_COLUMNS} VALUES ($1,$2,$3,$4,$5,$6,$7,$8)"

    async def run(commits: int, batch: int) -> str:
        conn = await asyncpg.connect(dsn)
        deal_id = deal_id_of()

        async def commit(n: int) -> None:
            rows = []
            for _ in range(n):
                seq[0] += 1
                rows.append((deal_id, seq[0], 0, "6-6", None, False, None, NOW))
            async with conn.transaction():
                await conn.executemany(sql, rows)

        try:
            await commit(1)  # prepare the statement outside the measurement
            return await timed(commits, batch, commit)
        finally:
            await conn.close()

    return run


async def deal_id_in(url: str) -> int:
    db = Database(url, secret_key="bench")
    try:
        return await new_deal(db, "BENCH2")
    finally:
        await db.dispose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--commits", type=int, default=200, help="moves per measurement, about")
    args = parser.parse_args()
    if args.db == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.sqlite3"
            url = f"sqlite+aiosqlite:///{path}"
            migrate.upgrade(url)
            deal = asyncio.run(deal_id_in(url))
            asyncio.run(measure(url, sqlite_driver(path, lambda: deal), args.commits))
        return 0
    name = f"gaple_bench_{secrets.token_hex(4)}"

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(f"postgresql://{PG_SERVER}/postgres")
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    try:
        url = f"postgresql+asyncpg://{PG_SERVER}/{name}"
        migrate.upgrade(url)
        deal = asyncio.run(deal_id_in(url))
        asyncio.run(
            measure(
                url, postgres_driver(f"postgresql://{PG_SERVER}/{name}", lambda: deal), args.commits
            )
        )
    finally:
        asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    return 0


if __name__ == "__main__":
    sys.exit(main())
