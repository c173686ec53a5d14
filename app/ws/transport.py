"""The WebSocket transport under the endpoints: uvicorn's sans-I/O protocol, with two changes.

* **Frames written at once.** A frame sent through ASGI costs a coroutine (Starlette's
  ``send_text``, uvicorn's ``send``) and the websockets library building and serialising a frame
  object; the table core's writer is a task per socket. For a move watched by thousands that is
  most of the move's cost. The protocol offers the app the extension ``gaple.frames``: a
  ``write(data)`` that puts already framed bytes (``app.wire.text_frame``) on the socket now
  and says whether it did. It does only while the socket is open and its buffer below the
  high-water mark; otherwise the caller sends through ASGI as before and waits its turn
  (app/rooms/connection.py). The same bytes serve every spectator of a move: framed once.
* **A refused handshake counts as answered.** A handshake answered with an HTTP response (the
  ASGI denial-response extension: a draining node's 503) is complete. uvicorn's own class logs
  "ASGI callable returned without completing handshake" at ERROR for each such refusal, although
  the client got the response whole; it still logs the refusal itself
  (``"WebSocket /ws/rooms/…" 503``) at INFO.

Server frames are never masked (RFC 6455 section 5.1), and no extension is negotiated
(``ws_per_message_deflate=False``, app/cli.py); with one, ``write`` declines.
"""

from __future__ import annotations

from typing import Any

from starlette.websockets import WebSocket
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from app.wire import FRAMES, Write


def frame_writer(websocket: WebSocket) -> Write | None:
    """The socket's ``write`` when its server offers one (``gaple serve``), else None."""
    offered = websocket.scope.get("extensions", {}).get(FRAMES)
    return None if offered is None else offered["write"]


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (the one it picks by itself), with the changes above."""

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # none when the handshake itself was refused
        if scope is not None:
            scope["extensions"][FRAMES] = {"write": self.write_frames}

    def write_frames(self, data: bytes) -> bool:
        """Put ``data`` (whole frames) on the socket now: False, writing nothing, when it is not
        open or its buffer is full (the caller then sends through ASGI)."""
        if (
            self.handshake_complete
            and not self.close_sent
            and self.initial_response is None
            and self.writable.is_set()
            and self.conn.state is State.OPEN
            and not self.conn.extensions
            and not self.transport.is_closing()
        ):
            self.transport.write(data)
            return True
        return False

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.http.response.body" and not message.get("more_body"):
            self.handshake_complete = True
