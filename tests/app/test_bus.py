"""The Redis bus between nodes, against a real Redis: order, batching, flush on close."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import Any

import pytest
from redis.asyncio import Redis

from app.bus.redis import RedisBus

pytestmark = pytest.mark.redis


def make_bus(redis_url: str, prefix: str, node_id: str) -> RedisBus:
    return RedisBus(Redis.from_url(redis_url), prefix=prefix, node_id=node_id, lease_ttl=3)


async def test_messages_to_each_node_arrive_in_order_and_share_publishes(
    redis_url: str, redis_prefix: str
) -> None:
    a, b, c = (make_bus(redis_url, redis_prefix, n) for n in ("a", "b", "c"))
    got: dict[str, list[dict[str, Any]]] = {"b": [], "c": []}

    async def on_b(message: dict[str, Any]) -> None:
        got["b"].append(message)

    async def on_c(message: dict[str, Any]) -> None:
        got["c"].append(message)

    async def nothing(message: dict[str, Any]) -> None:
        raise AssertionError(message)

    # A bystander on b's channel counts what actually crosses Redis.
    spy = Redis.from_url(redis_url).pubsub(ignore_subscribe_messages=True)
    await spy.subscribe(f"{redis_prefix}node:b")
    await b.start(on_b)
    await c.start(on_c)
    await a.start(nothing)
    try:
        for i in range(200):  # one move's frames for many sockets, queued at once
            a.send("b", {"k": "frame", "n": i, "text": '{"type":"event"}'})
            a.send("c", {"k": "frame", "n": i})
        for _ in range(200):
            if len(got["b"]) == len(got["c"]) == 200:
                break
            await asyncio.sleep(0.01)
        assert [m["n"] for m in got["b"]] == list(range(200))
        assert [m["n"] for m in got["c"]] == list(range(200))
        assert got["b"][0]["text"] == '{"type":"event"}'
        raw = []
        for _ in range(5):  # the first read only swallows the subscription's confirmation
            message = await spy.get_message(timeout=0.2)
            if message is not None:
                raw.append(message)
        assert len(raw) == 1  # queued together, published together: one PUBLISH, not 200
    finally:
        await spy.aclose()
        await a.close()
        await b.close()
        await c.close()


async def test_close_flushes_what_was_queued(redis_url: str, redis_prefix: str) -> None:
    a, b = make_bus(redis_url, redis_prefix, "a"), make_bus(redis_url, redis_prefix, "b")
    got: list[int] = []

    async def on_b(message: dict[str, Any]) -> None:
        got.append(message["n"])

    async def nothing(message: dict[str, Any]) -> None:
        raise AssertionError(message)

    await b.start(on_b)
    await a.start(nothing)
    try:
        for i in range(50):
            a.send("b", {"n": i})
        await a.close()  # a node draining: its last messages still go out
        for _ in range(200):
            if len(got) == 50:
                break
            await asyncio.sleep(0.01)
        assert got == list(range(50))
    finally:
        await b.close()


async def test_a_node_renews_all_its_leases_at_once_and_learns_which_it_lost(
    redis_url: str, redis_prefix: str
) -> None:
    a, b = make_bus(redis_url, redis_prefix, "a"), make_bus(redis_url, redis_prefix, "b")
    rooms = [f"room-{i}" for i in range(1200)]  # more than one pipeline's worth
    try:
        for room in rooms:
            assert await a.claim(room) == "a"
        # One lease lapsed and another node took the table meanwhile.
        await a.redis.delete(f"{redis_prefix}lease:room-7")
        assert await b.claim("room-7") == "b"
        kept: list[bool] = []

        async def renew() -> None:
            kept.extend(await a.renew_all(rooms))

        sent = await commands_during(redis_url, a, renew())
        assert kept == [room != "room-7" for room in rooms]
        assert sent == ["EVALSHA"] * 3  # 500 leases a call, not a call each
        assert await a.owners(["room-7", "room-8"]) == ["b", "a"]
        ttl = await a.redis.pttl(f"{redis_prefix}lease:room-1199")
        assert 2000 < ttl <= 3000  # renewed to the full lease
        assert await a.renew_all([]) == [] and await a.owners([]) == []
    finally:
        await a.close()
        await b.close()


async def commands_during(redis_url: str, bus: RedisBus, work: Awaitable[Any]) -> list[str]:
    """The commands clients sent Redis while ``work`` ran that name this test's keys (MONITOR)."""
    watcher = Redis.from_url(redis_url)
    try:
        async with watcher.monitor() as monitor:  # it has answered OK: it is watching
            done = f"{bus.prefix}done"
            await work
            await bus.redis.echo(done)
            seen: list[str] = []
            while True:
                sent = await monitor.next_command()
                if done in sent["command"]:
                    return seen
                if bus.prefix in sent["command"] and sent["client_address"] != "lua":
                    seen.append(sent["command"].split()[0].upper())  # not a script's own calls
    finally:
        await watcher.aclose()


def connections(bus: RedisBus) -> int:
    """How many connections the bus's client has opened (idle and in use)."""
    return sum(count for count, _ in bus.redis.connection_pool.get_connection_count())


async def test_tables_opening_together_claim_in_one_trip_and_every_room_gets_one_owner(
    redis_url: str, redis_prefix: str
) -> None:
    a, b = make_bus(redis_url, redis_prefix, "a"), make_bus(redis_url, redis_prefix, "b")
    rooms = [f"room-{i}" for i in range(300)]  # a tournament's round on two nodes at once
    try:
        assert await a.claim("room-0") == "a"  # a table a already runs
        got_a, got_b = await asyncio.gather(
            asyncio.gather(*(a.claim(room) for room in rooms)),
            asyncio.gather(*(b.claim(room) for room in reversed(rooms))),
        )
        owners = await a.owners(rooms)
        assert list(got_a) == owners == list(reversed(got_b))  # both sides agree with Redis
        assert owners[0] == "a" and set(owners) <= {"a", "b"}
        assert await b.claim("room-0") == "a" and await b.owner("room-0") == "a"
        looked_up = await asyncio.gather(*(b.owner(room) for room in rooms))
        assert list(looked_up) == owners
        # 300 claims and 300 look-ups at once, each a pipeline or one MGET: a connection or two,
        # not one per room.
        assert connections(a) <= 2 and connections(b) <= 2
    finally:
        await a.close()
        await b.close()


async def test_spectator_counts_hold_only_watched_tables_and_a_dead_nodes_counts_run_out(
    redis_url: str, redis_prefix: str
) -> None:
    a, b = make_bus(redis_url, redis_prefix, "a"), make_bus(redis_url, redis_prefix, "b")
    key = f"{redis_prefix}spectators"
    try:
        await a.publish_spectators({"final": 5000, "semi": 3}, gone=[])
        await b.publish_spectators({"other": 1}, gone=[])
        assert await b.spectators_of(["final", "semi", "quiet"]) == {"final": 5000, "semi": 3}
        # The semi's watchers left; tables nobody watches are never written at all.
        await a.publish_spectators({"final": 4999}, gone=["semi"])
        assert sorted(await a.redis.hkeys(key)) == [b"final", b"other"]
        assert await a.spectators_of(["final", "semi", "other"]) == {"final": 4999, "other": 1}
        # b died: what it wrote says until when it holds, and is not believed after that.
        await a.redis.hset(key, "other", f"1 {int(time.time() * 1000) - 1}")
        assert await a.spectators_of(["final", "other"]) == {"final": 4999}
        assert await a.spectators_of([]) == {}
    finally:
        await a.close()
        await b.close()
