"""Many callers, one trip to the database: writes that share a transaction, reads that share
a query.

* ``GroupCommit``: each table's actor waits for its own move to be durable before it broadcasts
  it, so a table has at most one move in flight; across many tables, moves that arrive while a
  commit is running are written together in the next one. With nothing queued a move is
  committed at once: batching adds no latency, it only saves commits (one fsync for SQLite, one
  round trip for PostgreSQL) under load.
* ``BatchedLoad``: the same for reads by key. Tables that open together (a tournament's round,
  the tables restored after a restart) ask for their rooms in the same turn of the event loop;
  one query answers them all. A load asked for while a query runs waits for the next one, so
  every answer is read after it was asked for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Generic, TypeVar

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")

Commit = Callable[[list[T]], Awaitable[list[BaseException | None]]]


class GroupCommit(Generic[T]):
    def __init__(self, commit: Commit[T], *, max_batch: int = 256) -> None:
        self._commit = commit
        self._max_batch = max_batch
        self._queue: list[tuple[T, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def submit(self, item: T) -> None:
        """Return once ``item`` is committed; raise what its commit raised."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append((item, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write())
        await future

    async def _write(self) -> None:
        while self._queue:
            batch = self._queue[: self._max_batch]
            del self._queue[: self._max_batch]
            try:
                outcomes = await self._commit([item for item, _ in batch])
            except BaseException as exc:  # the whole transaction failed: every item failed
                outcomes = [exc] * len(batch)
                if isinstance(exc, asyncio.CancelledError):
                    for _, future in batch + self._queue:
                        if not future.done():
                            future.cancel()
                    raise
            for (_, future), outcome in zip(batch, outcomes, strict=True):
                if future.done():
                    continue
                if outcome is None:
                    future.set_result(None)
                else:
                    future.set_exception(outcome)


Fetch = Callable[[list[K]], Awaitable[Mapping[K, V]]]


class BatchedLoad(Generic[K, V]):
    def __init__(self, fetch: Fetch[K, V], *, max_batch: int = 256) -> None:
        self._fetch = fetch
        self._max_batch = max_batch
        self._queue: list[tuple[K, asyncio.Future[V | None]]] = []
        self._reader: asyncio.Task[None] | None = None

    async def load(self, key: K) -> V | None:
        """What ``fetch`` found for ``key`` (None: nothing); raise what the fetch raised."""
        future: asyncio.Future[V | None] = asyncio.get_running_loop().create_future()
        self._queue.append((key, future))
        if self._reader is None or self._reader.done():
            self._reader = asyncio.get_running_loop().create_task(self._read())
        return await future

    async def _read(self) -> None:
        while self._queue:
            batch = self._queue[: self._max_batch]
            del self._queue[: self._max_batch]
            try:
                found = await self._fetch(list(dict.fromkeys(key for key, _ in batch)))
            except asyncio.CancelledError:
                for _, future in batch + self._queue:
                    if not future.done():
                        future.cancel()
                raise
            except Exception as exc:  # the query failed: every load of it failed
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for key, future in batch:
                if not future.done():
                    future.set_result(found.get(key))
