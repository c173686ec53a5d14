"""Proof that no message to a seat or a spectator carries a tile it may not see.

A message may name a tile only when the viewer is allowed to know where it is: the tile is in the
viewer's own hand, or it has been placed on the line, or the deal is over (hands are revealed).
"""

from __future__ import annotations

import re
from typing import Any

TILE = re.compile(r"^[0-6]-[0-6]$")


def _canonical(tile: str) -> str:
    a, b = sorted(tile.split("-"))
    return f"{a}-{b}"


def _tiles_in(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, str):
        if TILE.match(value):
            found.add(_canonical(value))
    elif isinstance(value, dict):
        for item in value.values():
            found |= _tiles_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= _tiles_in(item)
    return found


def _has_key(value: Any, key: str) -> bool:
    if isinstance(value, dict):
        return key in value or any(_has_key(v, key) for v in value.values())
    if isinstance(value, list):
        return any(_has_key(v, key) for v in value)
    return False


def assert_no_leaks(messages: list[dict[str, Any]], seat: int | None) -> int:
    """Walk one viewer's messages in order; returns how many deals it checked."""
    own: set[str] = set()
    placed: set[str] = set()
    revealed = False
    deals = 0
    for message in messages:
        assert not _has_key(message, "seed"), message
        assert not _has_key(message, "hands") or revealed or _reveals(message), message
        event = message.get("event") if message["type"] == "event" else None
        if event is not None and event["kind"] == "deal_started":
            deals += 1
            revealed = False
            placed = set()
            hand = event.get("hand")
            if seat is None:
                assert hand is None, message
            own = {_canonical(t) for t in hand or []}
        if event is not None and event["kind"] == "played":
            placed.add(_canonical(event["tile"]))
        if _reveals(message):
            revealed = True
        if message["type"] == "snapshot":
            view = message["view"]
            if seat is None:
                assert view["hand"] is None, message
            elif view["phase"] == "playing":
                hand = {_canonical(t) for t in view["hand"]}
                if not own:  # joined mid-deal: the first snapshot is where the hand comes from
                    own = hand
                assert hand <= own, (seat, sorted(hand - own), message)
        if revealed:
            continue
        allowed = own | placed
        named = _tiles_in(message)
        assert named <= allowed, (seat, sorted(named - allowed), message)
    return deals


def _reveals(message: dict[str, Any]) -> bool:
    if message["type"] == "event":
        return bool(message["event"]["kind"] in ("deal_ended", "set_ended"))
    if message["type"] == "snapshot":
        return bool(message["view"]["phase"] in ("deal_over", "set_over"))
    return False
