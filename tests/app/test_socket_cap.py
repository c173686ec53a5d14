"""At most GAPLE_MAX_SOCKETS_PER_ADDRESS WebSockets at once per client address on a node: the
real server (``gaple serve``, uvicorn) on both databases, real sockets from real addresses
(127.0.0.2 is another address on the loopback)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from tests.app.live.server import ServerProcess

DEFAULT_CAP = 50  # the documented default of GAPLE_MAX_SOCKETS_PER_ADDRESS


@contextlib.asynccontextmanager
async def serving(database_url: str, data_dir: Path, **env: str) -> AsyncIterator[ServerProcess]:
    process = ServerProcess(database_url, data_dir, **env)
    await asyncio.to_thread(process.start)
    try:
        yield process
    finally:
        await asyncio.to_thread(process.stop)


async def make_room(server: ServerProcess) -> str:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        response = await http.post("/api/guests", json={"name": "Host"})
        token = response.json()["token"]
        response = await http.post(
            "/api/rooms", json={}, headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status_code == 201, response.text
        return str(response.json()["code"])


async def watch(server: ServerProcess, code: str, **connect: Any) -> ClientConnection:
    """A spectator's socket, in play once the server has answered its hello."""
    ws = await websockets.connect(server.ws_url(code), max_size=2**20, **connect)
    with contextlib.suppress(websockets.ConnectionClosed):  # refused: the error is queued
        await ws.send(json.dumps({"type": "hello", "token": None}))
    first = json.loads(await asyncio.wait_for(ws.recv(), 10))
    if first["type"] == "error":
        return ws  # the caller checks the refusal
    assert first["type"] == "welcome" and first["role"] == "spectator", first
    return ws


async def refused(ws: ClientConnection) -> None:
    """The socket was told why and closed with 1013 (try again later)."""
    frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
    assert frame == {
        "type": "error",
        "code": "too_many_sockets",
        "message": f"at most {DEFAULT_CAP} connections at once from one address",
    }
    with pytest.raises(websockets.ConnectionClosed):
        await asyncio.wait_for(ws.recv(), 10)
    assert ws.close_code == 1013 and ws.close_reason == "too_many_sockets"


async def in_play(ws: ClientConnection) -> bool:
    try:
        await ws.send(json.dumps({"type": "ping", "t": 1}))
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if frame["type"] == "pong":
                return True
            if frame["type"] == "error":
                return False
    except websockets.ConnectionClosed:
        return False


async def open_many(server: ServerProcess, code: str, n: int, **connect: Any) -> list[Any]:
    sockets = []
    for _ in range(n):
        sockets.append(await watch(server, code, **connect))
    assert all([await in_play(ws) for ws in sockets])
    return sockets


async def close_all(sockets: list[ClientConnection]) -> None:
    await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)


async def test_the_51st_socket_is_refused_and_a_freed_slot_is_reused(
    database_url: str, tmp_path: Path
) -> None:
    async with serving(database_url, tmp_path / "node") as server:
        code = await make_room(server)
        held = await open_many(server, code, DEFAULT_CAP)
        try:
            extra = await websockets.connect(server.ws_url(code))
            await refused(extra)
            # Another address is not affected.
            other = await watch(server, code, local_addr=("127.0.0.2", 0))
            assert await in_play(other)
            await other.close()
            # A socket that goes frees its slot for the next one.
            await held.pop().close()
            for _ in range(100):  # the server frees the slot once it has seen the close
                again = await watch(server, code)
                if await in_play(again):
                    break
                await asyncio.sleep(0.05)
            else:
                pytest.fail("the freed slot never came back")
            held.append(again)
            assert all([await in_play(ws) for ws in held])
            late = await websockets.connect(server.ws_url(code))
            await refused(late)
        finally:
            await close_all(held)


async def test_sockets_the_server_closes_free_their_slot(database_url: str, tmp_path: Path) -> None:
    """Sockets closed by the server (no such room) free their slot too."""
    async with serving(database_url, tmp_path / "node") as server:
        code = await make_room(server)
        for _ in range(DEFAULT_CAP + 5):
            async with websockets.connect(server.ws_url("NOSUCH")) as ws:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                assert frame["code"] == "room_not_found"
                with pytest.raises(websockets.ConnectionClosed):
                    await asyncio.wait_for(ws.recv(), 10)
        held = await open_many(server, code, DEFAULT_CAP)
        await close_all(held)


async def test_production_counts_the_address_a_trusted_proxy_names(
    database_url: str, tmp_path: Path
) -> None:
    async with serving(
        database_url, tmp_path / "node", GAPLE_PRODUCTION="true", GAPLE_MAX_SOCKETS_PER_ADDRESS="3"
    ) as server:
        code = await make_room(server)
        # The test connects from 127.0.0.1, the proxy trusted by default.
        first = {"additional_headers": {"X-Forwarded-For": "203.0.113.1"}}
        held = await open_many(server, code, 3, **first)
        try:
            extra = await websockets.connect(server.ws_url(code), **first)
            frame = json.loads(await asyncio.wait_for(extra.recv(), 10))
            assert frame["code"] == "too_many_sockets"
            second = {"additional_headers": {"X-Forwarded-For": "203.0.113.2"}}
            held += await open_many(server, code, 3, **second)
            # From an address that is not a trusted proxy, the header counts for nothing.
            untrusted = [
                {
                    "local_addr": ("127.0.0.3", 0),
                    "additional_headers": {"X-Forwarded-For": f"203.0.113.{n}"},
                }
                for n in (10, 11, 12, 13)
            ]
            for connect in untrusted[:3]:
                held += await open_many(server, code, 1, **connect)
            extra = await websockets.connect(server.ws_url(code), **untrusted[3])
            frame = json.loads(await asyncio.wait_for(extra.recv(), 10))
            assert frame["code"] == "too_many_sockets"
        finally:
            await close_all(held)


async def test_outside_production_forwarded_for_is_ignored(
    database_url: str, tmp_path: Path
) -> None:
    async with serving(
        database_url, tmp_path / "node", GAPLE_MAX_SOCKETS_PER_ADDRESS="2"
    ) as server:
        code = await make_room(server)
        spoofs = [{"additional_headers": {"X-Forwarded-For": f"203.0.113.{n}"}} for n in (1, 2, 3)]
        held = await open_many(server, code, 1, **spoofs[0])
        held += await open_many(server, code, 1, **spoofs[1])
        try:
            extra = await websockets.connect(server.ws_url(code), **spoofs[2])
            frame = json.loads(await asyncio.wait_for(extra.recv(), 10))
            assert frame["code"] == "too_many_sockets"
        finally:
            await close_all(held)
