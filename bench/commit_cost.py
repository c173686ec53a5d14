"""What one group commit of moves costs the server, through the store and through the bare driver.

    .venv/bin/python bench/commit_cost.py [--db sqlite|postgres] [--commits 200]
    .venv/bin/python bench/commit_cost.py --db postgres --ceiling [--concurrency 1,4,16,64]
        [--batches 1,4,16] [--procs 2] [--warmup 1] [--duration 4]

Three ways to make N moves durable in one transaction, each timed in CPU (this process, all
threads: the driver's thread and the kernel's fsync work included) and wall clock:

* ``store``: ``SqlGameStore._commit_moves`` exactly as the live tables use it (SQLAlchemy Core,
  aiosqlite or asyncpg, on the history's connections kept open between commits);
* ``held``: the same statements on one connection of an engine of its own, kept open across
  commits;
* ``driver``: the bare driver, one transaction with an ``executemany`` (sqlite3 in this thread
  with the server's pragmas; asyncpg with a prepared statement).

``--ceiling`` (PostgreSQL): where one primary stops. Several committers at once, as several game
nodes' ``GroupCommit`` are, each on a connection of its own held open, commit batches of moves
back to back through the store's own ``write_moves``; they run in ``--procs`` worker processes so
that one Python process's CPU is not the limit. Per concurrency and batch size: moves/s and
commits/s durable, WAL bytes per move (``pg_current_wal_lsn()`` before and after the window,
/ moves), the server's WAL flushes per commit (``pg_stat_wal.wal_sync``: below 1, commits share
a flush), the client's CPU per move and PostgreSQL's (every ``postgres`` process, psutil).
The LSN and ``pg_stat_wal`` are the whole server's: anything else writing to it meanwhile counts.

The SQLite file (WAL, ``synchronous=FULL`` as the server runs it) is a fresh one in a temporary
directory; PostgreSQL gets a throwaway database ``gaple_bench_<random>``, dropped afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import secrets
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import psutil

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


# --- the group-commit ceiling (PostgreSQL) ----------------------------------------------------

SEQ_SPAN = 10_000_000  # each measurement numbers its moves from its own block of seq
GRACE = 1.0  # seconds the committers go on after the window


async def _committers(
    url: str, deals: list[int], seq_from: int, batch: int, start: float, end: float
) -> tuple[int, int, float]:
    """Commit ``batch`` moves at a time on each deal's connection until ``end`` (wall clock);
    count what was committed from ``start`` to ``end``, and go on for a second (so that the
    window's last sample still finds every backend at work). Returns (moves, commits, CPU
    seconds in the window)."""
    engine = create_engine(url, pool_size=len(deals), max_overflow=0)
    conns = [await engine.connect() for _ in deals]
    counted = [0, 0]
    cpu = [0.0]

    async def run(conn: Any, deal_id: int) -> None:
        moves = Moves(deal_id)
        moves.seq = seq_from
        while (now := time.time()) < end + GRACE:
            async with conn.begin():
                await write_moves(conn, moves.take(batch))
            if start <= now < end:
                counted[0] += batch
                counted[1] += 1

    async def clock() -> None:
        await asyncio.sleep(max(0.0, start - time.time()))
        began = time.process_time()
        await asyncio.sleep(max(0.0, end - time.time()))
        cpu[0] = time.process_time() - began

    try:
        await asyncio.gather(clock(), *(run(c, d) for c, d in zip(conns, deals, strict=True)))
    finally:
        for conn in conns:
            await conn.close()
        await engine.dispose()
    return counted[0], counted[1], cpu[0]


def _worker(
    url: str, deals: list[int], seq_from: int, batch: int, start: float, end: float, out: Any
) -> None:
    out.put(asyncio.run(_committers(url, deals, seq_from, batch, start, end)))


def _postgres_cpu() -> dict[int, float]:
    """CPU seconds so far of every ``postgres`` process, by pid."""
    found = {}
    for proc in psutil.process_iter(["name"]):
        if proc.info["name"] == "postgres":
            try:
                times = proc.cpu_times()
            except psutil.Error:
                continue
            found[proc.pid] = times.user + times.system
    return found


def _cpu_between(before: dict[int, float], after: dict[int, float]) -> float:
    """The CPU the processes alive at both ends used meanwhile (a backend that started or ended
    in between, a connection's of our own, is left out)."""
    return sum(after[pid] - before[pid] for pid in before.keys() & after.keys())


async def _wal(dsn: str) -> tuple[int, int]:
    """(the WAL position in bytes, the server's WAL flushes so far)."""
    conn = await asyncpg.connect(dsn)
    try:
        row = await conn.fetchrow(
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint AS lsn, "
            "(SELECT wal_sync FROM pg_stat_wal) AS syncs"
        )
    finally:
        await conn.close()
    assert row is not None
    return int(row["lsn"]), int(row["syncs"])


def ceiling(
    url: str,
    dsn: str,
    deals: list[int],
    *,
    concurrency: list[int],
    batches: list[int],
    procs: int,
    warmup: float,
    duration: float,
) -> None:
    settings = asyncio.run(_settings(dsn))
    print(f"PostgreSQL: {settings}; load average {os.getloadavg()[0]:.2f} (1 min) at the start")
    print(
        f"{'committers':>10} {'batch':>5} {'moves/s':>8} {'commits/s':>9} {'WAL B/move':>10} "
        f"{'flush/commit':>12} {'client µs/move':>14} {'PG µs/move':>10} {'load 1m':>7}"
    )
    forking = multiprocessing.get_context("fork")
    cell = 0
    for n in concurrency:
        for batch in batches:
            cell += 1
            workers = max(1, min(procs, n))
            share = [deals[i:n:workers] for i in range(workers)]
            start = time.time() + 0.5 + warmup  # 0.5 s for the workers to connect
            end = start + duration
            out = forking.Queue()
            children = [
                forking.Process(
                    target=_worker,
                    args=(url, mine, cell * SEQ_SPAN, batch, start, end, out),
                    daemon=True,
                )
                for mine in share
            ]
            for child in children:
                child.start()
            time.sleep(max(0.0, start - time.time()))
            pg0 = _postgres_cpu()
            lsn0, syncs0 = asyncio.run(_wal(dsn))
            time.sleep(max(0.0, end - time.time()))
            pg1 = _postgres_cpu()
            lsn1, syncs1 = asyncio.run(_wal(dsn))
            results = [out.get(timeout=60 + duration) for _ in children]
            for child in children:
                child.join(timeout=30)
            moves = sum(r[0] for r in results)
            commits = sum(r[1] for r in results)
            client_cpu = sum(r[2] for r in results)
            if not moves:
                print(f"{n:>10} {batch:>5} nothing committed in the window")
                continue
            print(
                f"{n:>10} {batch:>5} {moves / duration:>8,.0f} {commits / duration:>9,.0f} "
                f"{(lsn1 - lsn0) / moves:>10.0f} {(syncs1 - syncs0) / commits:>12.2f} "
                f"{client_cpu / moves * 1e6:>14.0f} {_cpu_between(pg0, pg1) / moves * 1e6:>10.0f} "
                f"{os.getloadavg()[0]:>7.2f}"
            )


async def _settings(dsn: str) -> str:
    conn = await asyncpg.connect(dsn)
    try:
        names = ("synchronous_commit", "fsync", "commit_delay", "wal_level", "max_connections")
        values = [await conn.fetchval(f"SHOW {name}") for name in names]
    finally:
        await conn.close()
    return ", ".join(f"{k}={v}" for k, v in zip(names, values, strict=True))


async def deals_in(url: str, n: int) -> list[int]:
    db = Database(url, secret_key="bench")
    try:
        return [await new_deal(db, f"CAP{i:03d}") for i in range(n)]
    finally:
        await db.dispose()


def _numbers(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--commits", type=int, default=200, help="moves per measurement, about")
    parser.add_argument(
        "--ceiling", action="store_true", help="PostgreSQL: the group-commit ceiling (above)"
    )
    parser.add_argument("--concurrency", type=_numbers, default=[1, 4, 16, 64])
    parser.add_argument("--batches", type=_numbers, default=[1, 4, 16])
    parser.add_argument("--procs", type=int, default=2, help="worker processes for the committers")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds before each window")
    parser.add_argument("--duration", type=float, default=4.0, help="seconds in each window")
    args = parser.parse_args()
    if args.ceiling and args.db != "postgres":
        parser.error("--ceiling measures PostgreSQL: add --db postgres")
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
        dsn = f"postgresql://{PG_SERVER}/{name}"
        if args.ceiling:
            deals = asyncio.run(deals_in(url, max(args.concurrency)))
            ceiling(
                url,
                dsn,
                deals,
                concurrency=args.concurrency,
                batches=args.batches,
                procs=args.procs,
                warmup=args.warmup,
                duration=args.duration,
            )
            return 0
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
