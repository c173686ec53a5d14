"""Event-loop lag of one node running many tables of hard bots.

    .venv/bin/python bench/bot_loop_lag.py [--tables 200] [--seconds 30] [--windows 3]
        [--workers 2] [--kind hard|normal] [--postgres URL] [--profile FILE]

In process: the real app (``create_app``, its collector tuned as ``gaple serve`` does) on a
fresh SQLite file, or on a throwaway database created on the ``--postgres`` server and dropped
afterwards; its real ``TableManager`` on the system clock, every move stored. Each of
``--tables`` rooms gets four bots through the REST API (``POST /api/rooms/{code}/bots/{seat}
{"kind": "hard"}``) and is started; the bots then play on their own, with the configured pause
before each move, and hard ones think in the node's ``BotRunner`` pool (``GAPLE_BOT_WORKERS`` =
``--workers``). A probe task asks the loop to wake it every 10 ms and records how late it
wakes: that lateness is the lag every socket of the node would feel. Each window prints lag p50
/ p99 / max, the same less the time the loop's thread waited in the CPU run queue (what other
processes on the machine caused), moves stored per second, the loop process's CPU, and how many
hard decisions came back from the pool or were made by the normal bot instead; the last line
gives the medians. ``--kind normal`` runs the same tables without the pool.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import os
import pstats
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
from sqlalchemy import func, select

TICK = 0.010


async def _open_tables(api: httpx.AsyncClient, tables: int, kind: str) -> None:
    for k in range(tables):
        r = await api.post("/api/guests", json={"name": f"H{k}"})
        headers = {"Authorization": f"Bearer {r.json()['token']}"}
        r = await api.post("/api/rooms", json={"mode": "tunggal"}, headers=headers)
        assert r.status_code == 201, r.text
        code = r.json()["code"]
        for seat in range(4):
            r = await api.post(
                f"/api/rooms/{code}/bots/{seat}", json={"kind": kind}, headers=headers
            )
            assert r.status_code == 200, r.text
        r = await api.post(f"/api/rooms/{code}/start", headers=headers)
        assert r.status_code == 200, r.text


def _queued() -> float:
    """Seconds the loop's thread has spent runnable but waiting for a CPU (Linux schedstat)."""
    with open("/proc/thread-self/schedstat") as f:
        return int(f.read().split()[1]) / 1e9


async def _probe(lags: list[float], own: list[float], until: float) -> None:
    """``lags``: how late each wake-up was; ``own``: the same minus the time the thread sat in
    the CPU run queue meanwhile, i.e. the lateness that this process itself caused (callbacks,
    the collector, the GIL held by another of its threads), as on a machine with a free core."""
    loop = asyncio.get_running_loop()
    while loop.time() < until:
        t0, q0 = loop.time(), _queued()
        await asyncio.sleep(TICK)
        late = loop.time() - t0 - TICK
        lags.append(late)
        own.append(max(0.0, late - (_queued() - q0)))


async def _pg_admin(admin_url: str, statement: str) -> None:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    # CREATE/DROP DATABASE can't run inside a transaction.
    engine = create_async_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            await conn.execute(text(statement))
    finally:
        await engine.dispose()


