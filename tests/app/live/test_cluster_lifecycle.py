"""A room's life across nodes (uvicorn subprocesses, PostgreSQL, Redis): a relayed socket that is
replaced, closed or sent away behaves as one on the table's own node."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from app.rooms.protocol import CLOSE_REPLACED, CLOSE_ROOM_CLOSED
from tests.app.live.client import Lobby, TableClient, _auth
from tests.app.live.server import ServerProcess

pytestmark = pytest.mark.parametrize("database_url", ["postgres"], indirect=True)

HOST_AWAY = 1.0
ABANDONED_AFTER = 1.5


@pytest.fixture
async def two_nodes(
    database_url: str, redis_url: str, redis_prefix: str, tmp_path: Path
) -> AsyncIterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    try:
        for i in range(2):
            node = ServerProcess(
                database_url,
                tmp_path / f"node{i}",
                GAPLE_REDIS_URL=redis_url,
                GAPLE_REDIS_PREFIX=redis_prefix,
                GAPLE_LEASE_TTL_SECONDS="1.5",
                GAPLE_CLUSTER_CHECK_SECONDS="0.3",
                GAPLE_HOST_AWAY_SECONDS=str(HOST_AWAY),
                GAPLE_ABANDONED_TABLE_SECONDS=str(ABANDONED_AFTER),
            )
            await asyncio.to_thread(node.start)
            started.append(node)
        yield started
    finally:
        for node in started:
            await asyncio.to_thread(node.stop)


async def sent_away(client: TableClient, reason: str, code: int) -> None:
    await client.wait_for(lambda: not client.connected)
    assert client.received[-1] == {"type": "bye", "reason": reason}
    assert client._ws.close_code == code


async def until(check: Any, timeout: float = 15.0) -> None:
    async def loop() -> None:
        while not await check():
            await asyncio.sleep(0.1)

    await asyncio.wait_for(loop(), timeout)


async def test_replaced_host_hand_over_and_closing_across_nodes(
    two_nodes: list[ServerProcess],
) -> None:
    owner, relay = two_nodes
    async with Lobby(owner.base_url) as lobby, Lobby(relay.base_url) as other:
        host, guest = await lobby.guest("Host"), await lobby.guest("Guest")
        code = (await lobby.create_room(host["token"], mode="tunggal"))["code"]
        await lobby.sit(host["token"], code, 0)
        await other.sit(guest["token"], code, 1)
        clients: list[TableClient] = []

        def client(node: ServerProcess, who: dict[str, Any] | None, name: str) -> TableClient:
            made = TableClient(node.ws_url(code), who["token"] if who else None, name=name)
            clients.append(made)
            return made

        try:
            seated = client(owner, guest, "guest")
            await seated.connect()  # the first socket: the table now runs on ``owner``
            relayed = client(relay, host, "host on the relay")
            await relayed.connect()
            assert relayed.seat == 0

            # One live socket per player, whichever node each socket is on.
            local = client(owner, host, "host on the owner")
            await local.connect()
            await sent_away(relayed, "replaced", CLOSE_REPLACED)
            again = client(relay, host, "host on the relay again")
            await again.connect()
            await sent_away(local, "replaced", CLOSE_REPLACED)
            assert again.seat == 0 and again.connected

            # The host's last socket goes: after GAPLE_HOST_AWAY_SECONDS the guest is host.
            await again.close()

            async def handed_over() -> bool:
                return bool((await other.room(code))["host"]["player_id"] == guest["player_id"])

            await until(handed_over)
            await seated.wait_for(
                lambda: any(
                    m["type"] == "room" and m["room"]["host_id"] == guest["player_id"]
                    for m in seated.received
                )
            )

            # The new host closes the room through the other node: every socket is sent away.
            watcher = client(relay, None, "watcher on the relay")
            await watcher.connect()
            closed = await other.http.delete(f"/api/rooms/{code}", headers=_auth(guest["token"]))
            assert closed.status_code == 200, closed.text
            await sent_away(seated, "room_closed", CLOSE_ROOM_CLOSED)
            await sent_away(watcher, "room_closed", CLOSE_ROOM_CLOSED)
        finally:
            for made in clients:
                await made.close()


async def test_a_seat_comes_back_and_an_unattended_table_stops_across_nodes(
    two_nodes: list[ServerProcess],
) -> None:
    owner, relay = two_nodes
    async with Lobby(owner.base_url) as lobby, Lobby(relay.base_url) as other:
        host = await lobby.guest("Host")
        code = (await lobby.create_room(host["token"], mode="tunggal"))["code"]
        await lobby.sit(host["token"], code, 0)
        for seat in (1, 2, 3):
            await lobby.seat_bot(host["token"], code, seat)
        await lobby.start(host["token"], code)  # the table starts on ``owner``
        player = TableClient(relay.ws_url(code), host["token"], name="host on the relay")
        watcher = TableClient(relay.ws_url(code), None, name="watcher on the relay")
        try:
            await player.connect()
            await watcher.connect()
            await player.send({"type": "leave"})
            await player.wait_for(lambda: player.role == "spectator")
            await other.sit(host["token"], code, 0)  # back in the seat, through the relay node
            await player.wait_for(lambda: player.role == "seat" and player.seat == 0)
            await player.wait_for(lambda: bool(player.view and player.view["hand"]))

            await player.close()  # no human seat connected: the table stops
            await watcher.wait_for(
                lambda: any(
                    m["type"] == "room" and m["room"]["status"] == "abandoned"
                    for m in watcher.received
                )
            )
            assert (await other.room(code))["status"] == "abandoned"
            moves = watcher.seq
            await asyncio.sleep(2.0)  # bots would have moved by now
            assert watcher.seq == moves
        finally:
            await player.close()
            await watcher.close()
