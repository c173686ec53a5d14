"""Several real nodes (uvicorn subprocesses) on the machine's PostgreSQL and Redis."""

from __future__ import annotations

import asyncio
import random
import signal
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from sqlalchemy import select

from app.store.models import Deal, Move
from tests.app.live.client import Lobby, TableClient, choose
from tests.app.live.server import ServerProcess
from tests.app.live.test_server import answered, my_turn, set_over, stored

pytestmark = pytest.mark.parametrize("database_url", ["postgres"], indirect=True)

NodeSet = Callable[..., list[ServerProcess]]  # (count, **env)


@pytest.fixture
async def nodes(
    database_url: str, redis_url: str, redis_prefix: str, tmp_path: Path
) -> AsyncIterator[NodeSet]:
    started: list[ServerProcess] = []

    def make(count: int, **env: str) -> list[ServerProcess]:
        for i in range(count):
            node = ServerProcess(
                database_url,
                tmp_path / f"node{i}",
                GAPLE_REDIS_URL=redis_url,
                GAPLE_REDIS_PREFIX=redis_prefix,
                GAPLE_LEASE_TTL_SECONDS="1.5",
                GAPLE_CLUSTER_CHECK_SECONDS="0.3",
                **env,
            )
            node.start()
            started.append(node)
        return started

    try:
        yield make
    finally:
        for node in started:
            await asyncio.to_thread(node.stop)


class Player:
    """One seat's client that plays random legal tiles and, when its node goes away, reconnects
    to another node and resends the move it had in flight (the same move id)."""

    def __init__(self, client: TableClient, urls: list[str], rng: random.Random) -> None:
        self.client = client
        self.urls = urls
        self.rng = rng
        self.acked: list[str] = []
        self.reconnects = 0

    async def reconnect(self) -> None:
        await self.client.close()
        for attempt in range(60):
            url = self.urls[(self.urls.index(self.client.url) + 1) % len(self.urls)]
            self.client.url = url
            try:
                await self.client.connect(resume=True)
                self.reconnects += 1
                return
            except (OSError, ConnectionError, TimeoutError, websockets.WebSocketException):
                await asyncio.sleep(min(0.1 * 2**attempt, 1.0))
        raise AssertionError(f"{self.client.name} could not reconnect")

    async def play_set(self) -> None:
        pending: tuple[str, str, str | None] | None = None
        client = self.client
        for _ in range(2_000):
            try:
                if pending is not None:
                    move_id, tile, end = pending
                    if not client.acked(move_id):
                        await client.play(tile, end, move_id=move_id)
                        await client.wait_for(lambda m=move_id: answered(client, m))
                    if move_id in client.acks:
                        self.acked.append(move_id)
                    pending = None
                await client.wait_for(lambda: my_turn(client) or set_over(client), timeout=30)
                if set_over(client):
                    return
                tile, end = choose(client.view or {}, self.rng)
                pending = (await client.play(tile, end), tile, end)
            except (ConnectionError, websockets.ConnectionClosed):
                await self.reconnect()
        raise AssertionError("the set did not end")


async def seat_players(
    lobby: Lobby, code: str, guests: list[dict[str, Any]], urls: list[str]
) -> list[Player]:
    players = []
    for seat, guest in enumerate(guests):
        url = urls[seat % len(urls)]
        client = TableClient(f"{url}/ws/rooms/{code}", guest["token"], name=f"seat{seat}")
        await client.connect()
        assert client.seat == seat
        players.append(Player(client, [f"{u}/ws/rooms/{code}" for u in urls], random.Random(seat)))
    return players


async def table_on(
    nodes: list[ServerProcess], **settings: Any
) -> tuple[Lobby, str, list[dict[str, Any]]]:
    lobby = Lobby(nodes[0].base_url)
    guests = [await lobby.guest(f"Node player {i}") for i in range(4)]
    room = await lobby.create_room(guests[0]["token"], **settings)
    code = room["code"]
    for seat, guest in enumerate(guests):
        # Sit through different nodes: the lobby is the same whichever node answers.
        async with Lobby(nodes[seat % len(nodes)].base_url) as other:
            await other.sit(guest["token"], code, seat)
    return lobby, code, guests


async def check_history(database_url: str, players: list[Player]) -> None:
    rows = await stored(
        database_url,
        select(Move.deal_id, Move.seq, Move.seat, Move.client_move_id).order_by(Move.id),
    )
    by_deal: dict[int, list[int]] = {}
    for row in rows:
        by_deal.setdefault(row.deal_id, []).append(row.seq)
    for seqs in by_deal.values():
        assert seqs == list(range(1, len(seqs) + 1))  # no gap, no duplicate
    ids = [(r.seat, r.client_move_id) for r in rows if r.client_move_id]
    assert len(ids) == len(set(ids))
    for seat, player in enumerate(players):
        assert {(seat, m) for m in player.acked} <= set(ids)  # every acknowledged move is stored
    deals = await stored(database_url, select(Deal.number, Deal.set_id))
    assert len(deals) == len(set(deals))


