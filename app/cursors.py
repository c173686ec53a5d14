"""Opaque page cursors: where the next page of a list starts, given to a client and taken back.

A cursor is the URL-safe base64 (no padding) of the compact JSON list of the values the next
page continues after, e.g. ``[41]`` or ``["2026-12-01T10:00:00+00:00","room-id"]``. Clients
never look inside; the server takes back only what it gives out: ``decode`` checks the shape
its caller names and refuses anything else with ``BadCursor``.

A datetime travels as its ISO text and must carry its offset, so that it compares with the
store's UTC timestamps.
"""

from __future__ import annotations

import base64
import json
import math
from datetime import datetime
from typing import Any, TypeVar, overload

from app.errors import GapleError

Scalar = str | int | float | datetime
A = TypeVar("A", str, int, float, datetime)
B = TypeVar("B", str, int, float, datetime)


class BadCursor(GapleError):
    """A cursor this server did not give out: invalid input, the cursor being the input at fault."""

    code = "invalid"

    def __init__(self, message: str = "cursor is not one this server gave out") -> None:
        super().__init__(None, message, field="cursor")


def encode(*values: Scalar) -> str:
    """The cursor of ``values``: what the next page continues after, in the list's order."""
    items: list[str | int | float] = []
    for value in values:
        if isinstance(value, datetime):
            if value.utcoffset() is None:
                raise ValueError("a cursor's datetime must carry its offset")
            items.append(value.isoformat())
        else:
            items.append(value)
    raw = json.dumps(items, separators=(",", ":"), allow_nan=False).encode()
    return _b64(raw)


@overload
def decode(cursor: str, first: type[A], /) -> tuple[A]: ...


@overload
def decode(cursor: str, first: type[A], second: type[B], /) -> tuple[A, B]: ...


def decode(cursor: str, *shape: type[object]) -> tuple[Any, ...]:
    """The values of ``cursor``, one of each type of ``shape``, in order; ``BadCursor`` unless
    it is exactly such a cursor."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        # Only the one spelling encode gives: no padding, no other alphabet, no stray bits.
        if _b64(raw) != cursor:
            raise BadCursor
        items = json.loads(raw, parse_constant=_no_constant)
        if not isinstance(items, list) or len(items) != len(shape):
            raise BadCursor
        return tuple(_value(item, kind) for item, kind in zip(items, shape, strict=True))
    # binascii.Error, UnicodeDecodeError and JSONDecodeError are ValueErrors; OverflowError: an
    # integer too large for a float.
    except (ValueError, OverflowError) as exc:
        raise BadCursor from exc


def _value(item: object, kind: type[object]) -> Scalar:
    # bool is an int to Python, but JSON's true is not a number this server writes.
    if kind is int and isinstance(item, int) and not isinstance(item, bool):
        return item
    if kind is float and isinstance(item, int | float) and not isinstance(item, bool):
        number = float(item)
        if math.isfinite(number):  # 1e400 reads as inf
            return number
    if kind is str and isinstance(item, str):
        return item
    if kind is datetime and isinstance(item, str):
        when = datetime.fromisoformat(item)
        if when.utcoffset() is not None:
            return when
    raise BadCursor


def _no_constant(name: str) -> float:
    # NaN and the infinities: JSON has none, and encode never writes them.
    raise ValueError(name)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")
