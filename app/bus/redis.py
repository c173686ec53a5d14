"""Redis primitives for several nodes: table leases and one message channel per node.

A lease is a key holding the owner node's id with a short expiry. Only the owner renews or
releases it (checked atomically in Lua), so a node that was paused past its lease cannot take it
back from the node that took over.

When Redis goes away (a restart, a network cut) the listener notices on its next read, says so
(``connected`` is False, ``on_lost`` is called), and reconnects with backoff; once it has
subscribed again ``connected`` is True and ``on_back`` is called. Messages published while it
was away are lost, so the cluster sends the sockets it relayed away to reconnect (app/rooms/
cluster.py). A lease call that cannot reach Redis raises ``BusUnavailable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson

from app.batch import BatchedLoad
from app.errors import GapleError

if TYPE_CHECKING:  # redis-py is imported only by nodes that are configured to use it
    from redis.asyncio import Redis

log = logging.getLogger(__name__)

_RENEW = """
local kept = {}
for i, key in ipairs(KEYS) do
  if redis.call('get', key) == ARGV[1] then
    kept[i] = redis.call('pexpire', key, ARGV[2])
  else
    kept[i] = 0
  end
end
return kept
"""
_CLAIM = """
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return ARGV[1]
end
return redis.call('get', KEYS[1])
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""

RENEW_BATCH = 500  # leases renewed per script call, claimed per pipeline

RECONNECT_FIRST = 0.1  # seconds before the first attempt to subscribe again; doubles after each
RECONNECT_MAX = 1.0  # at most this long between attempts, so a node is back within a second

Handler = Callable[[dict[str, Any]], Awaitable[None]]
Notice = Callable[[], Awaitable[None]]


class BusUnavailable(GapleError):
    """Redis cannot be reached (or this node has not subscribed again since it came back)."""

    code = "unavailable"

    def __init__(self, message: str = "the cluster is unreachable; try again in a moment") -> None:
        super().__init__(None, message)


@contextlib.asynccontextmanager
async def _reaching_redis() -> AsyncIterator[None]:
    try:
        yield
    except BusUnavailable:
        raise
    except Exception as exc:  # redis-py's ConnectionError, TimeoutError, OSError ...
        raise BusUnavailable() from exc


