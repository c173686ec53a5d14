"""The table protocol's messages: one discriminated union per direction (docs/PROTOCOL.md).

Incoming frames are parsed strictly (``extra="forbid"``) so that anything a client sends that we
did not document becomes an explicit ``bad_message`` error rather than being silently ignored.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from app.rooms.frames import dumps, error_message


class _Incoming(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Resume(_Incoming):
    set: int = Field(ge=0)
    seq: int = Field(ge=0)


class Hello(_Incoming):
    type: Literal["hello"]
    # No length limit here: a token of the wrong length is a bad token (bad_token, close 1008),
    # not a malformed message; the frame size limit bounds it anyway.
    token: str | None = None
    resume: Resume | None = None


class Play(_Incoming):
    type: Literal["play"]
    move_id: str = Field(min_length=1, max_length=64)
    tile: str = Field(min_length=3, max_length=3)
    end: Literal["left", "right", "discard"] | None = None


class Leave(_Incoming):
    type: Literal["leave"]


class Chat(_Incoming):
    type: Literal["chat"]
    # Length and characters are the table's to check (app/rooms/chat.py: error bad_chat); the
    # frame size limit bounds what arrives.
    text: str


class React(_Incoming):
    type: Literal["react"]
    emoji: str = Field(max_length=16)


class Phrase(_Incoming):
    type: Literal["phrase"]
    id: str = Field(max_length=64)


class Ping(_Incoming):
    type: Literal["ping"]
    # Echoed back in the pong exactly, so only what JSON carries back unchanged: a finite
    # number (an integer of at most 64 bits) or a short string.
    t: int | float | str | None = None

    @field_validator("t", mode="before")
    @classmethod
    def _echoable(cls, value: Any) -> Any:
        if isinstance(value, int) and not -(2**63) <= value < 2**63:
            raise ValueError("integers are limited to 64 bits")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError("must be a finite number")
        if isinstance(value, str) and len(value) > PING_MAX_CHARS:
            raise ValueError(f"strings are limited to {PING_MAX_CHARS} characters")
        return value


PING_MAX_CHARS = 64


# A set is started (the next one too) over REST only: POST /api/rooms/{code}/start.
ClientMessage = Annotated[
    Hello | Play | Leave | Chat | React | Phrase | Ping, Field(discriminator="type")
]
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
        data = json.loads(raw, parse_constant=_not_json)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        raise ProtocolError("bad_json", "the frame is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "the frame must be a JSON object")
    try:
        return _client_adapter.validate_python(data)
    except ValidationError as exc:
        raise ProtocolError("bad_message", _describe(exc)) from None


def _not_json(constant: str) -> Any:
    # Python's json module reads NaN, Infinity and -Infinity; JSON has none of them.
    raise ValueError(f"{constant} is not JSON")


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
