"""Fault benchmark: tables playing on two nodes through a Redis restart, a database cut and a move
resent across sets.

    .venv/bin/python bench/faults.py [--tables 4] [--redis-down 3] [--db-down 5] [--json out.json]

Everything it cuts is its own: a ``redis-server`` on a free port (tests/server.py ``RedisServer``,
killed and started again on the same port: its keys, the leases among them, are gone), a database
``gaple_bench_<random>`` on the shared PostgreSQL (created and migrated first, dropped at the end,
bench/run.py), and a TCP proxy in this process between the two nodes and PostgreSQL, which cuts
every connection and refuses new ones for ``--db-down`` seconds. Only 127.0.0.1 is used.

The nodes are ``gaple serve`` (tests/app/live/server.py: fast pacing, the test defaults); the
players are tests/app/live/client.py's ``TableClient``, four humans a table, seats alternating
between the nodes, so every table's moves cross the relay. A player plays a random legal tile
about every ``--think`` seconds; when its socket is closed or refused it reconnects to the other
node with ``resume`` and resends the move it had in flight (the same move id), as the browser
client does; an ``unavailable`` answer is resent after a short pause.

Phases, in order: warm-up; (a) Redis killed for ``--redis-down`` s; (b) the database cut for
``--db-down`` s; (c) on a table of its own with one deal a set, seat 0 plays, its socket drops,
the set ends and the next one starts, and it reconnects and resends its last move of the old set
(PROTOCOL §2: the same ``ack``, nothing applied). Reported:

* acked moves lost (acknowledged, not stored) and doubled (one move id stored twice);
* per fault, seconds from the fault's end until every table has stored a move again (target
  <= 5 s; a table that does not within ``--settle`` s is reported as stalled);
* per fault and node, the error frames the players got there (by code) and the node's log lines
  (all, and those at WARNING or above).

Every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import websockets
from sqlalchemy import select

from app.store import migrate
from app.store.models import Move
from bench.run import pg_create, pg_drop
from tests.app.live.client import Lobby, TableClient, choose
from tests.app.live.server import ServerProcess
from tests.app.live.test_server import my_turn, set_over, stored
from tests.server import RedisServer, free_port

PG_HOST, PG_PORT = "127.0.0.1", 5432
LOUD = re.compile(r"^\S+ \S+ (WARNING|ERROR|CRITICAL) ")
CONNECT_ERRORS = (OSError, ConnectionError, TimeoutError, websockets.WebSocketException)


class Proxy:
    """A TCP proxy on 127.0.0.1 to PostgreSQL that can cut: every connection through it is
    closed and new ones are refused until ``restore``."""

    def __init__(self) -> None:
        self.port = free_port()
        self.open = True
        self.writers: set[asyncio.StreamWriter] = set()
        self.server: asyncio.Server | None = None

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", self.port)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.open:
            writer.close()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(PG_HOST, PG_PORT)
        except OSError:
            writer.close()
            return
        pair = {writer, up_writer}
        self.writers |= pair

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self.writers -= pair

    def cut(self) -> None:
        self.open = False
        for writer in list(self.writers):
            writer.close()
        self.writers.clear()

    def restore(self) -> None:
        self.open = True

    async def close(self) -> None:
        self.cut()
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.server.wait_closed(), 5)


class BenchTable:
    def __init__(self, code: str, host_token: str, rest_url: str) -> None:
        self.code = code
        self.host_token = host_token
        self.rest_url = rest_url
        self.stored_at: list[float] = []  # monotonic times of this table's acks

    def moved_after(self, t: float) -> float | None:
        later = [s for s in self.stored_at if s > t]
        return min(later) - t if later else None


class Seat:
    """One human seat: plays, reconnects to the other node, resends what was in flight."""

    def __init__(
        self, table: BenchTable, client: TableClient, urls: list[str], node: int, think: float
    ) -> None:
        self.table = table
        self.client = client
        self.urls = urls  # the table's socket URL on each node
        self.node = node
        self.think = think
        self.rng = random.Random(client.name)
        self.acked: set[str] = set()
        self.errors: list[tuple[float, int, str]] = []  # (time, node, code)
        self._seen_errors = 0
        self.reconnects = 0

    def _collect(self) -> None:
        for error in self.client.errors[self._seen_errors :]:
            self.errors.append((time.monotonic(), self.node, str(error.get("code"))))
        self._seen_errors = len(self.client.errors)

    async def reconnect(self, deadline: float) -> bool:
        self._collect()
        await self.client.close()
        for attempt in range(200):
            if time.monotonic() > deadline:
                return False
            self.node = (self.node + 1) % len(self.urls)
            self.client.url = self.urls[self.node]
            try:
                await self.client.connect(resume=True)
                self.reconnects += 1
                return True
            except CONNECT_ERRORS:
                self._collect()
                await asyncio.sleep(min(0.1 * 2**attempt, 1.0))
        return False

    async def play(self, stop: asyncio.Event, until: float) -> None:
        pending: tuple[str, str, str | None] | None = None
        client = self.client
        for _ in range(100_000):
            if stop.is_set() or time.monotonic() > until:
                return
            try:
                if pending is not None:
                    move_id, tile, end = pending
                    if not client.acked(move_id):
                        await client.play(tile, end, move_id=move_id)
                        await client.wait_for(
                            lambda m=move_id: (
                                client.acked(m)  # type: ignore[misc]
                                or any(e.get("move_id") == m for e in client.errors)
                            ),
                            timeout=10,
                        )
                    if move_id in client.acks:
                        self.acked.add(move_id)
                        self.table.stored_at.append(time.monotonic())
                        pending = None
                    elif any(
                        e.get("move_id") == move_id and e.get("code") == "unavailable"
                        for e in client.errors
                    ):
                        client.errors = [e for e in client.errors if e.get("move_id") != move_id]
                        self._seen_errors = min(self._seen_errors, len(client.errors))
                        self.errors.append((time.monotonic(), self.node, "unavailable"))
                        await asyncio.sleep(0.2)  # resend the same move id
                    else:
                        pending = None  # refused for good (the rules): choose again
                    continue
                self._collect()
                try:
                    await client.wait_for(lambda: my_turn(client) or set_over(client), timeout=2)
                except TimeoutError:
                    continue
                if set_over(client):
                    if client.seat == 0:
                        await self._next_set()
                    await asyncio.sleep(0.2)
                    continue
                await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
                if not my_turn(client):
                    continue
                tile, end = choose(client.view or {}, self.rng)
                pending = (await client.play(tile, end), tile, end)
            except (ConnectionError, websockets.ConnectionClosed, TimeoutError):
                if not await self.reconnect(until):
                    return

    async def _next_set(self) -> None:
        with contextlib.suppress(Exception):
            async with Lobby(self.table.rest_url) as lobby:
                await lobby.start(self.table.host_token, self.table.code)


async def make_table(
    nodes: list[ServerProcess], index: int, think: float, **settings: Any
) -> tuple[BenchTable, list[Seat]]:
    async with Lobby(nodes[0].base_url) as lobby:
        guests = [await lobby.guest(f"T{index} S{seat}") for seat in range(4)]
        room = await lobby.create_room(guests[0]["token"], **settings)
        code = room["code"]
        for seat, guest in enumerate(guests):
            await lobby.sit(guest["token"], code, seat)
    table = BenchTable(code, guests[0]["token"], nodes[index % 2].base_url)
    urls = [n.ws_url(code) for n in nodes]
    seats = []
    for seat, guest in enumerate(guests):
        node = (seat + index) % 2
        client = TableClient(urls[node], guest["token"], name=f"t{index}s{seat}")
        await client.connect()
        seats.append(Seat(table, client, urls, node, think))
    async with Lobby(nodes[0].base_url) as lobby:
        await lobby.start(guests[0]["token"], code)
    return table, seats


def log_counts(nodes: list[ServerProcess]) -> list[tuple[int, int]]:
    counts = []
    for node in nodes:
        lines = node.log().splitlines()
        counts.append((len(lines), sum(1 for line in lines if LOUD.match(line))))
    return counts


async def recovered(tables: list[BenchTable], since: float, settle: float) -> dict[str, Any]:
    """Wait (at most ``settle`` s) until every table has stored a move after ``since``."""
    deadline = since + settle
    while time.monotonic() < deadline:
        if all(t.moved_after(since) is not None for t in tables):
            break
        await asyncio.sleep(0.1)
    times = [t.moved_after(since) for t in tables]
    stalled = [t.code for t, s in zip(tables, times, strict=True) if s is None]
    moving = [s for s in times if s is not None]
    return {
        "every_table_moving_after_s": None if stalled else round(max(moving), 2),
        "median_table_s": round(sorted(moving)[len(moving) // 2], 2) if moving else None,
        "stalled_tables": stalled,
    }


def phase_report(
    name: str,
    seats: list[Seat],
    nodes: list[ServerProcess],
    start: float,
    logs_before: list[tuple[int, int]],
    recovery: dict[str, Any],
) -> dict[str, Any]:
    for seat in seats:
        seat._collect()
    logs_after = log_counts(nodes)
    per_node = []
    for i in range(len(nodes)):
        codes = Counter(c for s in seats for (t, n, c) in s.errors if t >= start and n == i)
        per_node.append(
            {
                "node": i,
                "error_frames": dict(codes),
                "log_lines": logs_after[i][0] - logs_before[i][0],
                "log_lines_warning_or_above": logs_after[i][1] - logs_before[i][1],
            }
        )
    return {"phase": name, **recovery, "nodes": per_node}


async def resend_across_sets(nodes: list[ServerProcess], think: float) -> dict[str, Any]:
    """(c): seat 0's last move of set 1 resent, on a new socket, once set 2 has started."""
    table, seats = await make_table(nodes, 99, think, mode="tunggal", deals_per_set=1)
    stop = asyncio.Event()
    until = time.monotonic() + 120
    tasks = [asyncio.create_task(s.play(stop, until)) for s in seats[1:]]
    first = seats[0]
    client = first.client
    last: tuple[str, str, str | None] | None = None
    for _ in range(500):  # play seat 0 by hand through set 1
        with contextlib.suppress(TimeoutError):
            await client.wait_for(lambda: my_turn(client) or set_over(client), timeout=5)
        if set_over(client) or time.monotonic() > until:
            break
        if not my_turn(client):
            continue
        tile, end = choose(client.view or {}, first.rng)
        move_id = await client.play(tile, end)
        await client.wait_for(lambda m=move_id: client.acked(m), timeout=10)  # type: ignore[misc]
        first.acked.add(move_id)
        last = (move_id, tile, end)
    assert last is not None and set_over(client), "set 1 did not end"
    await client.close()  # the socket drops ...
    async with Lobby(table.rest_url) as lobby:  # ... while the next set starts
        await lobby.start(table.host_token, table.code)
    await asyncio.sleep(0.5)
    client.url = first.urls[1 - first.node]
    await client.connect(resume=True)
    started = time.monotonic()
    move_id, tile, end = last
    acks_before = dict(client.acks)
    errors_before = len(client.errors)
    await client.play(tile, end, move_id=move_id)
    answer: dict[str, Any] | None = None
    for _ in range(100):
        if client.acks.get(move_id) not in (None, acks_before.get(move_id)):
            answer = {"ack": client.acks[move_id]}
            break
        errors = [e for e in client.errors[errors_before:] if e.get("move_id") == move_id]
        if errors:
            answer = {"error": errors[0]}
            break
        await asyncio.sleep(0.1)
    # Then set 2 plays on: when does the table move again?
    tasks.append(asyncio.create_task(first.play(stop, time.monotonic() + 30)))
    recovery = await recovered([table], started, 20)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    for seat in seats:
        await seat.client.close()
    ack = (answer or {}).get("ack")
    return {
        "resent": move_id,
        "answer": answer,
        "answered_with_the_original_ack": bool(ack and ack.get("set") == 1),
        "applied_again": bool(ack and ack.get("set") != 1),
        **recovery,
        "seats": seats,
    }