class RedisBus:
    def __init__(self, redis: Redis, *, prefix: str, node_id: str, lease_ttl: float) -> None:
        self.redis = redis
        self.prefix = prefix
        self.node_id = node_id
        self.lease_ms = int(lease_ttl * 1000)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._claim = redis.register_script(_CLAIM)
        # Tables that open together (a tournament's round, relays after a restart) claim their
        # leases in one pipeline and look up owners in one MGET, not one connection each.
        self._claims: BatchedLoad[str, str] = BatchedLoad(self._claim_all, max_batch=RENEW_BATCH)
        self._lookups: BatchedLoad[str, str] = BatchedLoad(self._owners_of, max_batch=RENEW_BATCH)
        self._outbox: asyncio.Queue[tuple[str, dict[str, Any]] | None] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self.connected = False  # subscribed to this node's channels, listening
        self.outages = 0  # times the listener lost Redis

    # --- leases -----------------------------------------------------------------------------------

    def _lease(self, room_id: str) -> str:
        return f"{self.prefix}lease:{room_id}"

    async def claim(self, room_id: str) -> str:
        """Take the room's lease if it is free; the owner's id after that (maybe ours).

        Setting and reading the lease is one script, so the answer is never "nobody"."""
        async with _reaching_redis():
            owner = await self._claims.load(room_id)
        if owner is None:  # the script always returns an owner
            raise RuntimeError(f"no owner settled for room {room_id}")
        return owner

    async def _claim_all(self, room_ids: list[str]) -> dict[str, str]:
        async with _reaching_redis(), self.redis.pipeline(transaction=False) as pipe:
            for room_id in room_ids:
                await self._claim(
                    keys=[self._lease(room_id)], args=[self.node_id, self.lease_ms], client=pipe
                )
            owners = [_text(owner) for owner in await pipe.execute()]
        return {room: owner for room, owner in zip(room_ids, owners, strict=True) if owner}

    async def renew_all(self, room_ids: list[str]) -> list[bool]:
        """Renew many leases, one script call per ``RENEW_BATCH``: which are still ours.

        One round trip each would take longer than the lease itself for a node running
        hundreds of tables on a busy event loop, and its leases would lapse while it renews.
        A pipeline of one call per lease still cost the client 13-34 µs a lease (thousands of
        tables per node let leases lapse); one call for the batch costs about 2 µs a lease.
        Under Redis Cluster a call's keys must share a slot: the batches would be grouped by
        the slot of each lease key."""
        kept: list[bool] = []
        async with _reaching_redis():
            for i in range(0, len(room_ids), RENEW_BATCH):
                keys = [self._lease(room_id) for room_id in room_ids[i : i + RENEW_BATCH]]
                results = await self._renew(keys=keys, args=[self.node_id, self.lease_ms])
                kept.extend(bool(result) for result in results)
        return kept

    async def release(self, room_id: str) -> None:
        await self._release(keys=[self._lease(room_id)], args=[self.node_id])

    async def owner(self, room_id: str) -> str | None:
        async with _reaching_redis():
            return await self._lookups.load(room_id)

    async def _owners_of(self, room_ids: list[str]) -> dict[str, str]:
        owners = await self.owners(room_ids)
        return {room_id: owner for room_id, owner in zip(room_ids, owners, strict=True) if owner}

    async def owners(self, room_ids: list[str]) -> list[str | None]:
        if not room_ids:
            return []
        async with _reaching_redis():
            values = await self.redis.mget([self._lease(r) for r in room_ids])
        return [_text(v) for v in values]

    # --- shared counters ---------------------------------------------------------------------

    # How many watch each watched table, for every node's lobby: one hash, a field per watched
    # table, written by the table's owner at each check. A field says until when it holds (four
    # leases), so the count of a node that died is not believed for long.

    async def publish_spectators(self, counts: dict[str, int], *, gone: list[str]) -> None:
        """Our watched tables' counts now, and the tables we published before that nobody
        watches any more (or that left this node)."""
        if not counts and not gone:
            return
        key = f"{self.prefix}spectators"
        until = int(time.time() * 1000) + self.lease_ms * 4
        async with _reaching_redis(), self.redis.pipeline(transaction=False) as pipe:
            if gone:
                pipe.hdel(key, *gone)
            if counts:
                pipe.hset(key, mapping={room: f"{n} {until}" for room, n in counts.items()})
            pipe.pexpire(key, self.lease_ms * 4)
            await pipe.execute()

    async def spectators_of(self, room_ids: list[str]) -> dict[str, int]:
        """The counts of those of the rooms somebody watches (one HMGET)."""
        if not room_ids:
            return {}
        async with _reaching_redis():
            values = await self.redis.hmget(f"{self.prefix}spectators", room_ids)
        now = int(time.time() * 1000)
        counts = {}
        for room_id, value in zip(room_ids, values, strict=True):
            if value is not None:
                n, until = value.split()
                if int(until) > now:
                    counts[room_id] = int(n)
        return counts

    # --- presence (app/rooms/hub.py) ----------------------------------------------------------

    def _presence(self, player_id: str) -> str:
        return f"{self.prefix}presence:{player_id}"

    async def put_presence(self, entries: dict[str, str | None], keep_ms: int) -> None:
        """This node's entry for each player (None: none any more); a player's key lapses
        ``keep_ms`` after its last write, so a dead node's entries go with it."""
        if not entries:
            return
        async with _reaching_redis(), self.redis.pipeline(transaction=False) as pipe:
            for player_id, entry in entries.items():
                key = self._presence(player_id)
                if entry is None:
                    pipe.hdel(key, self.node_id)
                else:
                    pipe.hset(key, self.node_id, entry)
                    pipe.pexpire(key, keep_ms)
            await pipe.execute()

    async def presence(self, player_ids: list[str]) -> list[list[str]]:
        """Every node's entry for each player."""
        if not player_ids:
            return []
        async with _reaching_redis(), self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hvals(self._presence(player_id))
            found = await pipe.execute()
        return [[str(_text(v)) for v in values] for values in found]

    # --- node channels --------------------------------------------------------------------------

    def _channel(self, node_id: str) -> str:
        return f"{self.prefix}node:{node_id}"

    @property
    def _everyone(self) -> str:
        return f"{self.prefix}nodes"

    def send(self, node_id: str, message: dict[str, Any]) -> None:
        """Queue a message for another node; one publisher task keeps them in order."""
        self._outbox.put_nowait((self._channel(node_id), message))

    def broadcast(self, message: dict[str, Any]) -> None:
        """Queue a message for every node that listens, this one included (in order with
        ``send``'s)."""
        self._outbox.put_nowait((self._everyone, message))

    async def start(
        self, handler: Handler, *, on_lost: Notice | None = None, on_back: Notice | None = None
    ) -> None:
        """Subscribe (raises when Redis is unreachable) and listen from then on, through
        outages: ``on_lost`` / ``on_back`` are awaited when Redis goes away / is back."""
        pubsub = await self._subscribe()
        self.connected = True
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._listen(pubsub, handler, on_lost, on_back), name="bus-listen"),
            loop.create_task(self._publish(), name="bus-publish"),
        ]

    async def _subscribe(self) -> Any:
        pubsub: Any = self.redis.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(self._channel(self.node_id), self._everyone)
        except BaseException:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            raise
        return pubsub

    async def _listen(
        self, pubsub: Any, handler: Handler, on_lost: Notice | None, on_back: Notice | None
    ) -> None:
        try:
            while True:
                try:
                    message = await pubsub.get_message(timeout=1.0)
                except Exception as exc:
                    pubsub = await self._reconnect(pubsub, exc, on_lost, on_back)
                    continue
                if message is None:
                    continue
                payload = orjson.loads(message["data"])
                # A batch (see _publish); a lone object is what a node of an older version sends.
                for item in payload if isinstance(payload, list) else [payload]:
                    try:
                        await handler(item)
                    except Exception:
                        log.exception("bus: handling a message failed")
        finally:
            self.connected = False
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    async def _reconnect(
        self, pubsub: Any, error: Exception, on_lost: Notice | None, on_back: Notice | None
    ) -> Any:
        """Redis went away under the listener: say so, then subscribe again with backoff (for
        as long as the node runs: cancelling the listener ends it)."""
        self.connected = False
        self.outages += 1
        log.warning("bus: lost Redis (%s); reconnecting", error or type(error).__name__)
        with contextlib.suppress(Exception):
            await pubsub.aclose()
        if on_lost is not None:
            await _notify(on_lost, "lost")
        delay = RECONNECT_FIRST
        attempts = 0
        while True:
            await asyncio.sleep(delay)
            attempts += 1
            try:
                pubsub = await self._subscribe()
            except Exception:
                delay = min(delay * 2, RECONNECT_MAX)
                continue
            break
        self.connected = True
        log.info("bus: Redis is back after %d attempts; subscribed again", attempts)
        if on_back is not None:
            await _notify(on_back, "back")
        return pubsub

    async def _publish(self) -> None:
        """Publish what has queued up meanwhile: one message per node with all of its items in
        order, all nodes in one round trip. A move fans out to several sockets on a node; this
        makes it one PUBLISH instead of one per frame."""
        outbox = self._outbox
        while True:
            items = [await outbox.get()]
            while not outbox.empty():
                items.append(outbox.get_nowait())
            batches: dict[str, list[dict[str, Any]]] = {}
            stop = False
            for item in items:
                if item is None:  # close(): what was queued before it still goes out
                    stop = True
                    break
                channel, message = item
                batches.setdefault(channel, []).append(message)
            if batches:
                try:
                    async with self.redis.pipeline(transaction=False) as pipe:
                        for channel, messages in batches.items():
                            pipe.publish(channel, orjson.dumps(messages))
                        await pipe.execute()
                except Exception as exc:  # one line: an outage fails every batch until it ends
                    log.warning(
                        "bus: publishing %d messages failed (%s)",
                        sum(len(m) for m in batches.values()),
                        exc or type(exc).__name__,
                    )
            if stop:
                return

    async def close(self) -> None:
        self._outbox.put_nowait(None)  # flush what is queued, then stop
        publisher = self._tasks[1] if len(self._tasks) > 1 else None
        if publisher is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(publisher, 5)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        await self.redis.aclose()


async def _notify(notice: Notice, what: str) -> None:
    try:
        await notice()
    except Exception:
        log.exception("bus: handling Redis being %s failed", what)


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value
