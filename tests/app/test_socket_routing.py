"""WebSocket scopes are served by the app's own middleware around its socket routes, not through
FastAPI's stack (app/ws/routing.py): every layer there is kept for as long as a socket is open."""

from __future__ import annotations

import sys
from typing import Any

import httpx
import pytest
from fastapi import APIRouter, FastAPI, WebSocket
from fastapi.middleware.cors import CORSMiddleware
from starlette.types import Message

from app.api.bodies import BodyCap
from app.metrics import Metrics, MetricsMiddleware
from app.ws.routing import App


def callers() -> list[str]:
    """The qualified names of the running frames, innermost first."""
    frame = sys._getframe(1)
    names = []
    while frame is not None:
        names.append(frame.f_code.co_qualname)
        frame = frame.f_back  # type: ignore[assignment]
    return names


def make_app() -> tuple[App, list[list[str]]]:
    seen: list[list[str]] = []
    sockets = APIRouter()

    async def endpoint(websocket: WebSocket) -> None:
        seen.append(callers())
        await websocket.accept()
        await websocket.send_text(f"code {websocket.path_params['code']}")
        await websocket.close()

    sockets.add_websocket_route("/ws/rooms/{code}", endpoint)
    app = App(socket_routes=sockets.routes)
    app.state.metrics = Metrics()
    app.add_middleware(CORSMiddleware, allow_origins=["*"])
    app.add_middleware(BodyCap, max_bytes=1000)
    app.add_middleware(MetricsMiddleware)

    @app.get("/ping")
    async def ping() -> dict[str, Any]:
        return {"stack": callers()}

    return app, seen


async def connect(app: FastAPI, path: str) -> list[Message]:
    """Drive one WebSocket through ``app`` as a server would: what the app sent."""
    sent: list[Message] = []
    incoming = [{"type": "websocket.connect"}, {"type": "websocket.disconnect", "code": 1000}]

    async def receive() -> Message:
        return incoming.pop(0)

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "websocket",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
        "scheme": "ws",
        "subprotocols": [],
        "state": {},
        "extensions": {},
    }
    await app(scope, receive, send)
    return sent


async def test_a_socket_reaches_its_endpoint_through_the_apps_middleware_alone() -> None:
    app, seen = make_app()
    sent = await connect(app, "/ws/rooms/ABC123")
    assert [m["type"] for m in sent] == ["websocket.accept", "websocket.send", "websocket.close"]
    assert sent[1]["text"] == "code ABC123"
    [stack] = seen
    between = stack[1 : stack.index("App.__call__")]
    assert between == [
        "SocketRoutes.__call__",
        "CORSMiddleware.__call__",
        "BodyCap.__call__",
        "MetricsMiddleware._websocket",
        "MetricsMiddleware.__call__",
    ]
    closes = app.state.metrics.ws_closes_total.labels(code="1000", by="server")._value.get()
    assert closes == 1  # the metrics middleware still sees the socket


async def test_a_socket_on_no_route_is_closed_and_http_keeps_fastapis_stack() -> None:
    app, seen = make_app()
    assert [m["type"] for m in await connect(app, "/ws/nowhere")] == ["websocket.close"]
    assert seen == []
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        stack = (await client.get("/ping")).json()["stack"]
    assert "ServerErrorMiddleware.__call__" in stack and "MetricsMiddleware._http" in stack


def test_a_fastapi_websocket_route_is_refused() -> None:
    router = APIRouter()

    @router.websocket("/ws/x")
    async def endpoint(websocket: WebSocket) -> None: ...

    with pytest.raises(TypeError, match="add_websocket_route"):
        App(socket_routes=router.routes)
