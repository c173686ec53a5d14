"""A Tunggal Swiss played by client sockets: how fast the next round opens, move round trips.

    .venv/bin/python bench/tournament.py [--entrants 256] [--rounds 3] [--nodes 1|2] [--db sqlite]

Starts real nodes (uvicorn subprocesses; two nodes: PostgreSQL and Redis, a fresh database and
key prefix of their own) and a Swiss of ``--entrants`` players whose every seat is a client
socket playing a random legal tile as soon as it is its turn (sets of one deal to 1 point). A
watcher on ``/ws/tournaments/{id}`` follows the rounds; each entrant goes to its table when
``round_started`` names it. Measured, per round after the first:

* **next round opened**: from the last ``table_finished`` of the round before to its
  ``round_started`` (every room made, every set started), as the watcher receives them (each
  frame timed as it arrives);
* **every table dealt**: from that same last ``table_finished`` to the last of the round's
  tables showing its first deal in play to its players' sockets (they connect on
  ``round_started``, so this includes their reconnecting);

and the **move round trip** (a ``play`` sent to its ``ack``) over every move, p50 / p99, and that
nothing was lost: every acknowledged move is stored, once. Only 127.0.0.1 is used; everything is
torn down at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import secrets
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson
import websockets
from redis.asyncio import Redis
from sqlalchemy import select, text
from websockets.sync.client import connect as connect_sync

from app.store.db import create_engine
from app.store.models import Move
from tests.app.live.client import Lobby, TableClient, choose
from tests.app.live.server import ServerProcess
from tests.app.live.test_server import answered, my_turn, set_over
from tests.app.live.test_tournament_sockets import RATES, Watcher

ADMIN_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"


class TimedWatcher(Watcher):
    """The tournament's watcher, noting when each frame arrived (``arrived[i]`` is
    ``received[i]``'s). It reads in a thread of its own: the rounds are timed from the frames
    themselves, not from when this process's busy event loop (256 sockets) got round to them."""

    arrived: list[float]

    async def connect(self) -> None:
        self.arrived = []
        self._sync = connect_sync(self.url, max_size=2**22)
        self._thread = threading.Thread(target=self._read_in_thread, daemon=True)
        self._thread.start()

    def _read_in_thread(self) -> None:
        try:
            for frame in self._sync:
                at = time.monotonic()
                message = orjson.loads(frame)
                self.arrived.append(at)  # before ``received``: never a frame without its time
                self.received.append(message)
        except websockets.ConnectionClosed:
            pass

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if not self._thread.is_alive():
                raise AssertionError(f"the socket closed; received {self.received[-3:]}")
            if time.monotonic() > deadline:
                raise TimeoutError
            await asyncio.sleep(0.01)

    async def close(self) -> None:
        self._sync.close()
        await asyncio.to_thread(self._thread.join, 10)

    def arrival(self, kind: str, number: int) -> float:
        """When the last frame of ``kind`` for round ``number`` arrived."""
        return max(
            at
            for at, f in zip(self.arrived, list(self.received), strict=False)
            if f["type"] == kind and f["round"] == number
        )


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def admin(statement: str) -> None:
    engine = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            await conn.execute(text(statement))
    finally:
        await engine.dispose()


class Seat:
    """One entrant's socket at its table of one round: plays random legal tiles, timing acks."""

    def __init__(self, client: TableClient, rng: random.Random) -> None:
        self.client = client
        self.rng = rng
        self.rtts: list[float] = []
        self.acked: list[str] = []
        self.dealt_at: float | None = None

    async def play_set(self) -> None:
        client = self.client
        for _ in range(2_000):
            await client.wait_for(lambda: my_turn(client) or set_over(client), timeout=60)
            if set_over(client):  # an entrant leaves its table as its set ends
                await client.close()
                return
            tile, end = choose(client.view or {}, self.rng)
            sent = time.monotonic()
            move_id = await client.play(tile, end)
            await client.wait_for(lambda m=move_id: answered(client, m))
            if move_id in client.acks:
                self.rtts.append(time.monotonic() - sent)
                self.acked.append(move_id)
        raise RuntimeError("the set did not end")


async def seat_round(
    frame: dict[str, Any], tokens: dict[str, str], urls: list[str], rng: random.Random
) -> list[Seat]:
    async def one(table: dict[str, Any], seat: dict[str, Any], n: int) -> Seat:
        url = urls[n % len(urls)]
        client = TableClient(
            f"{url}/ws/rooms/{table['code']}",
            tokens[seat["player_id"]],
            name=f"{table['code']}-{seat['seat']}",  # move ids unique over the tournament
        )
        await client.connect()
        await client.wait_for(lambda: bool(client.view and client.view["phase"] == "playing"))
        made = Seat(client, random.Random(rng.random()))
        made.dealt_at = time.monotonic()  # this table's first deal is in play
        return made

    made = [
        one(table, seat, n)
        for n, (table, seat) in enumerate((t, s) for t in frame["tables"] for s in t["seats"])
    ]
    return list(await asyncio.gather(*made))


