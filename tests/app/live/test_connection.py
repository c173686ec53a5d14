"""A socket's outbox: bounded, so one slow client cannot stall its table."""

from __future__ import annotations

import asyncio

from app.rooms.connection import HOLD_AT_MOST, WAKE_BATCH, Connection, FanOut
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


async def test_a_fan_out_to_thousands_lets_the_loop_breathe_between_batches() -> None:
    """FanOut queues every frame at once and starts the writers WAKE_BATCH per turn of the
    loop: something that came in meanwhile (a player's next move) runs before the fan-out is
    over. While the table holds it (its own work in hand) no writer starts, for HOLD_AT_MOST
    at most. Each socket still gets its frames in order, and a slow one is dropped."""
    written: dict[int, list[str]] = {}
    order: list[str] = []

    def make(queue_size: int = 8) -> Connection:
        async def send_text(frame: str) -> None:
            written.setdefault(conn.id, []).append(frame)
            order.append("write")

        async def close(code: int, reason: str) -> None:
            pass

        conn = Connection(send_text=send_text, close=close, queue_size=queue_size)
        return conn

    async def turns(n: int) -> None:
        for _ in range(n):
            await asyncio.sleep(0)

    crowd = [make() for _ in range(5 * WAKE_BATCH)]
    lagging = make(queue_size=1)
    crowd.append(lagging)
    fan_out = FanOut()
    fan_out.send(crowd, ["event", "snapshot"])
    assert lagging.closed  # two frames do not fit its outbox
    asyncio.get_running_loop().call_soon(order.append, "a player's move")
    crowd[-2].send("chat")  # sent to directly meanwhile: its writer starts now
    await turns(3)
    # It waits for one batch's writes (two frames each), not for those of the whole fan-out.
    assert order.index("a player's move") <= 2 * WAKE_BATCH
    assert 0 < fan_out.pending < len(crowd) - WAKE_BATCH

    fan_out.hold()  # the table has a move in hand
    await turns(1)
    held = fan_out.pending
    await turns(20)
    assert fan_out.pending == held
    fan_out.release()
    await turns(50)
    assert fan_out.pending == 0
    assert all(written[c.id] == ["event", "snapshot"] for c in crowd[:-2])
    assert written[crowd[-2].id] == ["event", "snapshot", "chat"]
    assert lagging.id not in written and all(c.pending == 0 for c in crowd)

    fan_out.hold()  # held for long: the spectators are not starved
    fan_out.send(crowd[:-1], ["late"])
    await asyncio.sleep(HOLD_AT_MOST * 2)
    assert fan_out.pending < len(crowd) - 1
