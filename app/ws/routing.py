"""The app's WebSocket routes, served below FastAPI's own layers.

A socket lives for hours, and every layer between uvicorn and its endpoint is a coroutine
suspended (with the objects it made) for as long. FastAPI's stack serves a WebSocket through
nine of them that do nothing for it: the server-error and telemetry middleware, the body limit,
the exception middleware (and a Starlette ``WebSocket`` of its own), the exit stack, the router
and the route's session wrapper (another ``WebSocket`` and its exception wrapper). ``App``
serves WebSocket scopes through the app's own middleware (``add_middleware``: the metrics, the
proxy headers in production; the HTTP-only ones pass a socket straight on) around
``SocketRoutes``, which matches the app's WebSocket routes and calls the endpoint. HTTP
requests take FastAPI's stack as before.

The routes are declared as they were (``router.add_websocket_route``: plain Starlette routes,
app/ws/endpoint.py); an endpoint that raises is logged and its socket closed by uvicorn, as
FastAPI's stack did for a socket.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIWebSocketRoute
from starlette.routing import BaseRoute, Match, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketClose


class SocketRoutes:
    """WebSocket routes: the first that matches a socket's path serves it; none closes it (as
    Starlette's router does)."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        self.routes: list[WebSocketRoute] = []
        for route in routes:
            # A FastAPI route's dependencies need FastAPI's stack.
            if not isinstance(route, WebSocketRoute) or isinstance(route, APIWebSocketRoute):
                raise TypeError(f"{route}: add it with router.add_websocket_route")
            self.routes.append(route)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        for route in self.routes:
            match, child_scope = route.matches(scope)
            if match is Match.FULL:
                scope.update(child_scope)
                await route.endpoint(WebSocket(scope, receive=receive, send=send))
                return
        await WebSocketClose()(scope, receive, send)


class App(FastAPI):
    """FastAPI, with WebSocket scopes served by the app's middleware around ``SocketRoutes`` of
    ``socket_routes`` (the WebSocket routers' routes; FastAPI's router has none)."""

    def __init__(self, *, socket_routes: Sequence[BaseRoute], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.socket_routes = SocketRoutes(socket_routes)
        self.socket_stack: ASGIApp | None = None

    def build_socket_stack(self) -> ASGIApp:
        app: ASGIApp = self.socket_routes
        for cls, args, kwargs in reversed(self.user_middleware):
            app = cls(app, *args, **kwargs)
        return app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await super().__call__(scope, receive, send)
            return
        scope["app"] = self
        scope.setdefault("router", self.router)
        if self.socket_stack is None:
            self.socket_stack = self.build_socket_stack()
        await self.socket_stack(scope, receive, send)