@contextlib.asynccontextmanager
async def _database(postgres: str | None) -> AsyncIterator[tuple[str, Path]]:
    """A fresh database: a SQLite file, or a throwaway PostgreSQL database dropped afterwards."""
    from sqlalchemy.engine import make_url

    with tempfile.TemporaryDirectory() as tmp:
        if postgres is None:
            yield f"sqlite+aiosqlite:///{tmp}/lag.sqlite3", Path(tmp)
            return
        name = f"gaple_lag_{secrets.token_hex(4)}"
        await _pg_admin(postgres, f'CREATE DATABASE "{name}"')
        try:
            yield make_url(postgres).set(database=name).render_as_string(False), Path(tmp)
        finally:
            await _pg_admin(postgres, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _window(lags: list[float]) -> tuple[float, float, float]:
    ms = sorted(x * 1000 for x in lags)
    return ms[len(ms) // 2], ms[int(0.99 * (len(ms) - 1))], ms[-1]


async def run(args: argparse.Namespace) -> None:
    os.environ["GAPLE_BOT_WORKERS"] = str(args.workers)
    from app.cli import tune_gc
    from app.main import create_app
    from app.rooms.bots import close_shared_runner, shared_runner
    from app.settings import Settings
    from app.store.models import Move

    async with _database(args.postgres) as (url, tmp):
        settings = Settings(
            database_url=url,
            data_dir=tmp,
            secret_key=secrets.token_hex(32),
            migrate_on_start=True,
            redis_url=None,
            production=False,
            # One client opens every table: the per-address limits are not what is measured.
            rate_guests="100000/minute",
            rate_rooms="100000/minute",
            rate_seats="100000/minute",
        )
        app = create_app(settings)
        tune_gc()  # as `gaple serve` does once the app is built
        async with app.router.lifespan_context(app):
            runner = shared_runner()
            runner.start()
            await runner.warm_up()  # workers spawned and importing before the clock starts
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://bench") as api:
                await _open_tables(api, args.tables, args.kind)
            loop = asyncio.get_running_loop()
            await asyncio.sleep(2.0)  # the first moves are in flight
            results: list[tuple[float, float]] = []
            for _ in range(args.windows):
                async with app.state.db.session() as session:
                    before = await session.scalar(select(func.count()).select_from(Move)) or 0
                lags: list[float] = []
                own: list[float] = []
                profiler = cProfile.Profile() if args.profile else None
                fallbacks0, thought0 = runner.fallbacks, runner.thought
                t0, cpu0 = time.perf_counter(), time.process_time()
                if profiler is not None:
                    profiler.enable()  # the loop's thread only: the pool's threads are not seen
                await _probe(lags, own, loop.time() + args.seconds)
                if profiler is not None:
                    profiler.disable()
                elapsed = time.perf_counter() - t0
                cpu = time.process_time() - cpu0
                load = os.getloadavg()[0]
                async with app.state.db.session() as session:
                    after = await session.scalar(select(func.count()).select_from(Move)) or 0
                p50, p99, top = _window(lags)
                _, own99, own_top = _window(own)
                results.append((p99, own99))
                print(
                    f"window {len(results)}: lag p50 {p50:.1f} ms, p99 {p99:.1f} ms, "
                    f"max {top:.1f} ms; less CPU queueing: p99 {own99:.1f} ms, "
                    f"max {own_top:.1f} ms; {(after - before) / elapsed:.0f} moves/s stored, "
                    f"loop process CPU {cpu / elapsed:.0%}, hard decisions thought "
                    f"{runner.thought - thought0}, made by the normal bot "
                    f"{runner.fallbacks - fallbacks0}; load average {load:.1f}",
                    flush=True,
                )
                if profiler is not None:
                    profiler.dump_stats(args.profile)
                    pstats.Stats(args.profile).sort_stats("tottime").print_stats(25)
            await close_shared_runner()
    print(
        f"{args.tables} tables x 4 {args.kind} bots, {args.workers} bot workers, "
        f"{'PostgreSQL' if args.postgres else 'SQLite'}, {len(results)} windows of "
        f"{args.seconds:.0f} s: median lag p99 {statistics.median(r[0] for r in results):.1f} ms, "
        f"less CPU queueing {statistics.median(r[1] for r in results):.1f} ms"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--kind", default="hard", help="bot level (normal: the same tables, no pool)")
    ap.add_argument("--windows", type=int, default=3, help="measured windows (median p99)")
    ap.add_argument("--postgres", metavar="URL", help="a server to create a throwaway database on")
    ap.add_argument("--profile", metavar="FILE", help="cProfile the loop's thread into FILE")
    args = ap.parse_args()
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
