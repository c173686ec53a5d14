"""One client socket as the room actor sees it: an identity and a bounded outbox.

The actor never awaits a socket. It drops frames into the connection's outbox; a writer task
drains it. A client that falls too far behind (a phone in a tunnel) is disconnected instead of
stalling the table, and resyncs from a snapshot when it comes back.

The writer task exists only while there is something to write, and so does the outbox itself: most
sockets of a table wait for a human most of the time, and a parked task or an empty queue per
socket is memory for nothing. The frames the actor queues for one move (events, then the
snapshot) are written by one wake-up of the writer.

When the transport can take framed bytes at once (``write_now``: app/ws/transport.py under
``gaple serve``) and nothing is queued, a frame is written there and then, with no task and no
trip through ASGI; the outbox and its writer are for a socket whose buffer is full, and for
servers that do not offer it (tests through ASGI).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from app.rooms import frames
from app.rooms.protocol import CLOSE_RECONNECT, CLOSE_TRY_AGAIN, ByeReason
from app.wire import Write, text_frame

log = logging.getLogger(__name__)

_ids = itertools.count(1)


class Link(Protocol):
    """Another node's channel, which the sockets a table hosts for that node share
    (app/rooms/cluster.py). What goes through it is published at once, in order; the node at the
    other end keeps each socket's bounded outbox."""

    def frames(self, keys: list[str], text: str) -> None:
        """``text`` to each of these sockets (one message for them all)."""
        ...

    def close(self, key: str, code: int, reason: str) -> None: ...


async def _through_link(*_: object) -> None:
    raise AssertionError("a relayed socket is written through its link")


@dataclass(eq=False, slots=True)
class Connection:
    send_text: Callable[[str], Awaitable[None]]
    close: Callable[[int, str], Awaitable[None]]
    queue_size: int = 256
    player_id: str | None = None
    seat: int | None = None
    name: str | None = None  # the player's, for signing a spectator's chat
    id: int = field(default_factory=lambda: next(_ids))
    closed: bool = False
    # A socket on another node (``relayed``): its frames go through ``link``, named ``key``.
    link: Link | None = None
    key: str = ""
    write_now: Write | None = None  # the transport's, when it offers one
    _outbox: deque[str] | None = field(default=None, init=False)  # made when a frame waits
    _writer: asyncio.Task[None] | None = field(default=None, init=False)
    _close: tuple[int, str] | None = field(default=None, init=False)

    @classmethod
    def relayed(
        cls, link: Link, key: str, *, player_id: str | None, name: str | None
    ) -> Connection:
        """A socket on another node, written through ``link`` with no outbox here."""
        return cls(_through_link, _through_link, player_id=player_id, name=name, link=link, key=key)

    @property
    def is_spectator(self) -> bool:
        return self.seat is None

    @property
    def pending(self) -> int:
        """Frames queued but not yet written."""
        return len(self._outbox or ())

    def send(self, frame: str) -> None:
        """Write a frame now, or queue it; never blocks. A full outbox means the client cannot
        keep up."""
        self.send_all((frame,))

    def send_all(self, sent: Sequence[str], framed: bytes | None = None) -> None:
        """The frames ``sent``, in order, as ``send`` sends one (``framed``: the same frames
        already framed, when several sockets get them)."""
        if (
            self.write_now is not None
            and self._writer is None
            and not self._outbox
            and not self.closed
            and self.write_now(b"".join(map(text_frame, sent)) if framed is None else framed)
        ):
            return
        wake = False
        for frame in sent:
            wake = self._queue(frame) or wake
        if wake:
            self._wake()

    def _flush(self, framed: Callable[[str], bytes]) -> None:
        """Write what is queued now if the transport takes it (``framed`` frames each text),
        else start the writer."""
        if (
            self._writer is None
            and self._outbox
            and self.write_now is not None
            and self.write_now(b"".join(map(framed, self._outbox)))
        ):
            self._outbox = None
            return
        self._wake()

    def _queue(self, frame: str) -> bool:
        """Queue a frame without starting the writer: whether one is to be started."""
        if self.closed:
            return False
        if self.link is not None:
            self.link.frames([self.key], frame)
            return False
        if self._outbox is None:
            self._outbox = deque()
        elif len(self._outbox) >= self.queue_size:
            log.info("connection %s too slow; dropping it", self.id)
            self.shutdown(CLOSE_TRY_AGAIN, "slow_consumer")
            return False
        self._outbox.append(frame)
        return True

    def send_away(self, reason: ByeReason, code: int = CLOSE_RECONNECT) -> None:
        """Tell the client why (a ``bye``), then close so that it reconnects: the table moved to
        another node, or this node is draining."""
        self.send(frames.bye(reason))
        self.shutdown(code, reason)

    def shutdown(self, code: int = 1000, reason: str = "") -> None:
        """Stop sending and close the socket from the writer (after what is queued)."""
        if self.closed:
            return
        self.closed = True
        if self.link is not None:
            self.link.close(self.key, code, reason)
            return
        self._close = (code, reason)
        if self.pending >= self.queue_size:
            self._outbox = None  # a client that is being dropped for lagging gets no backlog
        self._wake()

    def _wake(self) -> None:
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        try:
            while self._outbox:
                await self.send_text(self._outbox.popleft())
            if self._close is not None:
                with contextlib.suppress(Exception):
                    await self.close(*self._close)
        except Exception:  # the peer went away mid-send; the reader side notices too
            log.debug("connection %s writer stopped", self.id, exc_info=True)
            self.closed = True
        finally:
            if self.closed or not self._outbox:
                self._outbox = None  # an idle socket keeps no queue
            if not self.closed:
                self._writer = None  # idle: the next frame starts a writer again

    async def wait_closed(self) -> None:
        """Wait until what was queued before ``shutdown`` is written and the socket closed."""
        if self._writer is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer

    def cancel(self) -> None:
        self.closed = True
        if self._writer is not None:
            self._writer.cancel()


