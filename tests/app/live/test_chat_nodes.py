"""Table talk through real servers: two nodes on PostgreSQL and Redis, clients on both, so
every message crosses the relay one way or the other."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import httpx
import orjson
import pytest
from redis.asyncio import Redis

from app.rooms.connection import WAKE_BATCH
from tests.app.live.client import Lobby, TableClient
from tests.app.live.test_cluster import NodeSet, nodes, table_on

__all__ = ["nodes"]  # the fixture, used by name

pytestmark = pytest.mark.parametrize("database_url", ["postgres"], indirect=True)


def talk(client: TableClient, kind: str = "chat") -> list[dict[str, Any]]:
    return [m for m in client.received if m["type"] == kind]


def heard(client: TableClient, text: str) -> bool:
    return any(m.get("text") == text for m in talk(client))


def refused_as_muted(client: TableClient) -> bool:
    return any(e.get("code") == "muted" for e in client.errors)


async def say_until_refused(client: TableClient, who: str, limit: float = 10.0) -> int:
    """Say a line every 0.25 s until the table refuses one as ``muted`` (lines past the chat's
    rate are refused too, and heard by nobody): how many errors then."""
    for n in range(int(limit / 0.25)):
        await client.send({"type": "chat", "text": f"{who} bicara {n}"})
        with contextlib.suppress(TimeoutError):
            await client.wait_for(lambda: refused_as_muted(client), timeout=0.25)
        if refused_as_muted(client):
            return len(client.errors)
    raise AssertionError(f"{who}: no line was refused as muted in {limit} s")


async def test_talk_crosses_nodes_to_whoever_may_hear_it(nodes: NodeSet) -> None:
    servers = await asyncio.to_thread(nodes, 2)
    urls = [s.base_url.replace("http", "ws") for s in servers]
    lobby, code, guests = await table_on(servers, turn_seconds=60)
    seats = [
        TableClient(f"{urls[i % 2]}/ws/rooms/{code}", g["token"], name=f"seat{i}")
        for i, g in enumerate(guests)
    ]
    fans = [await lobby.guest(f"Fan {i}") for i in range(2)]
    stands = [
        TableClient(f"{urls[i]}/ws/rooms/{code}", fan["token"], name=f"fan{i}")
        for i, fan in enumerate(fans)
    ]
    everyone = [*seats, *stands]
    try:
        for client in everyone:
            await client.connect()
        assert [c.role for c in stands] == ["spectator", "spectator"]

        await seats[1].send({"type": "chat", "text": "Halo semua"})
        for client in everyone:
            await client.wait_for(lambda c=client: heard(c, "Halo semua"))
            line = talk(client)[-1]
            assert (line["seat"], line["name"]) == (1, "Node player 1")

        await stands[1].send({"type": "chat", "text": "dari tribun"})
        await stands[1].send({"type": "react", "emoji": "👏"})
        for fan in stands:
            await fan.wait_for(lambda f=fan: bool(talk(f, "react")))
            line = next(m for m in talk(fan) if m["text"] == "dari tribun")
            assert line["spectator"] is True and line["name"] == "Fan 1"
        await seats[0].send({"type": "phrase", "id": "mantap"})
        for client in seats:  # the seats' frames come in order: the stands' would be earlier
            await client.wait_for(lambda c=client: bool(talk(c, "phrase")))
            assert not heard(client, "dari tribun") and talk(client, "react") == []

        for _ in range(5):  # the limit: 5 per 10 s (a refused message does not count)
            await seats[3].send({"type": "react", "emoji": "👍"})
        await seats[3].send({"type": "chat", "text": "x" * 201})
        await seats[3].send({"type": "react", "emoji": "🔥"})
        await seats[3].wait_for(lambda: len(seats[3].errors) == 2)
        assert [e["code"] for e in seats[3].errors] == ["bad_chat", "chat_rate_limited"]

        late = TableClient(f"{urls[1]}/ws/rooms/{code}", fans[0]["token"], name="late")
        await late.connect()
        await late.wait_for(lambda: bool(talk(late, "chat_history")))
        lines = talk(late, "chat_history")[0]["lines"]
        assert [m.get("text") or m.get("id") for m in lines] == [
            "Halo semua",
            "dari tribun",
            "mantap",
        ]
        await late.close()
    finally:
        for client in everyone:
            await client.close()
        await lobby.close()


MOD_TOKEN = "moderator-token-0123456789abcdefgh"


async def test_a_mute_reaches_spectators_on_every_node(nodes: NodeSet) -> None:
    """Muted through either node, a spectator watching through either node is refused at once
    (one of the two calls lands on the node that does not run the table: the relay tells it)."""
    servers = await asyncio.to_thread(nodes, 2, GAPLE_ADMIN_TOKENS=f"sari:moderator:{MOD_TOKEN}")
    urls = [s.base_url.replace("http", "ws") for s in servers]
    lobby, code, _ = await table_on(servers, turn_seconds=60)
    fans = [await lobby.guest(f"Fan {i}") for i in range(2)]
    stands = [
        TableClient(f"{urls[i]}/ws/rooms/{code}", fan["token"], name=f"fan{i}")
        for i, fan in enumerate(fans)
    ]
    mod = {"Authorization": f"Bearer {MOD_TOKEN}"}
    try:
        for client in stands:
            await client.connect()
        for n, (fan, stand) in enumerate(zip(fans, stands, strict=True)):
            async with Lobby(servers[1 - n].base_url) as other:  # the other node's API
                muted = await other.http.post(
                    f"/api/admin/players/{fan['player_id']}/mute", headers=mod
                )
            assert muted.status_code == 200, muted.text
            # The mute crosses to the table's node over the bus, in a moment that a busy machine
            # stretches: a line may pass before it lands, none after it.
            said = await say_until_refused(stand, f"fan {n}")
            assert stand.errors[-1]["code"] == "muted"
            await stand.send({"type": "chat", "text": f"fan {n} lagi"})
            await stand.wait_for(lambda s=stand, k=said: len(s.errors) == k + 1)
            assert stand.errors[-1]["code"] == "muted"
        assert not any(heard(s, "fan 0 lagi") or heard(s, "fan 1 lagi") for s in stands)
    finally:
        for client in stands:
            await client.close()
        await lobby.close()


async def test_a_frame_for_a_nodes_spectators_crosses_redis_once(
    nodes: NodeSet, redis_url: str, redis_prefix: str
) -> None:
    """The owner sends one relayed message per frame to a node for all the table's sockets
    there, not one per socket: a watched final's spectators on another node cost Redis a
    message a frame. More of them than one batch of the relay node's fan-out: every one gets
    it all the same."""
    crowd = WAKE_BATCH + 6
    servers = await asyncio.to_thread(nodes, 2, GAPLE_MAX_SOCKETS_PER_ADDRESS=str(crowd + 10))
    urls = [s.base_url.replace("http", "ws") for s in servers]
    lobby, code, guests = await table_on(servers, turn_seconds=60)
    seat = TableClient(f"{urls[0]}/ws/rooms/{code}", guests[0]["token"], name="seat0")
    stands = [TableClient(f"{urls[1]}/ws/rooms/{code}", None, name=f"fan{i}") for i in range(crowd)]
    async with httpx.AsyncClient(base_url=servers[1].base_url) as http:
        relay_node = (await http.get("/livez")).json()["node"]
    redis = Redis.from_url(redis_url)
    pubsub = redis.pubsub(ignore_subscribe_messages=True)
    await pubsub.subscribe(f"{redis_prefix}node:{relay_node}")
    try:
        await seat.connect()  # the first socket: node 0 takes the table
        await asyncio.gather(*(client.connect() for client in stands))
        assert [c.role for c in stands] == ["spectator"] * crowd
        await asyncio.sleep(1.5)  # the spectators' count is told (presence), then it is quiet
        while await pubsub.get_message(timeout=0.2) is not None:
            pass

        await seat.send({"type": "chat", "text": "Selamat datang"})
        for client in stands:
            await client.wait_for(lambda c=client: heard(c, "Selamat datang"))
        relayed: list[dict[str, Any]] = []
        while (message := await pubsub.get_message(timeout=0.5)) is not None:
            relayed += orjson.loads(message["data"])
        frames = [m for m in relayed if m["k"] == "frame" and "Selamat datang" in m["text"]]
        keys = [c for m in frames for c in m["conns"]]
        assert len(frames) == 1 and len(keys) == len(set(keys)) == crowd
    finally:
        await pubsub.aclose()
        await redis.aclose()
        for client in [seat, *stands]:
            await client.close()
        await lobby.close()
