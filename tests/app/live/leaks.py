"""Proof that no message to a seat or a spectator carries a tile it may not see, nor a deal's
secret before that deal's end.

A message may name a tile only when the viewer is allowed to know where it is: the tile is in the
viewer's own hand, or it has been placed on the line, or the deal is over (hands are revealed).

Klasik (RULES.md §2, docs/RULES_CHOICES.md K2, K21): the face-up start tile named by
``deal_started.start`` is on the line, so public. A discard is laid face down: its ``discarded``
event names the tile to the discarder only (it was in its own hand), everyone else learns only the
seat and the ends; the set-aside tiles are only a number. Both are revealed when the deal ends.
Draw Domino (``stuck: "draw"``): a ``drew`` event names the tile to the drawer only, which adds it
to the drawer's hand; everyone else learns the seat and how many tiles the boneyard has left.

A provably fair deal (docs/FAIRNESS.md): every message that shows the deal carries its commitment,
and its secret appears first in the deal's ``deal_ended`` event (or a snapshot of the deal over),
and is the one committed to. ``assert_secrets_kept`` checks a log's text too.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
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


def assert_no_leaks(
    messages: list[dict[str, Any]], seat: int | None, secrets: Iterable[str] = ()
) -> int:
    """Walk one viewer's messages in order; returns how many deals it checked.

    ``secrets``: the stored secrets of the deals these messages cover (any not revealed in them
    must not appear at all); those the messages reveal are checked either way.
    """
    assert_secrets_kept(messages, secrets)
    own: set[str] = set()
    placed: set[str] = set()
    start: str | None = None
    followed = False  # saw this deal's deal_started (else it joined mid-deal)
    revealed = False
    deals = 0
    for message in messages:
        assert not _has_key(message, "seed"), message
        assert not _has_key(message, "hands") or revealed or _reveals(message), message
        event = message.get("event") if message["type"] == "event" else None
        if event is not None and event["kind"] == "deal_started":
            deals += 1
            revealed = False
            followed = True
            placed = set()
            hand = event.get("hand")
            if seat is None:
                assert hand is None, message
            own = {_canonical(t) for t in hand or []}
            start = event.get("start")
            if start:  # Klasik: the face-up start tile is on the line
                placed.add(_canonical(start))
            assert not isinstance(event.get("set_aside"), list), message  # only how many
        if event is not None and event["kind"] == "played":
            placed.add(_canonical(event["tile"]))
        if event is not None and event["kind"] == "discarded":
            if event["seat"] == seat:  # its own face-down tile: it knows which
                assert _canonical(event["tile"]) in own, (seat, message)
            else:
                assert "tile" not in event, (seat, message)
        if event is not None and event["kind"] == "drew":  # Draw Domino: a face-down draw
            if event["seat"] == seat:  # now in its own hand
                own.add(_canonical(event["tile"]))
            else:
                assert "tile" not in event, (seat, message)
                assert isinstance(event["boneyard"], int), message  # only how many are left
        if _reveals(message):
            revealed = True
        if message["type"] == "snapshot":
            view = message["view"]
            if seat is None:
                assert view["hand"] is None, message
            elif view["phase"] == "playing":
                hand = {_canonical(t) for t in view["hand"]}
                if not own:  # joined mid-deal: the first snapshot is where the hand comes from
                    own = hand | {_canonical(t) for t in view.get("discards") or []}
                assert hand <= own, (seat, sorted(hand - own), message)
            if seat is None:
                assert view.get("discards") is None, message  # a spectator has no discards
            if view["phase"] == "playing":
                assert not isinstance(view.get("set_aside"), list), message  # only how many
                if not followed:
                    # Joined mid-deal: the line it never saw being laid is public; from here on
                    # it follows the deal by its events.
                    placed |= {_canonical(item["tile"]) for item in view["line"]}
                    start, followed = view.get("start"), True
                assert view.get("start") == start, (seat, start, message)
        if revealed:
            continue
        allowed = own | placed
        named = _tiles_in(message)
        assert named <= allowed, (seat, sorted(named - allowed), message)
    return deals


Deal = tuple[Any, int]  # (the frame's set number, the deal's number in it)


def revealed_secrets(messages: list[dict[str, Any]]) -> dict[Deal, tuple[int, str]]:
    """Each fair deal's secret as these messages reveal it: deal -> (index, secret)."""
    found: dict[Deal, tuple[int, str]] = {}
    for index, message in enumerate(messages):
        if message["type"] == "event" and message["event"]["kind"] == "deal_ended":
            number, secret = message["event"]["deal_number"], message["event"].get("secret")
        elif message["type"] == "snapshot" and message["view"]["phase"] != "playing":
            number, secret = message["view"]["deal_number"], message["view"].get("secret")
        else:
            continue
        if secret is not None:
            found.setdefault((message.get("set"), number), (index, secret))
    return found


def assert_secrets_kept(messages: list[dict[str, Any]], secrets: Iterable[str] = ()) -> None:
    """No secret in any message before its deal's end, and each one the deal committed to."""
    texts = [json.dumps(m) for m in messages]
    revealed = revealed_secrets(messages)
    for deal, (index, secret) in revealed.items():
        early = [i for i, text in enumerate(texts[:index]) if secret in text]
        assert not early, (deal, [messages[i] for i in early])
        commitment = hashlib.sha256(secret.encode("ascii")).hexdigest()
        shown = _commitments(messages, deal)
        assert shown and shown <= {commitment}, (deal, shown, commitment)
    for secret in set(secrets) - {s for _, s in revealed.values()}:
        assert not any(secret in text for text in texts), "an unrevealed secret was sent"


def _commitments(messages: list[dict[str, Any]], deal: Deal) -> set[str | None]:
    """The commitments shown for ``deal``: its opening event and its snapshots."""
    shown: set[str | None] = set()
    for message in messages:
        if message["type"] == "event":
            part = message["event"] if message["event"]["kind"] == "deal_started" else None
        else:
            part = message["view"] if message["type"] == "snapshot" else None
        if part is not None and (message.get("set"), part["deal_number"]) == deal:
            shown.add(part.get("commitment"))
    return shown


def assert_log_keeps_secrets(log: str, secrets: Iterable[str]) -> None:
    """No deal's secret in a server's log, not even after its deal ended."""
    leaked = [s for s in secrets if s in log]
    assert not leaked, f"{len(leaked)} secret(s) in the log"


def _reveals(message: dict[str, Any]) -> bool:
    if message["type"] == "event":
        return bool(message["event"]["kind"] in ("deal_ended", "set_ended"))
    if message["type"] == "snapshot":
        return bool(message["view"]["phase"] in ("deal_over", "set_over"))
    return False


def discards_seen(messages: list[dict[str, Any]]) -> list[tuple[int, int, str | None]]:
    """Every ``discarded`` event one viewer received: (deal number, seat, tile or None)."""
    return [
        (m["event"]["deal_number"], m["event"]["seat"], m["event"].get("tile"))
        for m in messages
        if m["type"] == "event" and m["event"]["kind"] == "discarded"
    ]