async def node_of(node: ServerProcess) -> str:
    async with httpx.AsyncClient() as http:
        return str((await http.get(f"{node.base_url}/api/health")).json()["node"])


async def owner_of(redis_url: str, prefix: str, code: str, lobby: Lobby) -> str:
    from redis.asyncio import Redis

    room_id = (await lobby.room(code))["id"]
    redis = Redis.from_url(redis_url)
    try:
        value = await redis.get(f"{prefix}lease:{room_id}")
    finally:
        await redis.aclose()
    assert value is not None
    return str(value.decode())


async def test_clients_on_different_nodes_play_a_whole_set(
    nodes: NodeSet, database_url: str
) -> None:
    servers = await asyncio.to_thread(nodes, 2)
    urls = [s.base_url.replace("http", "ws") for s in servers]
    lobby, code, guests = await table_on(servers, mode="ganda", target_points=3, turn_seconds=60)
    players = await seat_players(lobby, code, guests, urls)
    watcher = TableClient(f"{urls[1]}/ws/rooms/{code}", None, name="watcher")
    await watcher.connect()
    try:
        # The lobby is the same on both nodes, spectators included.
        for _ in range(50):
            views = []
            for server in servers:
                async with Lobby(server.base_url) as other:
                    views.append(await other.room(code))
            if all(v["spectators"] == 1 for v in views):
                break
            await asyncio.sleep(0.1)
        assert [v["seats_taken"] for v in views] == [4, 4]
        assert [v["spectators"] for v in views] == [1, 1]

        await lobby.start(guests[0]["token"], code)
        await asyncio.wait_for(asyncio.gather(*(p.play_set() for p in players)), 120)
        await watcher.wait_for(lambda: set_over(watcher))
        results = [p.client.view["set_result"] for p in players]  # type: ignore[index]
        assert results[0] is not None and all(r == results[0] for r in results)
        assert watcher.view["set_result"] == results[0]  # type: ignore[index]
        await check_history(database_url, players)
    finally:
        for client in [*(p.client for p in players), watcher]:
            await client.close()
        await lobby.close()


async def test_killing_the_owner_moves_the_table_to_a_survivor(
    nodes: NodeSet, database_url: str, redis_url: str, redis_prefix: str
) -> None:
    servers = await asyncio.to_thread(nodes, 3)
    urls = [s.base_url.replace("http", "ws") for s in servers]
    lobby, code, guests = await table_on(servers, mode="tunggal", deals_per_set=2, turn_seconds=60)
    players = await seat_players(lobby, code, guests, urls)
    try:
        await lobby.start(guests[0]["token"], code)
        owner_id = await owner_of(redis_url, redis_prefix, code, lobby)
        ids = [await node_of(s) for s in servers]
        owner = servers[ids.index(owner_id)]

        async def kill_mid_deal() -> None:
            # Let a few moves land, then kill the owner outright.
            await players[0].client.wait_for(
                lambda: len(players[0].client.view["line"]) >= 6,
                timeout=60,  # type: ignore[index]
            )
            owner.kill(signal.SIGKILL)

        await asyncio.wait_for(
            asyncio.gather(kill_mid_deal(), *(p.play_set() for p in players)), 180
        )
        survivor = next(s for s in servers if s is not owner)
        async with Lobby(survivor.base_url) as other:
            new_owner = await owner_of(redis_url, redis_prefix, code, other)
        assert new_owner != owner_id
        assert sum(p.reconnects for p in players) >= 1
        await check_history(database_url, players)
        assert all(set_over(p.client) for p in players)
    finally:
        for player in players:
            await player.client.close()
        await lobby.close()


async def test_a_rolling_restart_loses_nothing(nodes: NodeSet, database_url: str) -> None:
    servers = await asyncio.to_thread(nodes, 2)
    urls = [s.base_url.replace("http", "ws") for s in servers]
    lobby, code, guests = await table_on(servers, mode="tunggal", deals_per_set=2, turn_seconds=60)
    players = await seat_players(lobby, code, guests, urls)
    try:
        await lobby.start(guests[0]["token"], code)

        async def roll() -> None:
            for server in servers:
                await players[0].client.wait_for(
                    lambda: len(players[0].client.view["line"]) >= 3,
                    timeout=60,  # type: ignore[index]
                )
                await asyncio.to_thread(server.stop)  # SIGTERM: drain and hand over
                await asyncio.to_thread(server.start)

        await asyncio.wait_for(asyncio.gather(roll(), *(p.play_set() for p in players)), 180)
        assert sum(p.reconnects for p in players) >= 2
        await check_history(database_url, players)
    finally:
        for player in players:
            await player.client.close()
        await lobby.close()
