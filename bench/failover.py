"""Take-over time when a table's owner node dies (SIGKILL), with the default lease settings.

    .venv/bin/python bench/failover.py [--runs 3] [--nodes 2]

Starts real nodes (uvicorn subprocesses) on a fresh PostgreSQL database and a Redis key prefix of
their own, seats four clients spread over the nodes, kills the owner in the middle of a deal and
measures, from the kill: when a surviving node holds the table's lease (the table is rebuilt from
the stored moves there), and when the next move is acknowledged (clients have reconnected and play
goes on). Only 127.0.0.1 is used; everything is torn down at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import secrets
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redis.asyncio import Redis
from sqlalchemy import text

from app.store.db import create_engine
from tests.app.live.client import Lobby, TableClient
from tests.app.live.server import ServerProcess
from tests.app.live.test_cluster import Player

ADMIN_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"


async def admin(statement: str) -> None:
    engine = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            await conn.execute(text(statement))
    finally:
        await engine.dispose()


async def one_run(nodes: int, workdir: Path, database_url: str) -> tuple[float, float]:
    prefix = f"gaple-bench-{secrets.token_hex(4)}:"
    servers = [
        ServerProcess(
            database_url, workdir / f"node{i}", GAPLE_REDIS_URL=REDIS_URL, GAPLE_REDIS_PREFIX=prefix
        )
        for i in range(nodes)
    ]
    redis = Redis.from_url(REDIS_URL)
    players: list[Player] = []
    tasks: list[asyncio.Task[None]] = []
    try:
        for server in servers:
            await asyncio.to_thread(server.start)
        urls = [s.base_url.replace("http", "ws") for s in servers]
        async with Lobby(servers[0].base_url) as lobby:
            guests = [await lobby.guest(f"Bench {i}") for i in range(4)]
            room = await lobby.create_room(guests[0]["token"], deals_per_set=21, turn_seconds=60)
            code = room["code"]
            for seat, guest in enumerate(guests):
                await lobby.sit(guest["token"], code, seat)
            for seat, guest in enumerate(guests):
                url = urls[seat % nodes]
                client = TableClient(f"{url}/ws/rooms/{code}", guest["token"], name=f"s{seat}")
                await client.connect()
                ws_urls = [f"{u}/ws/rooms/{code}" for u in urls]
                players.append(Player(client, ws_urls, random.Random(seat)))
            await lobby.start(guests[0]["token"], code)
        tasks = [asyncio.create_task(p.play_set()) for p in players]
        while sum(len(p.acked) for p in players) < 8:
            await asyncio.sleep(0.01)
        lease = f"{prefix}lease:{room['id']}"
        owner_id = (await redis.get(lease)).decode()
        ids = []
        for server in servers:
            async with Lobby(server.base_url) as other:
                ids.append((await other.http.get("/api/health")).json()["node"])
        owner = servers[ids.index(owner_id)]
        acked_before = sum(len(p.acked) for p in players)
        killed = time.monotonic()
        owner.kill(signal.SIGKILL)
        leased = moved = None
        while moved is None and time.monotonic() - killed < 60:
            value = await redis.get(lease)
            if leased is None and value is not None and value.decode() != owner_id:
                leased = time.monotonic() - killed
                # Acks that were already in flight at the kill don't count as play resuming.
                acked_before = sum(len(p.acked) for p in players)
            if leased is not None and sum(len(p.acked) for p in players) > acked_before:
                moved = time.monotonic() - killed
            await asyncio.sleep(0.01)
        if leased is None or moved is None:
            raise RuntimeError(f"no take-over within 60 s (lease {leased}, move {moved})")
        return leased, moved
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        for player in players:
            await player.client.close()
        for server in servers:
            await asyncio.to_thread(server.stop)
        async for key in redis.scan_iter(match=f"{prefix}*"):
            await redis.delete(key)
        await redis.aclose()


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=2)
    args = parser.parse_args()
    leases, moves = [], []
    for run in range(args.runs):
        name = f"gaple_bench_{secrets.token_hex(4)}"
        await admin(f'CREATE DATABASE "{name}"')
        try:
            with tempfile.TemporaryDirectory() as workdir:
                url = ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
                leased, moved = await one_run(args.nodes, Path(workdir), url)
        finally:
            await admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        leases.append(leased)
        moves.append(moved)
        print(
            f"run {run + 1}: lease taken after {leased:.2f} s, next move acknowledged after "
            f"{moved:.2f} s"
        )
    print(
        f"lease take-over: median {statistics.median(leases):.2f} s (max {max(leases):.2f} s); "
        f"play resumed: median {statistics.median(moves):.2f} s (max {max(moves):.2f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
