"""The cap on a REST call's body (``GAPLE_MAX_BODY_BYTES``): a longer one is answered ``413``
``too_large`` in the error envelope before the route reads it, whether its ``Content-Length``
says so at once or a chunked body grows past the cap as it arrives. WebSocket frames have their
own limit (app/ws/limits.py)."""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import error_body


def too_large_message(max_bytes: int) -> str:
    return f"the request body is longer than {max_bytes} bytes"


class BodyCap:
    """Pure ASGI middleware, so a streamed body is counted without being buffered here."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = Headers(scope=scope).get("content-length", "")
        if length.isdigit() and int(length) > self.max_bytes:
            body = error_body("too_large", too_large_message(self.max_bytes))
            await JSONResponse(body, status_code=413)(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    # Raised where the route reads its body, so the error handlers (app/api/
                    # errors.py) shape the answer as they shape every other.
                    raise HTTPException(413, too_large_message(self.max_bytes))
            return message

        await self.app(scope, counted, send)
