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
async def serving(
    app: Any, *, servers: list[uvicorn.Server] | None = None, **config: Any
) -> AsyncIterator[str]:
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=port, ws=WebSocketProtocol, log_level="warning", **config
        )
    )
    if servers is not None:
        servers.append(server)
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


async def test_the_handshake_is_let_go_once_the_socket_is_accepted() -> None:
    """uvicorn keeps the upgrade's request and response for the socket's life; ours drops them
    once the accept is sent, and the socket serves on (frames both ways, the close)."""
    kept: list[tuple[object, object]] = []
    servers: list[uvicorn.Server] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        [protocol] = servers[0].server_state.connections
        assert isinstance(protocol, WebSocketProtocol)
        kept.append((protocol.request, protocol.response))
        await send({"type": "websocket.accept"})
        kept.append((protocol.request, protocol.response))
        message = await receive()
        await send({"type": "websocket.send", "text": f"echo {message['text']}"})
        await send({"type": "websocket.close", "code": 1000})

    async with (
        serving(app, servers=servers, ws_per_message_deflate=False) as url,
        connect(url) as client,
    ):
        await client.send("hi")
        assert await asyncio.wait_for(client.recv(), 5) == "echo hi"
        await client.wait_closed()
    assert client.close_code == 1000
    assert all(kept[0]) and kept[1] == (None, None)
