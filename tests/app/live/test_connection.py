"""A socket's outbox: bounded, so one slow client cannot stall its table."""

from __future__ import annotations

import asyncio

from websockets.client import ClientProtocol
from websockets.protocol import State
from websockets.uri import parse_uri

from app.rooms.connection import HOLD_AT_MOST, WAKE_BATCH, Connection, FanOut
from app.rooms.protocol import CLOSE_TRY_AGAIN
from app.wire import text_frame


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


async def test_an_idle_socket_holds_no_writer_nor_queue_and_wakes_on_the_next_frame() -> None:
    written: list[str] = []

    async def send_text(frame: str) -> None:
        written.append(frame)

    closed: list[tuple[int, str]] = []

    async def close(code: int, reason: str) -> None:
        closed.append((code, reason))

    tasks_before = len(asyncio.all_tasks())
    conn = Connection(send_text=send_text, close=close, queue_size=8)
    assert len(asyncio.all_tasks()) == tasks_before  # nothing to write, nothing running
    assert conn._outbox is None  # nor a queue (a deque is 624 bytes, a socket's thousands)
    for round_ in range(3):
        conn.send(f"event {round_}")
        conn.send(f"snapshot {round_}")
        assert len(asyncio.all_tasks()) == tasks_before + 1  # one writer for the whole batch
        for _ in range(5):
            await asyncio.sleep(0)
        assert conn.pending == 0
        assert len(asyncio.all_tasks()) == tasks_before  # the writer is gone again
        assert conn._outbox is None  # and its queue
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


def read_frames(data: bytes) -> list[tuple[str, bool, str]]:
    """What a WebSocket client (the websockets library's, sans I/O) reads from ``data``."""
    client = ClientProtocol(parse_uri("ws://127.0.0.1/"), state=State.OPEN)
    client.receive_data(data)
    assert client.state is State.OPEN, client.parser_exc  # no protocol error
    return [(f.opcode.name, f.fin, bytes(f.data).decode()) for f in client.events_received()]


def test_a_text_frame_is_what_a_websocket_client_reads_at_every_length() -> None:
    for text in ("", "é" * 62, "x" * 125, "x" * 126, "ü" * 40_000, "x" * 65_536):
        assert read_frames(text_frame(text)) == [("TEXT", True, text)]
    assert read_frames(text_frame("a") + text_frame("b")) == [
        ("TEXT", True, "a"),
        ("TEXT", True, "b"),
    ]


async def test_a_transport_that_takes_frames_now_is_written_without_a_task_and_in_order() -> None:
    """While the transport takes framed bytes at once, a frame costs no task and no trip
    through ASGI. When it declines (its buffer is full), frames queue for the writer, and a
    frame sent meanwhile waits behind them rather than overtaking them on the socket."""
    wire: list[bytes] = []  # what reached the socket, in order, through either way
    takes = True
    release = asyncio.Event()

    def write_now(data: bytes) -> bool:
        if takes:
            wire.append(data)
        return takes

    async def send_text(frame: str) -> None:
        await release.wait()  # the buffer drains, slowly
        wire.append(text_frame(frame))

    async def close(code: int, reason: str) -> None:
        pass

    conn = Connection(send_text=send_text, close=close, queue_size=8, write_now=write_now)
    tasks = len(asyncio.all_tasks())
    conn.send("event 1")
    conn.send("snapshot 1")
    assert len(asyncio.all_tasks()) == tasks and conn.pending == 0
    takes = False  # the buffer is above its high-water mark
    conn.send("event 2")
    takes = True  # room again, but "event 2" is still queued: the next frame waits behind it
    conn.send("snapshot 2")
    assert conn.pending == 2 and len(asyncio.all_tasks()) == tasks + 1
    release.set()
    for _ in range(5):
        await asyncio.sleep(0)
    assert conn.pending == 0 and len(asyncio.all_tasks()) == tasks
    conn.send("event 3")  # idle again: at once
    texts = [text for data in wire for _, _, text in read_frames(data)]
    assert texts == ["event 1", "snapshot 1", "event 2", "snapshot 2", "event 3"]


async def test_a_fan_out_writes_the_same_framed_bytes_to_every_socket_that_takes_them() -> None:
    wire: dict[int, list[bytes]] = {}
    through_asgi: list[str] = []

    def make(takes: bool) -> Connection:
        def write_now(data: bytes) -> bool:
            if takes:
                wire.setdefault(conn.id, []).append(data)
            return takes

        async def send_text(frame: str) -> None:
            through_asgi.append(frame)

        async def close(code: int, reason: str) -> None:
            pass

        conn = Connection(send_text=send_text, close=close, write_now=write_now)
        return conn

    crowd = [make(takes=True) for _ in range(3 * WAKE_BATCH)]
    full = make(takes=False)  # its buffer is full: it goes through its writer
    fan_out = FanOut()
    fan_out.send([*crowd, full], ["event", "snapshot"])
    for _ in range(10):
        await asyncio.sleep(0)
    assert fan_out.pending == 0
    sent = {b"".join(wire[c.id]) for c in crowd}
    assert len(sent) == 1  # the same bytes for everyone
    assert read_frames(sent.pop()) == [("TEXT", True, "event"), ("TEXT", True, "snapshot")]
    assert through_asgi == ["event", "snapshot"] and full.id not in wire


async def test_a_moves_frames_to_a_socket_that_takes_them_now_are_one_write() -> None:
    writes: list[bytes] = []

    def write_now(data: bytes) -> bool:
        writes.append(data)
        return True

    async def send_text(frame: str) -> None:
        raise AssertionError("the transport took every frame")

    async def close(code: int, reason: str) -> None:
        pass

    conn = Connection(send_text=send_text, close=close, write_now=write_now)
    conn.send_all(["event", "snapshot"])
    shared = text_frame("event") + text_frame("seat")  # framed once for several sockets
    conn.send_all(["event", "seat"], shared)
    assert len(writes) == 2 and writes[1] is shared
    assert [text for _, _, text in read_frames(b"".join(writes))] == [
        "event",
        "snapshot",
        "event",
        "seat",
    ]
