"""What a seat or a spectator may see: the ONLY place that decides it.

Views are built up from what the viewer may know (never by stripping a full state): the
viewer's own hand and own discards, public facts (tile counts, the line with its face-up start
tile, passes, who discarded on which ends, how many tiles lie set aside, scores), and, once a
deal is over, its result with every hand, every discard and the set-aside tiles revealed.
``viewer=None`` is a spectator.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.core import NOBODY
from engine.deal import DISCARD, DealState, fair_facts, placements, start_of, stock
from engine.events import Event
from engine.match import MatchState
from engine.scoring import classify_domi
from engine.tiles import FULL_MASK, NAMES, names

PUBLIC_EVENTS = frozenset({"redeal", "played", "passed", "deal_ended", "set_ended"})
# Tiles of a finished deal's result that leave the views once the next deal is on.
OLD_NEWS = ("hands", "tile", "discards", "set_aside")


def _line(deal: DealState) -> list[dict[str, Any]]:
    return [{"tile": f"{a}-{b}", "seat": None if s == NOBODY else s} for a, b, s in deal.line]


def _legal(state: MatchState, deal: DealState, seat: int) -> list[dict[str, Any]]:
    """The seat's legal moves, each with the points it scores if it ends the deal by Domi.

    Only a placement of the seat's last tile can end the deal by Domi; its PORDI points depend
    on which numbers the other seats still hold, and with all 28 tiles dealt that is exactly
    the tiles neither on the line nor in the seat's own hand: the seat's own knowledge. Under
    count scoring (Klasik) the points depend on hidden hands, so ``domi_points`` is None.
    """
    rules = state.rules
    hand = deal.hands[seat]
    last = hand & (hand - 1) == 0 and not rules.counts
    out = []
    for i, end in placements(rules, deal.facts, deal.pos, seat):
        points = None
        discard = end == DISCARD
        if last and deal.left >= 0 and not discard:
            others = FULL_MASK & ~deal.board & ~hand
            points = classify_domi(rules, deal.left, deal.right, i, end, others).points
        out.append({"tile": NAMES[i], "end": end, "domi_points": points, "discard": discard})
    return out


def view(state: MatchState, viewer: int | None) -> dict[str, Any]:
    """Everything ``viewer`` (a seat, or None for a spectator) may see now, JSON-safe."""
    return _seat_view(state, _public_view(state), viewer)


def views(state: MatchState, viewers: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
    """``view(state, v)`` for each of ``viewers``, with the public part built once for all.

    The views share their public lists (line, counts, passes...): read them, do not change them.
    """
    public = _public_view(state)
    return {v: _seat_view(state, public, v) for v in viewers}


def _deals(state: MatchState) -> list[dict[str, Any]]:
    """The set's finished deals, oldest first, as the score sheet shows them.

    Each is public once it is over; no tile is kept (the hands, the last tile, the discards
    are ``last_result``'s and leave it when the next deal starts).
    """
    results = state.results
    last = state.deal_number - (state.phase == "playing")  # the current deal is not finished
    first = last - len(results) + 1
    return [
        {
            "deal": first + i,
            "end": r.end,
            "result": r.result,
            "winner": r.winner,
            "seat": r.seat,
            "points": list(r.points),
        }
        for i, r in enumerate(results)
    ]


def _public_view(state: MatchState) -> dict[str, Any]:
    """What every viewer, spectators included, may see."""
    rules = state.rules
    deal = state.deal
    n = rules.players
    out: dict[str, Any] = {
        "viewer": None,
        "preset": rules.preset,
        "mode": rules.mode,
        "scoring": rules.scoring,
        "stuck": rules.stuck,
        "players": n,
        "phase": state.phase,
        "deal_number": state.deal_number,
        "additional_game": bool(deal and deal.additional),
        "scores": list(state.scores),
        "teams": [list(rules.partners(s)) for s in range(2)] if rules.teams else None,
        "turn": state.turn,
        "opener": deal.opener if deal else None,
        "hand": None,
        "counts": [0] * n,
        "start": None,
        "line": [],
        "ends": None,
        "set_aside": 0,
        "boneyard": None,
        "passes": [],
        "discards": None,
        "discard_counts": [0] * n,
        "discarded": [],
        "legal": [],
        "last_result": None,
        "set_result": dict(state.set_result) if state.set_result else None,
        "deals": _deals(state),
        # A fair deal (docs/FAIRNESS.md): its commitment from the start, its secret once over.
        "commitment": None,
        "dealing": None,
        "secret": None,
    }
    if deal is None:
        return out
    if deal.facts.secret is not None:
        _, out["commitment"], out["dealing"] = fair_facts(rules, deal.facts)
        if state.phase != "playing":
            out["secret"] = deal.facts.secret  # the deal is over: deal_ended revealed it
    out["counts"] = [h.bit_count() for h in deal.hands]
    out["start"] = start_of(deal.facts)
    out["line"] = _line(deal)
    if deal.left >= 0:
        out["ends"] = {"left": deal.left, "right": deal.right}
    if deal.facts.boneyard:  # draw rules: the set-aside tiles are the boneyard
        out["set_aside"] = out["boneyard"] = len(stock(deal.facts, deal.pos))
    else:
        out["set_aside"] = deal.set_aside.bit_count()
    out["passes"] = [{"seat": s, "left": a, "right": b} for s, a, b in deal.passes]
    out["discard_counts"] = [d.bit_count() for d in deal.discards]
    out["discarded"] = [{"seat": s, "left": a, "right": b} for s, a, b in deal.discard_log]
    last = state.last_result
    if last is not None:
        shown = last.to_dict()
        if state.phase == "playing":
            # A new deal is on: the previous hands are old news, but keep views free of tiles
            # that are not on the current line or in the viewer's hand.
            for key in OLD_NEWS:
                del shown[key]
        out["last_result"] = shown
    return out


def _seat_view(state: MatchState, public: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """The public view plus what only ``viewer`` may see: its own hand, discards and moves."""
    deal = state.deal
    if viewer is None or deal is None:
        return public if viewer is None else {**public, "viewer": viewer}
    out = {**public, "viewer": viewer}
    out["hand"] = names(deal.hands[viewer])
    out["discards"] = names(deal.discards[viewer])
    if state.turn == viewer:
        out["legal"] = _legal(state, deal, viewer)
    return out


# The events whose tile only their own seat sees, and what every other viewer is told of them.
_SEAT_PRIVATE: dict[str, tuple[str, ...]] = {
    "drew": ("deal_number", "seat", "boneyard"),
    "discarded": ("deal_number", "seat", "left", "right"),
}


def event_view(event: Event, viewer: int | None) -> dict[str, Any] | None:
    """The event as ``viewer`` may see it, or None when it may not see it at all."""
    kind = event.kind
    if kind in PUBLIC_EVENTS:
        return event.to_dict()
    shown = _SEAT_PRIVATE.get(kind)
    if shown is not None:
        data = event.data
        if viewer is not None and viewer == data["seat"]:
            return event.to_dict()
        # Everyone else learns who drew or discarded (how many tiles are left, on which ends),
        # never the tile.
        return {"kind": kind, **{key: data[key] for key in shown}}
    if kind == "deal_started":
        # Built from the public fields only: the seed, the other hands and the set-aside
        # tiles stay on the server (a fair deal's secret is not even in the raw event).
        data = event.data
        hands = data["hands"]
        return {
            "kind": "deal_started",
            "deal_number": data["deal_number"],
            "first": data["first"],
            "additional": data["additional"],
            "opener": data["opener"],
            "counts": [len(h) for h in hands],
            "hand": list(hands[viewer]) if viewer is not None else None,
            "start": data.get("start"),
            "set_aside": len(data.get("set_aside", [])),
            "shuffle": data.get("shuffle"),
            "commitment": data.get("commitment"),
            "dealing": data.get("dealing"),
        }
    return None
