"""Redis primitives for several nodes: table leases and one message channel per node.

A lease is a key holding the owner node's id with a short expiry. Only the owner renews or
releases it (checked atomically in Lua), so a node that was paused past its lease cannot take it
back from the node that took over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:  # redis-py is imported only by nodes that are configured to use it
    from redis.asyncio import Redis

log = logging.getLogger(__name__)

_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""

RENEW_BATCH = 500  # leases renewed per pipeline

Handler = Callable[[dict[str, Any]], Awaitable[None]]


class RedisBus:
    def __init__(self, redis: Redis, *, prefix: str, node_id: str, lease_ttl: float) -> None:
        self.redis = redis
        self.prefix = prefix
        self.node_id = node_id
        self.lease_ms = int(lease_ttl * 1000)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._outbox: asyncio.Queue[tuple[str, dict[str, Any]] | None] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []

    # --- leases -----------------------------------------------------------------------------------

    def _lease(self, room_id: str) -> str:
        return f"{self.prefix}lease:{room_id}"

    async def acquire(self, room_id: str) -> bool:
        return bool(
            await self.redis.set(self._lease(room_id), self.node_id, nx=True, px=self.lease_ms)
        )

    async def renew_all(self, room_ids: list[str]) -> list[bool]:
        """Renew many leases in one round trip per ``RENEW_BATCH``: which are still ours.

        One round trip each would take longer than the lease itself for a node running
        hundreds of tables on a busy event loop, and its leases would lapse while it renews."""
        kept: list[bool] = []
        for i in range(0, len(room_ids), RENEW_BATCH):
            async with self.redis.pipeline(transaction=False) as pipe:
                for room_id in room_ids[i : i + RENEW_BATCH]:
                    await self._renew(
                        keys=[self._lease(room_id)], args=[self.node_id, self.lease_ms], client=pipe
                    )
                kept.extend(bool(result) for result in await pipe.execute())
        return kept

    async def release(self, room_id: str) -> None:
        await self._release(keys=[self._lease(room_id)], args=[self.node_id])

    async def owner(self, room_id: str) -> str | None:
        return _text(await self.redis.get(self._lease(room_id)))

    async def owners(self, room_ids: list[str]) -> list[str | None]:
        if not room_ids:
            return []
        values = await self.redis.mget([self._lease(r) for r in room_ids])
        return [_text(v) for v in values]

    # --- shared counters ---------------------------------------------------------------------

    async def publish_spectators(self, counts: dict[str, int]) -> None:
        if counts:
            key = f"{self.prefix}spectators"
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hset(key, mapping={k: str(v) for k, v in counts.items()})
                pipe.pexpire(key, self.lease_ms * 4)
                await pipe.execute()

    async def spectators(self) -> dict[str, int]:
        raw = await self.redis.hgetall(f"{self.prefix}spectators")
        return {str(_text(k)): int(v) for k, v in raw.items()}

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

    async def start(self, handler: Handler) -> None:
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(self._channel(self.node_id), self._everyone)
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._listen(pubsub, handler), name="bus-listen"),
            loop.create_task(self._publish(), name="bus-publish"),
        ]

    async def _listen(self, pubsub: Any, handler: Handler) -> None:
        try:
            while True:
                message = await pubsub.get_message(timeout=1.0)
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
            with contextlib.suppress(Exception):
                await pubsub.aclose()

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
                except Exception:
                    log.exception("bus: publish to %s failed", ", ".join(batches))
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


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value
