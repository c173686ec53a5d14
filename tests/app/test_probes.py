"""/livez and /readyz: liveness never touches the database; readiness checks it on a connection
of its own, so a node busy with game traffic stays ready."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import websockets
from sqlalchemy import event

from app.main import create_app
from app.settings import Settings
from tests.app.live.client import Lobby
from tests.server import ServerProcess

FLOOD = 500


def _count_checkouts(app: Any) -> list[int]:
    """Every connection any engine of the app's database hands out, counted."""
    count = [0]

    def checkout(*_args: Any) -> None:
        count[0] += 1

    for engine in app.state.db.engines:
        event.listen(engine.sync_engine, "checkout", checkout)
    return count


async def test_livez_never_touches_the_database(api: httpx.AsyncClient, app: Any) -> None:
    checkouts = _count_checkouts(app)
    for _ in range(20):
        response = await api.get("/livez")
        assert response.status_code == 200
        assert response.json() == {"status": "ok", "node": app.state.node_id}
    assert checkouts[0] == 0
    assert (await api.get("/readyz")).status_code == 200
    assert checkouts[0] > 0  # the counter sees what a database check does


async def test_database_down_live_but_not_ready(tmp_path: Path) -> None:
    settings = Settings(
        database_url="postgresql+asyncpg://postgres@127.0.0.1:1/nothing",
        data_dir=tmp_path,
        secret_key="k",
        migrate_on_start=False,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            assert (await client.get("/livez")).status_code == 200
            ready = await client.get("/readyz")
            assert ready.status_code == 503
            assert ready.json()["error"] == {
                "code": "unavailable",
                "message": "unreachable: database (unreachable (ConnectionRefusedError))",
            }


async def test_readiness_does_not_queue_behind_the_pool(api: httpx.AsyncClient, app: Any) -> None:
    """Every connection of the main pool held (by game traffic): the node is still ready."""
    db = app.state.db
    held = []
    try:
        for _ in range(db.engine.sync_engine.pool.size()):
            held.append(await db.engine.connect())
        assert (await api.get("/readyz")).status_code == 200
        assert (await api.get("/api/health")).json()["database"] == "ok"
    finally:
        for conn in held:
            await conn.close()


async def test_ready_while_500_sockets_connect_at_once(database_url: str, tmp_path: Path) -> None:
    server = ServerProcess(
        database_url,
        tmp_path / "server",
        GAPLE_SECRET_KEY="probe-test",
        GAPLE_MAX_SOCKETS_PER_ADDRESS=str(FLOOD + 10),  # every socket comes from 127.0.0.1
    )
    await asyncio.to_thread(server.start)
    try:
        async with Lobby(server.base_url) as lobby:
            guest = await lobby.guest("Ayu")
            room = await lobby.create_room(guest["token"])
        url = server.ws_url(room["code"])
        hello = json.dumps({"type": "hello", "token": guest["token"]})
        sockets: list[Any] = []

        async def connect() -> None:
            ws = await websockets.connect(url, open_timeout=60)
            sockets.append(ws)
            await ws.send(hello)
            assert json.loads(await asyncio.wait_for(ws.recv(), 60))["type"] == "welcome"

        statuses: list[int] = []
        flood = asyncio.gather(*(connect() for _ in range(FLOOD)))
        async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
            while not flood.done():
                statuses.append((await http.get("/readyz")).status_code)
                await asyncio.sleep(0.05)
            await flood
            statuses.append((await http.get("/readyz")).status_code)
            assert (await http.get("/api/health")).status_code == 200
        assert len(sockets) == FLOOD
        assert len(statuses) >= 2 and set(statuses) == {200}, statuses
        await asyncio.gather(*(ws.close() for ws in sockets))
    finally:
        await asyncio.to_thread(server.stop)
