"""A socket's outbox: bounded, so one slow client cannot stall its table."""

from __future__ import annotations

import asyncio

from app.rooms.connection import Connection
from app.rooms.protocol import CLOSE_TRY_AGAIN


async def test_a_client_that_cannot_keep_up_is_dropped_not_waited_for() -> None:
    release = asyncio.Event()
    written: list[str] = []
    closed: list[tuple[int, str]] = []

    async def send_text(frame: str) -> None:
        await release.wait()  # the peer does not read
        written.append(frame)

    async def close(code: int, reason: str) -> None:
        closed.append((code, reason))

    conn = Connection(send_text=send_text, close=close, queue_size=8)
    for i in range(8 + 2):
        conn.send(f"frame {i}")  # never blocks the caller
    assert conn.closed
    release.set()
    await asyncio.wait_for(conn.wait_closed(), 2)
    assert closed == [(CLOSE_TRY_AGAIN, "slow_consumer")]
    assert len(written) <= 1  # what was queued for a client that is being dropped is discarded


async def test_frames_go_out_in_order_and_the_close_comes_last() -> None:
    written: list[str] = []
    closed: list[tuple[int, str]] = []

    async def send_text(frame: str) -> None:
        written.append(frame)

    async def close(code: int, reason: str) -> None:
        closed.append((code, reason))

    conn = Connection(send_text=send_text, close=close, queue_size=8)
    for i in range(5):
        conn.send(str(i))
    conn.shutdown(1012, "draining")
    conn.send("late")
    await asyncio.wait_for(conn.wait_closed(), 2)
    assert written == ["0", "1", "2", "3", "4"]
    assert closed == [(1012, "draining")]


async def test_an_idle_socket_holds_no_writer_task_and_wakes_up_on_the_next_frame() -> None:
    written: list[str] = []

    async def send_text(frame: str) -> None:
        written.append(frame)

    closed: list[tuple[int, str]] = []

    async def close(code: int, reason: str) -> None:
        closed.append((code, reason))

    tasks_before = len(asyncio.all_tasks())
    conn = Connection(send_text=send_text, close=close, queue_size=8)
    assert len(asyncio.all_tasks()) == tasks_before  # nothing to write, nothing running
    for round_ in range(3):
        conn.send(f"event {round_}")
        conn.send(f"snapshot {round_}")
        assert len(asyncio.all_tasks()) == tasks_before + 1  # one writer for the whole batch
        for _ in range(5):
            await asyncio.sleep(0)
        assert conn.pending == 0
        assert len(asyncio.all_tasks()) == tasks_before  # the writer is gone again
    assert written == [f"{kind} {i}" for i in range(3) for kind in ("event", "snapshot")]
    assert closed == [] and not conn.closed


async def test_a_peer_that_went_away_stops_the_writer_and_further_sends() -> None:
    attempts: list[str] = []

    async def send_text(frame: str) -> None:
        attempts.append(frame)
        raise ConnectionError("gone")

    closed: list[tuple[int, str]] = []

    async def close(code: int, reason: str) -> None:
        closed.append((code, reason))

    conn = Connection(send_text=send_text, close=close, queue_size=8)
    conn.send("a")
    conn.send("b")
    await asyncio.wait_for(conn.wait_closed(), 2)
    assert conn.closed and conn.pending == 0
    conn.send("c")
    await asyncio.sleep(0)
    assert attempts == ["a"]
    assert closed == []  # the socket is gone: nothing to close
