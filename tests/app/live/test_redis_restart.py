"""Redis restarting under two nodes (uvicorn subprocesses) with a table playing across them.

The test runs a redis-server of its own on a free port, kills it and starts it again on the same
port (its keys, the leases among them, are gone). The shared Redis is never touched."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import websockets

from tests.app.live.client import TableClient
from tests.app.live.server import ServerProcess
from tests.app.live.test_cluster import check_history, node_of, seat_players, table_on
from tests.server import RedisServer

pytestmark = pytest.mark.parametrize("database_url", ["postgres"], indirect=True)

BACK_WITHIN = 5.0  # seconds after Redis returns by which every node serves every table again


@pytest.fixture
async def redis_server(tmp_path: Path) -> AsyncIterator[RedisServer]:
    server = RedisServer(tmp_path / "redis")
    await asyncio.to_thread(server.start)
    try:
        yield server
    finally:
        await asyncio.to_thread(server.stop)


@pytest.fixture
async def two_nodes(
    database_url: str, redis_server: RedisServer, tmp_path: Path
) -> AsyncIterator[list[ServerProcess]]:
    nodes = [
        ServerProcess(
            database_url,
            tmp_path / f"node{i}",
            GAPLE_REDIS_URL=redis_server.url,
            GAPLE_LEASE_TTL_SECONDS="1.5",
            GAPLE_CLUSTER_CHECK_SECONDS="0.3",
        )
        for i in range(2)
    ]
    try:
        for node in nodes:
            await asyncio.to_thread(node.start)
        yield nodes
    finally:
        for node in nodes:
            await asyncio.to_thread(node.stop)


async def readiness(nodes: list[ServerProcess]) -> list[int]:
    async with httpx.AsyncClient(timeout=5) as http:
        return [(await http.get(f"{n.base_url}/readyz")).status_code for n in nodes]


async def until_ready_is(nodes: list[ServerProcess], status: int, within: float) -> float:
    """Seconds until every node's /readyz answers ``status``; fails after ``within``."""
    start = time.monotonic()
    seen: list[int] = []
    while time.monotonic() - start < within:
        seen = await readiness(nodes)
        if all(s == status for s in seen):
            return time.monotonic() - start
        await asyncio.sleep(0.1)
    raise AssertionError(f"/readyz answered {seen}, not {status}, for {within} s")


async def refused_handshake(url: str, token: str) -> tuple[list[dict[str, object]], int | None]:
    """The frames a new socket gets, and its close code, when it cannot be served."""
    received: list[dict[str, object]] = []
    async with websockets.connect(url) as ws:
        # The server may refuse before it reads the hello: its close can beat the send, and the
        # frames it sent first are still read below.
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.send(json.dumps({"type": "hello", "token": token}))
        try:
            async for frame in ws:
                received.append(json.loads(frame))
        except websockets.ConnectionClosed:
            pass
    return received, ws.close_code


async def test_a_table_plays_on_from_both_nodes_after_redis_restarts(
    two_nodes: list[ServerProcess], redis_server: RedisServer, database_url: str
) -> None:
    servers = two_nodes
    urls = [s.base_url.replace("http", "ws") for s in servers]
    lobby, code, guests = await table_on(servers, mode="tunggal", deals_per_set=2, turn_seconds=60)
    players = await seat_players(lobby, code, guests, urls)
    ids = [await node_of(s) for s in servers]
    outage: dict[str, object] = {}
    try:
        await lobby.start(guests[0]["token"], code)

        async def restart_redis() -> None:
            await players[0].client.wait_for(
                lambda: len(players[0].client.view["line"]) >= 3,  # type: ignore[index]
                timeout=60,
            )
            await asyncio.to_thread(redis_server.stop)
            # Neither node may say it takes traffic while it cannot reach Redis ...
            await until_ready_is(servers, 503, within=5)
            # ... and a socket arriving meanwhile is told so, not dropped by an ASGI error.
            outage["refused"] = await refused_handshake(
                f"{urls[1]}/ws/rooms/{code}", guests[1]["token"]
            )
            await asyncio.sleep(1.0)
            await asyncio.to_thread(redis_server.start)
            outage["ready_after"] = await until_ready_is(servers, 200, within=BACK_WITHIN)
            # A new socket on either node is welcomed again within seconds (a spectator: it
            # does not take a player's seat socket away).
            for url in urls:
                watcher = TableClient(f"{url}/ws/rooms/{code}", None, name="watcher")
                deadline = time.monotonic() + BACK_WITHIN
                while True:
                    try:
                        await watcher.connect()
                        break
                    except (ConnectionError, websockets.WebSocketException, TimeoutError):
                        await watcher.close()
                        assert time.monotonic() < deadline, f"no welcome on {url}"
                        await asyncio.sleep(0.2)
                await watcher.close()

        await asyncio.wait_for(
            asyncio.gather(restart_redis(), *(p.play_set() for p in players)), 150
        )
        frames, close_code = outage["refused"]  # type: ignore[misc]
        assert [f["type"] for f in frames] == ["error"]
        assert frames[0]["code"] == "unavailable"
        assert close_code == 1013
        assert sum(p.reconnects for p in players) >= 1  # relayed sockets were sent to reconnect
        await check_history(database_url, players)
        for server in servers:
            log = server.log()
            assert "Exception in ASGI application" not in log
            assert "bus: lost Redis" in log and "bus: Redis is back" in log
        assert ids[0] != ids[1]
    finally:
        for player in players:
            await player.client.close()
        await lobby.close()
