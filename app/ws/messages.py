"""The table protocol's messages: one discriminated union per direction (docs/PROTOCOL.md).

Incoming frames are parsed strictly (``extra="forbid"``) so that anything a client sends that we
did not document becomes an explicit ``bad_message`` error rather than being silently ignored.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from app.rooms.frames import dumps, error_message


class _Incoming(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Resume(_Incoming):
    set: int = Field(ge=0)
    seq: int = Field(ge=0)


class Hello(_Incoming):
    type: Literal["hello"]
    token: str | None = Field(default=None, max_length=256)
    resume: Resume | None = None


class Play(_Incoming):
    type: Literal["play"]
    move_id: str = Field(min_length=1, max_length=64)
    tile: str = Field(min_length=3, max_length=3)
    end: Literal["left", "right", "discard"] | None = None


class Leave(_Incoming):
    type: Literal["leave"]


class Ping(_Incoming):
    type: Literal["ping"]
    t: int | float | str | None = None


# A set is started (the next one too) over REST only: POST /api/rooms/{code}/start.
ClientMessage = Annotated[Hello | Play | Leave | Ping, Field(discriminator="type")]
_client_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


class ProtocolError(Exception):
    """A frame we refuse; ``code`` is one of the stable codes in docs/PROTOCOL.md."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def parse_client_message(raw: str) -> ClientMessage:
    """Parse one text frame or raise ProtocolError(bad_json | bad_message)."""
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        raise ProtocolError("bad_json", "the frame is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "the frame must be a JSON object")
    try:
        return _client_adapter.validate_python(data)
    except ValidationError as exc:
        raise ProtocolError("bad_message", _describe(exc)) from None


def _describe(exc: ValidationError) -> str:
    first = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"]) or "message"
    if first["type"] == "union_tag_invalid":
        return (
            f"unknown message type {first['input'].get('type')!r}"
            if isinstance(first["input"], dict)
            else "unknown message type"
        )
    if first["type"] == "union_tag_not_found":
        return "the message has no 'type'"
    return f"{where}: {first['msg']}"


# --- server -> client -------------------------------------------------------------------------
# The server's messages are typed and shaped in app/rooms/frames.py; the two helpers the endpoint
# uses are re-exported here.

__all__ = ["ClientMessage", "ProtocolError", "dumps", "error_message", "parse_client_message"]
