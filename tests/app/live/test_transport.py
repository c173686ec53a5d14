"""The WebSocket transport (app/ws/transport.py) on a real uvicorn server and a real client:
frames written at once through ``gaple.frames`` arrive as a client reads any other, in order with
those sent through ASGI, and the transport declines when it cannot take them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import uvicorn
from websockets.asyncio.client import connect

from app.wire import FRAMES, text_frame
from app.ws.transport import WebSocketProtocol
from tests.server import free_port

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


@contextlib.asynccontextmanager
async def serving(app: Any, **config: Any) -> AsyncIterator[str]:
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=port, ws=WebSocketProtocol, log_level="warning", **config
        )
    )
    task = asyncio.get_running_loop().create_task(server.serve())
    try:
        for _ in range(200):
            if server.started:
                break
            await asyncio.sleep(0.02)
        assert server.started
        yield f"ws://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


async def test_frames_written_at_once_arrive_in_order_with_those_sent_through_asgi() -> None:
    took: list[bool] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return
        await receive()  # websocket.connect
        write = scope["extensions"][FRAMES]["write"]
        took.append(write(text_frame("before the handshake")))  # not open yet: declined
        await send({"type": "websocket.accept"})
        took.append(write(text_frame("one") + text_frame("two")))
        await send({"type": "websocket.send", "text": "three"})
        took.append(write(text_frame("é" * 300)))
        await receive()  # the client's "bye"
        await send({"type": "websocket.close", "code": 1000})
        took.append(write(text_frame("after the close")))  # closing: declined

    async with serving(app, ws_per_message_deflate=False) as url, connect(url) as client:
        got = [await asyncio.wait_for(client.recv(), 5) for _ in range(4)]
        await client.send("bye")
        await client.wait_closed()
    assert got == ["one", "two", "three", "é" * 300]
    assert took == [False, True, True, False]


async def test_with_compression_negotiated_the_transport_declines_and_asgi_sends() -> None:
    took: list[bool] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        took.append(scope["extensions"][FRAMES]["write"](text_frame("raw")))
        await send({"type": "websocket.send", "text": "through asgi"})
        await send({"type": "websocket.close", "code": 1000})

    async with serving(app, ws_per_message_deflate=True) as url, connect(url) as client:
        got = await asyncio.wait_for(client.recv(), 5)
    assert got == "through asgi" and took == [False]