async def one_run(args: argparse.Namespace, workdir: Path, database_url: str) -> dict[str, Any]:
    prefix = f"gaple-bench-{secrets.token_hex(4)}:"
    extra = {"GAPLE_REDIS_URL": REDIS_URL, "GAPLE_REDIS_PREFIX": prefix} if args.nodes > 1 else {}
    servers = [
        ServerProcess(
            database_url,
            workdir / f"node{i}",
            GAPLE_MAX_SOCKETS_PER_ADDRESS="100000",
            **RATES,
            **extra,
        )
        for i in range(args.nodes)
    ]
    seats: list[Seat] = []
    watcher: TimedWatcher | None = None
    rtts: list[float] = []
    acked: list[str] = []
    opened: list[float] = []
    dealt: list[float] = []
    last_finished = 0.0
    try:
        for server in servers:
            await asyncio.to_thread(server.start)
        urls = [s.base_url.replace("http", "ws") for s in servers]
        async with Lobby(servers[0].base_url) as lobby:
            org = await lobby.guest("Org")
            auth = {"Authorization": f"Bearer {org['token']}"}
            saved = await lobby.http.post(
                "/api/accounts",
                json={"username": f"bench_{secrets.token_hex(3)}", "password": "kartu-balak-66"},
                headers=auth,
            )
            saved.raise_for_status()
            body = {
                "name": "Bench Swiss",
                "format": "swiss",
                "mode": "tunggal",
                "rounds": args.rounds,
                "settings": {"preset": "pordi", "turn_seconds": 60, "target_points": 1},
                "starts_at": "2099-01-01T00:00:00Z",
                "min_entrants": 4,
                "max_entrants": max(4, args.entrants),
                "rated": False,
                "public": False,
            }
            made = await lobby.http.post("/api/tournaments", json=body, headers=auth)
            made.raise_for_status()
            tid = made.json()["id"]
            tokens: dict[str, str] = {}
            for n in range(args.entrants):
                guest = await lobby.guest(f"Bench {n}")
                tokens[guest["player_id"]] = guest["token"]
                entered = await lobby.http.post(
                    f"/api/tournaments/{tid}/entries",
                    headers={"Authorization": f"Bearer {guest['token']}"},
                )
                entered.raise_for_status()
            watcher = TimedWatcher(f"{urls[-1]}/ws/tournaments/{tid}")
            await watcher.connect()
            (
                await lobby.http.post(f"/api/tournaments/{tid}/start", headers=auth)
            ).raise_for_status()
            rng = random.Random(1)
            for number in range(1, args.rounds + 1):
                await watcher.wait_for(lambda n=number: watcher.started(n) is not None, 120)
                frame = watcher.started(number)
                assert frame is not None
                seats = await seat_round(frame, tokens, urls, rng)
                await asyncio.wait_for(asyncio.gather(*(s.play_set() for s in seats)), 600)
                if number > 1:
                    dealt.append(max(s.dealt_at or 0.0 for s in seats) - last_finished)
                for seat in seats:
                    rtts += seat.rtts
                    acked += seat.acked
                seats = []
                tables = len(frame["tables"])
                await watcher.wait_for(
                    lambda n=number, k=tables: (
                        sum(1 for f in watcher.of_type("table_finished") if f["round"] == n) >= k
                    ),
                    120,
                )
                last_finished = watcher.arrival("table_finished", number)
                if number < args.rounds:
                    await watcher.wait_for(lambda n=number: watcher.started(n + 1) is not None, 60)
                    opened.append(watcher.arrival("round_started", number + 1) - last_finished)
        engine = create_engine(database_url)
        try:
            async with engine.connect() as conn:
                query = select(Move.client_move_id).where(Move.client_move_id.is_not(None))
                stored = [r[0] for r in await conn.execute(query)]
        finally:
            await engine.dispose()
        lost = set(acked) - set(stored)
        return {
            "opened": opened,
            "dealt": dealt,
            "rtts": rtts,
            "moves": len(acked),
            "lost": lost,
            "twice": len(stored) - len(set(stored)),
        }
    finally:
        for seat in seats:
            with contextlib.suppress(Exception):
                await seat.client.close()
        if watcher is not None:
            await watcher.close()
        for server in servers:
            await asyncio.to_thread(server.stop)
        if args.nodes > 1:
            redis = Redis.from_url(REDIS_URL)
            async for key in redis.scan_iter(match=f"{prefix}*"):
                await redis.delete(key)
            await redis.aclose()


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=1)
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args()
    if args.nodes > 1:
        args.db = "postgres"
    with tempfile.TemporaryDirectory() as workdir:
        if args.db == "sqlite":
            url = f"sqlite+aiosqlite:///{workdir}/bench.db"
            result = await one_run(args, Path(workdir), url)
        else:
            name = f"gaple_bench_{secrets.token_hex(4)}"
            await admin(f'CREATE DATABASE "{name}"')
            try:
                url = ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
                result = await one_run(args, Path(workdir), url)
            finally:
                await admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    ms = [1000 * r for r in result["rtts"]]
    print(f"{args.entrants} entrants, {args.rounds} rounds, {args.nodes} node(s), {args.db}")
    for name in ("opened", "dealt"):
        values = result[name]
        shown = ", ".join(f"{v:.2f}" for v in values)
        print(f"next round {name}: {shown} s (max {max(values, default=float('nan')):.2f} s)")
    print(
        f"move round trip over {len(ms)} moves: p50 {statistics.median(ms):.1f} ms, "
        f"p99 {pct(ms, 0.99):.1f} ms"
    )
    print(f"acknowledged moves not stored: {len(result['lost'])}; stored twice: {result['twice']}")
    return 0 if not result["lost"] and not result["twice"] else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
