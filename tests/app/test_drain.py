"""SIGTERM on a real server: the node drains first (its seated clients get ``bye`` ``draining``,
then close 1012), and only then does uvicorn stop."""

from __future__ import annotations

import asyncio
import json
import re
import signal
from pathlib import Path

import httpx
import pytest
import websockets

from tests.app.live.client import Lobby, TableClient
from tests.server import ServerProcess

LOUD = r"^\S+ \S+ (WARNING|ERROR|CRITICAL) "  # a line of app/logs.py's text format


async def test_sigterm_sends_bye_draining_then_1012(database_url: str, tmp_path: Path) -> None:
    server = ServerProcess(database_url, tmp_path / "server", GAPLE_SECRET_KEY="drain-test")
    await asyncio.to_thread(server.start)
    try:
        async with Lobby(server.base_url) as lobby:
            host = await lobby.guest("Ayu")
            room = await lobby.create_room(host["token"])
            await lobby.sit(host["token"], room["code"], 0)
        client = TableClient(server.ws_url(room["code"]), host["token"], name="seat0")
        await client.connect()
        assert client.role == "seat" and client.seat == 0
        watcher = TableClient(server.ws_url(room["code"]), None, name="spectator")
        await watcher.connect()

        process = server.process
        assert process is not None
        process.send_signal(signal.SIGTERM)
        for socket in (client, watcher):
            assert socket._reader is not None
            await asyncio.wait_for(socket._reader, 20)
            assert socket.received[-1] == {"type": "bye", "reason": "draining"}, socket.received
            assert socket._ws.close_code == 1012
            assert socket._ws.close_reason == "draining"
        # uvicorn re-raises the signal once it has stopped: "terminated by SIGTERM", no crash.
        assert await asyncio.to_thread(process.wait, 30) == -signal.SIGTERM
    finally:
        await asyncio.to_thread(server.stop)
    assert "Traceback" not in server.log(), server.log()


async def test_a_draining_node_is_not_ready_and_sends_new_sockets_away(
    database_url: str, tmp_path: Path
) -> None:
    """Between the signal and the end of the drain, /readyz says 503 (the balancer stops sending
    traffic), /livez still 200, and a socket that arrives is told to reconnect elsewhere."""
    # A slow hand-over keeps the node in its drain long enough to look at it.
    server = ServerProcess(
        database_url,
        tmp_path / "server",
        GAPLE_SECRET_KEY="drain-test",
        GAPLE_DRAIN_GRACE_SECONDS="3",
    )
    await asyncio.to_thread(server.start)
    try:
        async with Lobby(server.base_url) as lobby:
            host = await lobby.guest("Ayu")
            room = await lobby.create_room(host["token"])
        assert server.process is not None
        server.process.send_signal(signal.SIGTERM)
        async with httpx.AsyncClient(base_url=server.base_url) as http:
            for _ in range(100):
                if (await http.get("/readyz")).status_code == 503:
                    break
                await asyncio.sleep(0.05)
            ready = await http.get("/readyz")
            assert ready.status_code == 503
            assert ready.json()["error"]["code"] == "draining"
            assert (await http.get("/livez")).status_code == 200
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(server.ws_url(room["code"]))
        assert refused.value.response.status_code == 503  # nginx retries it on another node
        assert json.loads(refused.value.response.body)["error"]["code"] == "draining"
    finally:
        await asyncio.to_thread(server.stop)
    # A refusal is routine: nothing about it is logged above INFO (uvicorn's "ASGI callable
    # returned without completing handshake" is an ERROR).
    loud = [line for line in server.log().splitlines() if re.search(LOUD, line)]
    assert loud == [], loud
