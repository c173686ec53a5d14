"""Event-loop lag of one node running many tables of hard bots.

    .venv/bin/python bench/bot_loop_lag.py [--tables 200] [--seconds 60] [--workers 2]

In process: the real app (``create_app``) on a fresh SQLite file, its real ``TableManager`` on
the system clock, every move stored. Each of ``--tables`` rooms gets four hard bots through the
REST API (``POST /api/rooms/{code}/bots/{seat} {"kind": "hard"}``) and is started; the bots then
play on their own, with the configured pause before each move, and think in the node's
``BotRunner`` pool (``GAPLE_BOT_WORKERS`` = ``--workers``). A probe task asks the loop to wake it
every 10 ms and records how late it wakes: that lateness is the lag every socket of the node
would feel. Printed: lag p50 / p99 / max, moves stored per second, hard decisions the normal
bot made because the pool was saturated. ``--kind normal`` runs the same tables without the pool.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys
import tempfile
import time
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


async def _probe(lags: list[float], until: float) -> None:
    loop = asyncio.get_running_loop()
    while loop.time() < until:
        t0 = loop.time()
        await asyncio.sleep(TICK)
        lags.append(loop.time() - t0 - TICK)


async def run(tables: int, seconds: float, workers: int, kind: str) -> None:
    os.environ["GAPLE_BOT_WORKERS"] = str(workers)
    from app.main import create_app
    from app.rooms.bots import close_shared_runner, shared_runner
    from app.settings import Settings
    from app.store.models import Move

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            database_url=f"sqlite+aiosqlite:///{tmp}/lag.sqlite3",
            data_dir=Path(tmp),
            secret_key=secrets.token_hex(32),
            migrate_on_start=True,
            redis_url=None,
            production=False,
        )
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            shared_runner().start()  # workers spawned before the clock starts
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://bench") as api:
                await _open_tables(api, tables, kind)
            loop = asyncio.get_running_loop()
            await asyncio.sleep(2.0)  # the first moves are in flight
            async with app.state.db.session() as session:
                before = await session.scalar(select(func.count()).select_from(Move)) or 0
            lags: list[float] = []
            t0 = time.perf_counter()
            cpu0 = time.process_time()
            await _probe(lags, loop.time() + seconds)
            elapsed = time.perf_counter() - t0
            cpu = time.process_time() - cpu0
            async with app.state.db.session() as session:
                after = await session.scalar(select(func.count()).select_from(Move)) or 0
            fallbacks = shared_runner().fallbacks
            await close_shared_runner()
    lags.sort()
    ms = [x * 1000 for x in lags]
    p50, p99 = ms[len(ms) // 2], ms[int(0.99 * (len(ms) - 1))]
    print(
        f"{tables} tables x 4 {kind} bots, {workers} bot workers, {elapsed:.0f} s: "
        f"{(after - before) / elapsed:.0f} moves/s stored, loop CPU {cpu / elapsed:.0%}, "
        f"{fallbacks} hard decisions made by the normal bot (pool saturated or late)"
    )
    print(f"event-loop lag: p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {ms[-1]:.1f} ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--kind", default="hard", help="bot level (normal: the same tables, no pool)")
    args = ap.parse_args()
    asyncio.run(run(args.tables, args.seconds, args.workers, args.kind))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
