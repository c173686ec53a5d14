"""One client socket as the room actor sees it: an identity and a bounded outbox.

The actor never awaits a socket. It drops frames into the connection's queue; a writer task per
socket drains it. A client that falls too far behind (a phone in a tunnel) is disconnected instead
of stalling the table, and resyncs from a snapshot when it comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from app.ws.messages import dumps

log = logging.getLogger(__name__)

_ids = itertools.count(1)

CLOSE_SLOW_CONSUMER = 1013
CLOSE_RECONNECT = 1012  # "service restart": the client should reconnect (to any node)


@dataclass(eq=False)
class Connection:
    send_text: Callable[[str], Awaitable[None]]
    close: Callable[[int, str], Awaitable[None]]
    queue_size: int = 256
    player_id: str | None = None
    seat: int | None = None
    id: int = field(default_factory=lambda: next(_ids))
    closed: bool = False
    _queue: asyncio.Queue[str | None] = field(init=False)
    _writer: asyncio.Task[None] | None = field(default=None, init=False)
    _close: tuple[int, str] = field(default=(1000, ""), init=False)

    def __post_init__(self) -> None:
        self._queue = asyncio.Queue(maxsize=self.queue_size)

    @property
    def is_spectator(self) -> bool:
        return self.seat is None

    @property
    def pending(self) -> int:
        """Frames queued but not yet written."""
        return self._queue.qsize()

    def start(self) -> None:
        self._writer = asyncio.get_running_loop().create_task(self._write_loop())

    def send(self, frame: str) -> None:
        """Queue a frame; never blocks. A full queue means the client cannot keep up."""
        if self.closed:
            return
        try:
            self._queue.put_nowait(frame)
        except asyncio.QueueFull:
            log.info("connection %s too slow; dropping it", self.id)
            self.shutdown(CLOSE_SLOW_CONSUMER, "slow_consumer")

    def send_away(self, reason: str) -> None:
        """Tell the client why (a ``bye``), then close so that it reconnects: the table moved to
        another node, or this node is draining."""
        self.send(dumps({"type": "bye", "reason": reason}))
        self.shutdown(CLOSE_RECONNECT, reason)

    def shutdown(self, code: int = 1000, reason: str = "") -> None:
        """Stop sending and close the socket from the writer task (after what is queued)."""
        if self.closed:
            return
        self.closed = True
        self._close = (code, reason)
        # Make room for the sentinel even when the queue is full: the client is gone anyway.
        if self._queue.full():
            with contextlib.suppress(asyncio.QueueEmpty):
                while True:
                    self._queue.get_nowait()
        self._queue.put_nowait(None)

    async def _write_loop(self) -> None:
        try:
            while True:
                frame = await self._queue.get()
                if frame is None:
                    break
                await self.send_text(frame)
        except Exception:  # the peer went away mid-send; the reader side notices too
            log.debug("connection %s writer stopped", self.id, exc_info=True)
            self.closed = True
            return
        code, reason = self._close
        with contextlib.suppress(Exception):
            await self.close(code, reason)

    async def wait_closed(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer

    def cancel(self) -> None:
        self.closed = True
        if self._writer is not None:
            self._writer.cancel()
