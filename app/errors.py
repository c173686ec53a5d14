"""The service's one error base: a refused request with a stable ``code``.

Every refusal the service answers with — a socket frame it will not take (``ProtocolError``), a
table's move (``TableError``), a chat line (``ChatRefused``), a room transition
(``LifecycleError``), an account call (``AccountError``), a bad page cursor (``BadCursor``), a REST
call (``app.api.errors.ApiError``) — is a ``GapleError``: ``code`` is for programs (clients switch
on it; docs/PROTOCOL.md and docs/API.md list them), ``message`` for people, ``field`` names the
input at fault when one is. The engine keeps its own base (``engine.EngineError``, same two
attributes): the engine imports nothing of the service.

``error_body`` is the one shape of an error in a REST answer, used by the API's handlers and by
the WebSocket endpoint's refusal of a handshake.
"""

from __future__ import annotations

from typing import Any


class GapleError(Exception):
    """A refused request. Subclasses may fix ``code`` as a class attribute."""

    code: str = "bad_request"

    def __init__(self, code: str | None, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.field = field


def error_body(code: str, message: str, field: str | None = None) -> dict[str, Any]:
    """``{"error": {"code", "message", "field"?}}``: every REST error answer's shape."""
    error: dict[str, Any] = {"code": code, "message": message}
    if field is not None:
        error["field"] = field
    return {"error": error}
