"""The WebSocket wire, as far as the service writes it itself: a server's text frame.

app/ws/transport.py offers the app a way to put framed bytes on a socket at once (the ASGI
extension named ``FRAMES``); app/rooms/connection.py frames what it sends there.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

FRAMES = "gaple.frames"  # the ASGI extension's name in a WebSocket's scope

Write = Callable[[bytes], bool]  # framed bytes on the socket now: whether it took them


def text_frame(text: str) -> bytes:
    """One final, unmasked text frame carrying ``text``, as a server sends it (RFC 6455 5.2)."""
    payload = text.encode()
    n = len(payload)
    if n < 126:
        head = bytes((0x81, n))
    elif n < 65536:
        head = struct.pack("!BBH", 0x81, 126, n)
    else:
        head = struct.pack("!BBQ", 0x81, 127, n)
    return head + payload