async def bench(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    name = await asyncio.to_thread(pg_create)
    direct = f"postgresql+asyncpg://postgres@{PG_HOST}:{PG_PORT}/{name}"
    redis = RedisServer(workdir / "redis")
    proxy = Proxy()
    nodes: list[ServerProcess] = []
    all_seats: list[Seat] = []
    try:
        await asyncio.to_thread(migrate.upgrade, direct)
        await asyncio.to_thread(redis.start)
        await proxy.start()
        via_proxy = f"postgresql+asyncpg://postgres@127.0.0.1:{proxy.port}/{name}"
        for i in range(2):
            node = ServerProcess(
                via_proxy,
                workdir / f"node{i}",
                GAPLE_MIGRATE_ON_START="false",
                # the bench makes its guests, rooms and seats from one address
                GAPLE_RATE_GUESTS="1000/minute",
                GAPLE_RATE_ROOMS="1000/minute",
                GAPLE_RATE_SEATS="1000/minute",
                GAPLE_REDIS_URL=redis.url,
                GAPLE_REDIS_PREFIX="bench:",
                GAPLE_LEASE_TTL_SECONDS="3",
                GAPLE_CLUSTER_CHECK_SECONDS="0.5",
                # the pause between deals is not a stall: kept short so that a deal ending just
                # before a fault ends does not count its pause as time to recover
                GAPLE_DEAL_PAUSE_SECONDS="0.5",
            )
            await asyncio.to_thread(node.start)
            nodes.append(node)
        tables = []
        for index in range(args.tables):
            table, seats = await make_table(
                nodes, index, args.think, mode="tunggal", deals_per_set=21, turn_seconds=60
            )
            tables.append(table)
            all_seats += seats
        stop = asyncio.Event()
        until = time.monotonic() + 600
        players = [asyncio.create_task(s.play(stop, until)) for s in all_seats]
        phases = []
        try:
            await asyncio.sleep(args.warmup)

            start, logs = time.monotonic(), log_counts(nodes)
            await asyncio.to_thread(redis.stop)
            await asyncio.sleep(args.redis_down)
            await asyncio.to_thread(redis.start)
            ended = time.monotonic()
            recovery = await recovered(tables, ended, args.settle)
            await asyncio.sleep(2)
            phases.append(phase_report("redis restart", all_seats, nodes, start, logs, recovery))

            start, logs = time.monotonic(), log_counts(nodes)
            proxy.cut()
            await asyncio.sleep(args.db_down)
            proxy.restore()
            ended = time.monotonic()
            recovery = await recovered(tables, ended, args.settle)
            await asyncio.sleep(2)
            phases.append(phase_report("database cut", all_seats, nodes, start, logs, recovery))
        finally:
            stop.set()
            await asyncio.gather(*players, return_exceptions=True)
            for seat in all_seats:
                await seat.client.close()

        start, logs = time.monotonic(), log_counts(nodes)
        try:
            resend = await asyncio.wait_for(resend_across_sets(nodes, args.think), 180)
        except Exception as exc:  # e.g. a socket that never got its welcome: report it
            phase = phase_report("resend across sets", [], nodes, start, logs, {})
            phase |= {"every_table_moving_after_s": None, "stalled_tables": ["(c)"]}
            phase["failed"] = f"{type(exc).__name__}: {exc}"
            phases.append(phase)
        else:
            resend_seats = resend.pop("seats")
            all_seats += resend_seats
            phase = phase_report(
                "resend across sets",
                resend_seats,
                nodes,
                start,
                logs,
                {k: resend[k] for k in ("every_table_moving_after_s", "stalled_tables")},
            )
            phase["resend"] = {k: v for k, v in resend.items() if k != "stalled_tables"}
            phases.append(phase)

        rows = await stored(direct, select(Move.seat, Move.client_move_id))
        stored_ids = Counter(r.client_move_id for r in rows if r.client_move_id)
        acked = {m for s in all_seats for m in s.acked}
        return {
            "tables": args.tables,
            "acked_moves": len(acked),
            "acked_lost": len([m for m in acked if stored_ids[m] == 0]),
            "doubled": sum(1 for c in stored_ids.values() if c > 1),
            "reconnects": sum(s.reconnects for s in all_seats),
            "phases": phases,
        }
    finally:
        for node in nodes:
            await asyncio.to_thread(node.stop)
        await proxy.close()
        await asyncio.to_thread(redis.stop)
        await asyncio.to_thread(pg_drop, name)


def print_report(result: dict[str, Any]) -> None:
    print(
        f"faults: {result['tables']} tables on 2 nodes; {result['acked_moves']} acked moves, "
        f"{result['acked_lost']} lost, {result['doubled']} doubled; "
        f"{result['reconnects']} reconnects"
    )
    for phase in result["phases"]:
        moving = phase["every_table_moving_after_s"]
        state = (
            f"every table moving {moving} s after it ended"
            if moving is not None
            else (f"STALLED: {', '.join(phase['stalled_tables'])}")
        )
        print(f"  {phase['phase']}: {state}")
        if "failed" in phase:
            print(f"    FAILED: {phase['failed']}")
        for node in phase["nodes"]:
            print(
                f"    node{node['node']}: error frames {node['error_frames'] or '{}'}; "
                f"log lines {node['log_lines']} ({node['log_lines_warning_or_above']} "
                "at WARNING or above)"
            )
        if "resend" in phase:
            r = phase["resend"]
            print(
                f"    resent {r['resent']}: answer {json.dumps(r['answer'])}; original ack: "
                f"{r['answered_with_the_original_ack']}; applied again: {r['applied_again']}"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--think", type=float, default=0.15, help="seconds between moves")
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--redis-down", type=float, default=3)
    parser.add_argument("--db-down", type=float, default=5)
    parser.add_argument("--settle", type=float, default=30, help="give up waiting after")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", type=Path, help="keep the nodes' files (logs) in this folder")
    args = parser.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        result = asyncio.run(bench(args, args.keep))
    else:
        with tempfile.TemporaryDirectory(prefix="gaple-faults-") as tmp:
            result = asyncio.run(bench(args, Path(tmp)))
    print_report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
