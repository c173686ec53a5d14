"""Mutes on SQLite and PostgreSQL: escalation (GAPLE_MUTE_SECONDS), expiry at a given time, and a
muted seat's and a muted spectator's chat refused with ``muted`` and the seconds left over real
sockets (a uvicorn subprocess), then heard again once the mute is lifted."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from app.players import fairplay
from tests.app.live.client import Lobby, TableClient
from tests.app.live.server import ServerProcess

STEPS = (60, 600, 3600)
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


async def test_mutes_escalate_and_expire(app: Any, make_guest: Any) -> None:
    guest = await make_guest("Ayu")
    async with app.state.db.session() as session:
        lengths = []
        at = T0
        for _ in range(4):
            row = await fairplay.mute(
                session, player_id=guest.player_id, reason=None, operator="sari", at=at, steps=STEPS
            )
            lengths.append((row.until - at).total_seconds())
            at = row.until + timedelta(seconds=1)
        await session.commit()
        assert lengths == [60, 600, 3600, 3600]  # the last step for every later one
        last = row.until
        muted = await fairplay.muted_until(session, player_id=guest.player_id, at=last)
        assert muted is None  # over at its end
        before = last - timedelta(seconds=1)
        assert await fairplay.muted_until(session, player_id=guest.player_id, at=before) == last
        assert await fairplay.unmute(session, player_id=guest.player_id, at=before) == 1
        assert await fairplay.muted_until(session, player_id=guest.player_id, at=before) is None


MOD_TOKEN = "moderator-token-0123456789abcdefgh"


async def test_a_muted_seat_is_refused_over_a_real_socket(
    database_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(
        database_url, tmp_path / "server", GAPLE_ADMIN_TOKENS=f"sari:moderator:{MOD_TOKEN}"
    )
    await asyncio.to_thread(server.start)
    lobby = Lobby(server.base_url)
    clients: list[TableClient] = []
    try:
        ayu, budi = await lobby.guest("Ayu"), await lobby.guest("Budi")
        code = (await lobby.create_room(ayu["token"]))["code"]
        await lobby.sit(ayu["token"], code, 0)
        await lobby.sit(budi["token"], code, 1)
        clients = [
            TableClient(server.ws_url(code), g["token"], name=g["name"]) for g in (ayu, budi)
        ]
        for each in clients:
            await each.connect()
        mod = {"Authorization": f"Bearer {MOD_TOKEN}"}
        muted = await lobby.http.post(
            f"/api/admin/players/{budi['player_id']}/mute", json={"reason": "abuse"}, headers=mod
        )
        assert muted.status_code == 200, muted.text
        for message in (
            {"type": "chat", "text": "dari Budi"},
            {"type": "react", "emoji": "🔥"},
            {"type": "phrase", "id": "mantap"},
        ):
            await clients[1].send(message)
        await clients[1].wait_for(lambda: len(errors(clients[1])) == 3)
        for error in errors(clients[1]):
            assert error["code"] == "muted"
            assert 86390 <= error["seconds_left"] <= 86400  # the first mute: one day
        await clients[0].send({"type": "chat", "text": "dari Ayu"})
        await clients[1].wait_for(lambda: "dari Ayu" in said(clients[1]))
        assert "dari Budi" not in said(clients[0])

        lifted = await lobby.http.delete(
            f"/api/admin/players/{budi['player_id']}/mute", headers=mod
        )
        assert lifted.status_code == 200
        await clients[1].send({"type": "chat", "text": "Budi lagi"})
        await clients[0].wait_for(lambda: "Budi lagi" in said(clients[0]))
    finally:
        for each in clients:
            await each.close()
        await lobby.close()
        await asyncio.to_thread(server.stop)


async def test_a_muted_spectator_is_refused_too(database_url: str, tmp_path: Path) -> None:
    """A mute reaches a spectator's socket at once, and one who comes to watch while muted."""
    server = ServerProcess(
        database_url, tmp_path / "server", GAPLE_ADMIN_TOKENS=f"sari:moderator:{MOD_TOKEN}"
    )
    await asyncio.to_thread(server.start)
    lobby = Lobby(server.base_url)
    clients: list[TableClient] = []
    try:
        ayu, citra = await lobby.guest("Ayu"), await lobby.guest("Citra")
        code = (await lobby.create_room(ayu["token"]))["code"]
        await lobby.sit(ayu["token"], code, 0)
        seat, watcher = (TableClient(server.ws_url(code), g["token"]) for g in (ayu, citra))
        clients = [seat, watcher]
        for each in clients:
            await each.connect()
        await watcher.send({"type": "chat", "text": "nonton dulu"})
        await watcher.wait_for(lambda: "nonton dulu" in said(watcher))  # heard by spectators
        mod = {"Authorization": f"Bearer {MOD_TOKEN}"}
        target = f"/api/admin/players/{citra['player_id']}/mute"
        assert (await lobby.http.post(target, headers=mod)).status_code == 200
        await watcher.send({"type": "chat", "text": "masih bisa?"})
        await watcher.send({"type": "phrase", "id": "halo"})
        await watcher.wait_for(lambda: len(errors(watcher)) == 2)
        assert {e["code"] for e in errors(watcher)} == {"muted"}
        assert all(86390 <= e["seconds_left"] <= 86400 for e in errors(watcher))
        # A new socket of the muted spectator: refused from its first line.
        await watcher.close()
        again = TableClient(server.ws_url(code), citra["token"])
        clients.append(again)
        await again.connect()
        await again.send({"type": "chat", "text": "socket baru"})
        await again.wait_for(lambda: len(errors(again)) == 1)
        assert errors(again)[0]["code"] == "muted"
        assert "masih bisa?" not in said(seat) and "socket baru" not in said(again)
        # Lifted: the spectator is heard again.
        assert (await lobby.http.delete(target, headers=mod)).status_code == 200
        await again.send({"type": "chat", "text": "boleh lagi"})
        await again.wait_for(lambda: "boleh lagi" in said(again))
    finally:
        for each in clients:
            await each.close()
        await lobby.close()
        await asyncio.to_thread(server.stop)


def errors(client: TableClient) -> list[dict[str, Any]]:
    return [m for m in client.received if m["type"] == "error"]


def said(client: TableClient) -> list[Any]:
    return [m.get("text") for m in client.received if m["type"] == "chat"]