WAKE_BATCH = 64  # sockets a fan-out writes (or starts the writers of) per turn of the loop
HOLD_AT_MOST = 0.05  # seconds a table's own work holds its fan-out back, at most


class FanOut:
    """A table's fan-outs to many sockets of this node (a watched final's spectators). The
    frames are queued at once, in order, and framed once; ``WAKE_BATCH`` sockets are written
    per turn of the event loop (or their writers started, when the transport cannot take them
    now), and not while the table has work of its own in hand (``hold`` ... ``release``: the
    players' next move, its commit), for ``HOLD_AT_MOST`` at most. A move watched by thousands
    is thousands of socket writes: started all at once, they would hold the loop for the whole
    fan-out, and the players' next move would wait behind it. A socket that is sent something
    directly meanwhile starts its writer then (its outbox is not empty)."""

    __slots__ = ("_framed", "_held", "_later", "_pending", "_soon")

    def __init__(self) -> None:
        self._pending: deque[Connection] = deque()
        self._framed: dict[str, bytes] = {}  # the pending fan-outs' frames, framed once
        self._held = False
        self._soon: asyncio.Handle | None = None  # the next batch, this turn or the next
        self._later: asyncio.TimerHandle | None = None  # the next batch, though held

    @property
    def pending(self) -> int:
        """Sockets whose writer is yet to start."""
        return len(self._pending)

    def send(self, conns: Sequence[Connection], sent: Sequence[str]) -> None:
        """``sent`` to each of ``conns``."""
        for frame in sent:
            if frame not in self._framed:
                self._framed[frame] = text_frame(frame)
        for conn in conns:
            queued = False
            for frame in sent:
                queued = conn._queue(frame) or queued
            if queued:
                self._pending.append(conn)
        self._schedule()

    def _frame(self, text: str) -> bytes:
        # (a frame sent to the socket apart from the fan-out is framed on its own)
        return self._framed.get(text) or text_frame(text)

    def hold(self) -> None:
        self._held = True

    def release(self) -> None:
        self._held = False
        self._schedule()

    def _schedule(self) -> None:
        if not self._pending or self._soon is not None:
            return
        loop = asyncio.get_running_loop()
        if not self._held:
            if self._later is not None:
                self._later.cancel()
                self._later = None
            self._soon = loop.call_soon(self._step)
        elif self._later is None:
            self._later = loop.call_later(HOLD_AT_MOST, self._step)

    def _step(self) -> None:
        self._soon = self._later = None
        pending = self._pending
        for _ in range(min(WAKE_BATCH, len(pending))):
            conn = pending.popleft()
            if not conn.closed:  # (a closed one's writer was started when it closed)
                conn._flush(self._frame)
        if not pending:
            self._framed.clear()
        self._schedule()
