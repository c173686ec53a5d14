"""The ownership and relay layer at the largest scale this machine allows (docs/CAPACITY.md).

    .venv/bin/python bench/capacity.py [--quick] [--nodes 2] [--per-node 1000,5000,10000,25000]
        [--rounds 6] [--relay-rates 2000,5000] [--relay-nodes 50] [--relay-seconds 5]

Against the real Redis, through the real ``app.bus.redis.RedisBus``, under a key prefix of its
own (``gaple-cap-<random>:``, deleted afterwards). Three parts:

* **placement**: the share of seat sockets whose table is owned by another node (so whose frames
  cross Redis), for the deployment's ``least_conn`` balancing and for sockets routed by room,
  counted over simulated tables;
* **leases**: ``--nodes`` worker processes, one bus each, each claiming K leases and then doing
  what ``Cluster._check`` does every ``cluster_check_seconds`` (app/settings.py) for
  ``--rounds`` checks: ``renew_all`` of its K leases, then the counts of its watched tables
  (1%) published. Per K: leases that lapsed (a renewal that found the lease gone), the
  renewal's wall time and client CPU per lease, the counts' wall time, Redis's CPU per renewal
  (``INFO cpu``). Then the client and Redis CPU per lease of ``renew_all`` against a pipeline of
  one script call per lease (``--renew-cost``, on by default);
* **spectators**: one node's spectator counts at the event's scale, as the bus keeps them and
  as they were kept before (every table's, the whole hash read by every node every check);
* **relay**: an owner process publishing ``RelayFrame`` messages (app/rooms/protocol.py) through
  ``RedisBus.send`` to ``--relay-nodes`` relay nodes (buses in a second process, subscribed as
  nodes are), at each of ``--relay-rates`` messages/s for ``--relay-seconds``: messages
  delivered, Redis CPU per message, bytes per message (payload, and Redis's network counters).

Every loop is bounded in count and time. ``INFO`` is the whole Redis server's: anything else
using it meanwhile counts (the load average is printed with each figure).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import secrets
import sys
import time
from pathlib import Path
from typing import Any

import orjson
from redis import Redis as SyncRedis
from redis.asyncio import Redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.bus.redis import RENEW_BATCH, RedisBus
from app.rooms.protocol import RelayFrame, relay_dump
from app.settings import Settings

REDIS_URL = "redis://127.0.0.1:6379/0"
LEASE_TTL = float(Settings.model_fields["lease_ttl_seconds"].default)
CHECK_SECONDS = float(Settings.model_fields["cluster_check_seconds"].default)
FRAME_BYTES = 490  # a move's 9 frames are ~4.4 KB (docs/PERFORMANCE.md, bench/relay.py)
SEATS = 4
# Relayed messages per move for each seat socket on another node than the table: the event and
# its own snapshot come back as RelayFrames; its play goes out as a RelayClient and its ack
# comes back, one move in four each.
MESSAGES_PER_RELAYED_SEAT = 2 + 2 / SEATS

# renew_all before it became one script per batch: a pipeline of one call per lease (compared
# with --renew-cost).
RENEW_ONE_SCRIPT = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
WATCHED_SHARE = 0.01  # tables with spectators: a final's, a few featured ones
LOBBY_PAGE = 50  # rooms a lobby lists, whose spectator counts it reads


def load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def redis_cpu(client: SyncRedis) -> float:
    info: Any = client.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def redis_net(client: SyncRedis) -> tuple[int, int]:
    info: Any = client.info("stats")
    return int(info["total_net_input_bytes"]), int(info["total_net_output_bytes"])


def clear(client: SyncRedis, prefix: str) -> int:
    keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
    for i in range(0, len(keys), 1000):
        client.delete(*keys[i : i + 1000])
    return len(keys)


# --- placement -----------------------------------------------------------------------------------


def placement(nodes: int, tables: int, seed: int = 1) -> dict[str, float]:
    """The share of seat sockets on another node than their table's owner, counted.

    ``least_conn`` (deploy/nginx.conf): each socket lands on any node; the owner is the node
    where the table's first socket arrived. ``by room``: the balancer hashes the room code to a
    node, so every socket of a table arrives where it runs, except for tables opened before a
    node joined or left the ring (one such change during the event: the tables whose node moved
    keep their owner until their next set)."""
    rng = random.Random(seed)
    relayed_lc = 0
    moved = 0
    for _ in range(tables):
        sockets = [rng.randrange(nodes) for _ in range(SEATS)]
        relayed_lc += sum(1 for s in sockets[1:] if s != sockets[0])
        # one node added: a consistent ring moves 1/(nodes+1) of the rooms to it
        if rng.random() < 1 / (nodes + 1):
            moved += 1
    return {
        "least_conn": relayed_lc / (tables * SEATS),
        "by room, after one ring change": moved / tables,
    }


# --- leases --------------------------------------------------------------------------------------


async def _node_leases(
    prefix: str, node: int, per_node: int, rounds: int, check: float, spectators: bool
) -> dict[str, float]:
    node_id = f"cap-node-{node}"
    rooms = [f"room-{node}-{i}" for i in range(per_node)]
    # Claimed with a long lease, so that the time claiming K leases takes cannot lapse any; from
    # the first renewal on they hold the server's lease (LEASE_TTL).
    claimer = RedisBus(Redis.from_url(REDIS_URL), prefix=prefix, node_id=node_id, lease_ttl=120)
    bus = RedisBus(Redis.from_url(REDIS_URL), prefix=prefix, node_id=node_id, lease_ttl=LEASE_TTL)
    try:
        for i in range(0, per_node, RENEW_BATCH * 4):
            chunk = rooms[i : i + RENEW_BATCH * 4]
            owners = await asyncio.gather(*(claimer.claim(r) for r in chunk))
            assert all(o == node_id for o in owners)
        watched = rooms[: max(1, int(per_node * WATCHED_SHARE))]
        lapsed: set[str] = set()
        walls, cpus, spectator_walls, periods = [], [], [], []
        last = time.perf_counter()
        for _ in range(rounds):
            await asyncio.sleep(check)  # as Cluster._watch: the interval, then the check
            wall, cpu = time.perf_counter(), time.process_time()
            kept = await bus.renew_all(rooms)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            periods.append(time.perf_counter() - last)
            last = time.perf_counter()
            lapsed.update(r for r, k in zip(rooms, kept, strict=True) if not k)
            wall = time.perf_counter()
            if spectators:  # as Cluster._check: the watched tables' counts
                await bus.publish_spectators(dict.fromkeys(watched, 1), gone=[])
            spectator_walls.append(time.perf_counter() - wall)
        return {
            "lapsed": len(lapsed),
            "renew_wall_max": max(walls),
            "renew_wall_mean": sum(walls) / len(walls),
            "renew_cpu_per_lease": sum(cpus) / len(cpus) / per_node,
            "period_max": max(periods),
            "spectators_wall_mean": sum(spectator_walls) / len(spectator_walls),
        }
    finally:
        await claimer.redis.aclose()
        await bus.redis.aclose()


def _lease_worker(
    prefix: str, node: int, per_node: int, rounds: int, spectators: bool, out: Any
) -> None:
    out.put(asyncio.run(_node_leases(prefix, node, per_node, rounds, CHECK_SECONDS, spectators)))


def leases(prefix: str, nodes: int, per_node: list[int], rounds: int, spectators: bool) -> None:
    client = SyncRedis.from_url(REDIS_URL)
    forking = multiprocessing.get_context("fork")
    print(
        f"\nleases: {nodes} nodes (processes), lease {LEASE_TTL:g} s, check every "
        f"{CHECK_SECONDS:g} s, {rounds} checks each"
        + ("" if spectators else ", without the spectator counts")
    )
    print(
        f"{'per node':>9} {'leases':>7} {'lapsed':>7} {'renew wall mean/max s':>22} "
        f"{'check period max s':>18} {'client µs/lease':>15} {'Redis µs/renewal':>16} "
        f"{'spectators s/check':>18} {'load 1m':>7}"
    )
    for k in per_node:
        out = forking.Queue()
        cpu0 = redis_cpu(client)
        children = [
            forking.Process(
                target=_lease_worker, args=(prefix, n, k, rounds, spectators, out), daemon=True
            )
            for n in range(nodes)
        ]
        for child in children:
            child.start()
        timeout = 60 + rounds * (CHECK_SECONDS + 30)
        results = [out.get(timeout=timeout) for _ in children]
        for child in children:
            child.join(timeout=30)
        redis_used = redis_cpu(client) - cpu0
        renewals = nodes * k * rounds
        print(
            f"{k:>9,} {nodes * k:>7,} {sum(r['lapsed'] for r in results):>7,.0f} "
            f"{max(r['renew_wall_mean'] for r in results):>11.3f} / "
            f"{max(r['renew_wall_max'] for r in results):<8.3f} "
            f"{max(r['period_max'] for r in results):>18.3f} "
            f"{sum(r['renew_cpu_per_lease'] for r in results) / nodes * 1e6:>15.1f} "
            # the claims, the spectator counts and the renewals, all / the renewals
            f"{redis_used / renewals * 1e6:>16.1f} "
            f"{max(r['spectators_wall_mean'] for r in results):>18.3f} {load():>7}"
        )
        clear(client, prefix)
    client.close()


async def renew_cost(prefix: str, leases_n: int, repeats: int) -> None:
    """Client and Redis CPU per lease: ``RedisBus.renew_all`` as it is, against a pipeline of
    one script call per lease (``renew_all`` before it renewed a batch in one call)."""
    node_id = "cap-cost"
    rooms = [f"cost-{i}" for i in range(leases_n)]
    bus = RedisBus(Redis.from_url(REDIS_URL), prefix=prefix, node_id=node_id, lease_ttl=LEASE_TTL)
    script = bus.redis.register_script(RENEW_ONE_SCRIPT)
    info = SyncRedis.from_url(REDIS_URL)
    try:
        async with bus.redis.pipeline(transaction=False) as pipe:
            for room in rooms:
                pipe.set(bus._lease(room), node_id, px=120_000)
            await pipe.execute()

        async def one_per_lease(ids: list[str]) -> list[bool]:
            kept: list[bool] = []
            for i in range(0, len(ids), RENEW_BATCH):
                async with bus.redis.pipeline(transaction=False) as pipe:
                    for room in ids[i : i + RENEW_BATCH]:
                        await script(keys=[bus._lease(room)], args=[node_id, 120_000], client=pipe)
                    kept.extend(bool(x) for x in await pipe.execute())
            return kept

        print(f"\nrenewal cost: {leases_n:,} leases, best of {repeats}")
        ways = (("RedisBus.renew_all", bus.renew_all), ("one call per lease", one_per_lease))
        for name, renew in ways:
            best = (float("inf"), float("inf"), float("inf"))
            for _ in range(repeats):
                redis0, wall, cpu = redis_cpu(info), time.perf_counter(), time.process_time()
                kept = await renew(rooms)
                spent = (time.process_time() - cpu, time.perf_counter() - wall)
                best = min(best, (*spent, redis_cpu(info) - redis0))
                assert all(kept)
            print(
                f"  {name:<20} client {best[0] / leases_n * 1e6:5.1f} µs/lease, "
                f"Redis {best[2] / leases_n * 1e6:5.1f} µs/lease, "
                f"wall {best[1] * 1e3:7.1f} ms for all (load {load()})"
            )
    finally:
        await bus.redis.aclose()
        info.close()


async def spectator_counts(prefix: str, tables: int, nodes: int, repeats: int) -> None:
    """One node's spectator counts when ``tables`` run on ``nodes``, two ways:

    * as ``RedisBus`` does it: the check publishes the node's watched tables' counts
      (``publish_spectators``), and a lobby reads its page's rooms' (``spectators_of``);
    * as it was done before (the same commands written out here): every check wrote all of the
      node's tables' counts into the hash and read the whole hash back (``HGETALL``), every
      node every second: O(all tables) per node."""
    client = SyncRedis.from_url(REDIS_URL)
    bus = RedisBus(Redis.from_url(REDIS_URL), prefix=prefix, node_id="cap-spec", lease_ttl=3)
    key = f"{prefix}spectators"
    share = max(1, tables // nodes)
    watched = max(1, int(share * WATCHED_SHARE))
    try:
        for n in range(nodes):  # every node's watched tables in the hash
            await bus.publish_spectators({f"spec-{n}-{i}": 1 for i in range(watched)}, gone=[])
        page = [f"spec-{n}-0" for n in range(LOBBY_PAGE)]

        async def now() -> None:
            await bus.publish_spectators({f"spec-0-{i}": 1 for i in range(watched)}, gone=[])
            await bus.spectators_of(page)

        async def before() -> None:
            async with bus.redis.pipeline(transaction=False) as pipe:
                pipe.hset(key, mapping={f"spec-0-{i}": "0" for i in range(share)})
                pipe.pexpire(key, 12_000)
                await pipe.execute()
            raw = await bus.redis.hgetall(key)
            counts = {k.decode(): int(v.split()[0]) for k, v in raw.items()}
            assert len(counts) >= share

        print(
            f"\nspectator counts, one node's check: {tables:,} tables on {nodes} nodes "
            f"({share:,} here, {watched} watched), best of {repeats}"
        )
        ways = (("RedisBus (watched only)", now), ("before: all, HGETALL", before))
        for name, way in ways:
            if name.startswith("before"):  # every node's every table in the hash
                for n in range(nodes):
                    await bus.redis.hset(key, mapping={f"spec-{n}-{i}": "0" for i in range(share)})
            best = (float("inf"), float("inf"), float("inf"))
            for _ in range(repeats):
                cpu0, wall, cpu = redis_cpu(client), time.perf_counter(), time.process_time()
                await way()
                elapsed = (time.perf_counter() - wall, time.process_time() - cpu)
                best = min(best, (redis_cpu(client) - cpu0, *elapsed))
            print(
                f"  {name:<24} Redis {best[0] * 1e3:6.2f} ms CPU, the node "
                f"{best[2] * 1e3:6.2f} ms CPU, {best[1] * 1e3:6.2f} ms wall (load {load()})"
            )
    finally:
        await bus.redis.aclose()
        client.close()


# --- relay ---------------------------------------------------------------------------------------


def frame_message(node: int, serial: int) -> dict[str, Any]:
    text = orjson.dumps({"t": "event", "seq": serial, "pad": "x" * (FRAME_BYTES - 40)}).decode()
    return relay_dump(RelayFrame(conns=[f"cap-relay-{node}:{serial:032x}"], text=text))


async def _relay_nodes(prefix: str, nodes: int, seconds: float, ready: Any, out: Any) -> None:
    buses = [
        RedisBus(Redis.from_url(REDIS_URL), prefix=prefix, node_id=f"cap-relay-{n}", lease_ttl=3)
        for n in range(nodes)
    ]
    got = [0]

    async def handler(message: dict[str, Any]) -> None:
        got[0] += 1

    for bus in buses:
        await bus.start(handler)
    ready.set()
    cpu = time.process_time()
    deadline = time.monotonic() + seconds + 3
    while time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    used = time.process_time() - cpu
    for bus in buses:
        await bus.close()
    out.put((got[0], used))


def _relay_worker(prefix: str, nodes: int, seconds: float, ready: Any, out: Any) -> None:
    asyncio.run(_relay_nodes(prefix, nodes, seconds, ready, out))


async def _owner(prefix: str, nodes: int, rate: int, seconds: float) -> tuple[int, int, float]:
    """Send ``rate`` RelayFrames a second for ``seconds``, spread over the relay nodes, in ticks
    of 10 ms; returns (messages, payload bytes, client CPU)."""
    bus = RedisBus(Redis.from_url(REDIS_URL), prefix=prefix, node_id="cap-owner", lease_ttl=3)
    await bus.start(_ignore)
    tick = 0.01
    per_tick = max(1, round(rate * tick))
    sent = payload = 0
    cpu = time.process_time()
    start = time.monotonic()
    for n in range(int(seconds / tick)):
        for _ in range(per_tick):
            node = sent % nodes
            message = frame_message(node, sent)
            payload += len(orjson.dumps(message))
            bus.send(f"cap-relay-{node}", message)
            sent += 1
        await asyncio.sleep(max(0.0, start + (n + 1) * tick - time.monotonic()))
    await asyncio.sleep(0.2)
    used = time.process_time() - cpu
    await bus.close()
    return sent, payload, used


async def _ignore(message: dict[str, Any]) -> None:
    return None


def relay(prefix: str, nodes: int, rates: list[int], seconds: float) -> None:
    client = SyncRedis.from_url(REDIS_URL)
    forking = multiprocessing.get_context("fork")
    print(
        f"\nrelay: one owner -> {nodes} relay nodes (one bus each, in a second process), "
        f"RelayFrame of a ~{FRAME_BYTES} B frame, {seconds:g} s per rate"
    )
    print(
        f"{'target/s':>8} {'sent/s':>7} {'delivered':>9} {'payload B/msg':>13} "
        f"{'Redis in+out B/msg':>18} {'Redis µs/msg':>12} {'owner µs/msg':>12} "
        f"{'relay µs/msg':>12} {'load 1m':>7}"
    )
    for rate in rates:
        ready, out = forking.Event(), forking.Queue()
        child = forking.Process(
            target=_relay_worker, args=(prefix, nodes, seconds, ready, out), daemon=True
        )
        child.start()
        if not ready.wait(timeout=30):
            raise RuntimeError("the relay nodes did not subscribe in 30 s")
        cpu0, (in0, out0) = redis_cpu(client), redis_net(client)
        sent, payload, owner_cpu = asyncio.run(_owner(prefix, nodes, rate, seconds))
        got, relay_cpu = out.get(timeout=seconds + 60)
        child.join(timeout=30)
        cpu1, (in1, out1) = redis_cpu(client), redis_net(client)
        print(
            f"{rate:>8,} {sent / seconds:>7,.0f} {got:>9,} {payload / sent:>13.0f} "
            f"{(in1 - in0 + out1 - out0) / sent:>18.0f} {(cpu1 - cpu0) / sent * 1e6:>12.1f} "
            f"{owner_cpu / sent * 1e6:>12.1f} {relay_cpu / sent * 1e6:>12.1f} {load():>7}"
        )
    client.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small settings: well under a minute")
    parser.add_argument("--nodes", type=int, default=2, help="lease-holding node processes")
    parser.add_argument("--per-node", type=_numbers, default=[1000, 5000, 10000, 25000])
    parser.add_argument("--rounds", type=int, default=6, help="checks per node per K")
    parser.add_argument(
        "--without-spectators",
        action="store_true",
        help="leases: the check renews only (no spectator counts published)",
    )
    parser.add_argument("--renew-cost", type=int, default=5000, help="leases (0: skip)")
    parser.add_argument("--relay-rates", type=_numbers, default=[2000, 5000, 10000])
    parser.add_argument("--relay-nodes", type=int, default=50)
    parser.add_argument("--relay-seconds", type=float, default=5.0)
    parser.add_argument("--placement-nodes", type=int, default=200)
    parser.add_argument("--placement-tables", type=int, default=100_000)
    parser.add_argument(
        "--parts", default="leases,renew,spectators,relay", help="which to run (placement always)"
    )
    args = parser.parse_args()
    if args.quick:
        args.per_node, args.rounds, args.renew_cost = [500, 2000], 3, 1000
        args.relay_rates, args.relay_nodes, args.relay_seconds = [1000], 10, 2.0
        args.placement_tables = 10_000
    prefix = f"gaple-cap-{secrets.token_hex(4)}:"
    print(f"prefix {prefix}, load average {load()} (1 min), {os.cpu_count()} CPUs")
    shares = placement(args.placement_nodes, args.placement_tables)
    print(
        f"\nplacement: {args.placement_tables:,} tables of {SEATS} seats on "
        f"{args.placement_nodes} nodes"
    )
    for name, share in shares.items():
        print(
            f"  {name:<32} {share:6.2%} of seat sockets relayed: "
            f"{share * SEATS * MESSAGES_PER_RELAYED_SEAT:.2f} relay messages per move"
        )
    client = SyncRedis.from_url(REDIS_URL)
    try:
        parts = set(args.parts.split(","))
        if "leases" in parts:
            leases(prefix, args.nodes, args.per_node, args.rounds, not args.without_spectators)
        if "renew" in parts and args.renew_cost:
            asyncio.run(renew_cost(prefix, args.renew_cost, 3))
        if "spectators" in parts:
            asyncio.run(
                spectator_counts(
                    prefix, args.placement_tables, args.placement_nodes, 3 if args.quick else 5
                )
            )
        if "relay" in parts:
            relay(prefix, args.relay_nodes, args.relay_rates, args.relay_seconds)
    finally:
        print(f"\ncleared {clear(client, prefix)} keys under {prefix}")
        client.close()
    return 0


def _numbers(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


if __name__ == "__main__":
    sys.exit(main())
