"""History: state = fold(events), and rebuilding a deal or a whole set from stored data.

The service stores each deal's seed and its moves (placements and discards, each as tile +
end; a discard's end is ``"discard"``) or the raw events before it broadcasts them; after a
restart it rebuilds the table with ``replay_match`` or ``rebuild``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.deal import DealResult, Move, lay_down, new_deal, place
from engine.errors import EngineError
from engine.events import Event
from engine.match import MatchState, finish_deal, new_match, play, start_deal
from engine.rules import RuleSet
from engine.tiles import parse_index


def fold(
    rules: RuleSet, seed: int, moves: Iterable[Move], state: MatchState | None = None
) -> tuple[MatchState, list[Event]]:
    """Start a deal from ``seed`` (on ``state``, default a new match) and play ``moves``.

    Each move is played by the seat whose turn it is.
    """
    state = new_match(rules) if state is None else state
    state, events = start_deal(state, seed)
    for move in moves:
        if state.turn is None:
            raise EngineError("deal_over", f"move {move} comes after the end of the deal")
        state, more = play(state, state.turn, move)
        events.extend(more)
    return state, events


def replay_match(
    rules: RuleSet, deals: Sequence[tuple[int, Sequence[Move]]]
) -> tuple[MatchState, list[Event]]:
    """Rebuild a whole set from stored ``(seed, moves)`` per deal, in order.

    Each move is ``Move(Tile.parse(tile), end)`` as stored: ``end`` is None, "left", "right"
    or "discard".
    """
    state = new_match(rules)
    events: list[Event] = []
    for seed, moves in deals:
        state, more = fold(rules, seed, moves, state)
        events.extend(more)
    return state, events


def apply_event(state: MatchState, event: Event) -> MatchState:
    """One step of the fold: the state after ``event``."""
    d = event.data
    kind = event.kind
    if kind == "redeal":
        return state
    if kind == "deal_started":
        hands = [_mask(h) for h in d["hands"]]
        start = d.get("start")
        started = new_deal(
            number=d["deal_number"],
            hands=tuple(hands),
            opener=d["opener"],
            first=d["first"],
            seed=d["seed"],
            redeals=d["redeals"],
            additional=d["additional"],
            players=state.rules.players,
            direction=state.rules.direction,
            start=None if start is None else (int(start[0]), int(start[-1])),
            set_aside=_mask(d.get("set_aside", [])),
        )
        return state._replace(
            phase="playing",
            deal_number=started.number,
            deal=started,
            additional_games=state.additional_games + started.additional,
        )
    deal = state.deal
    if deal is None:
        raise EngineError("bad_history", f"{kind} event before any deal_started")
    n, step = state.rules.players, state.rules.direction
    if kind == "played":
        seat, i, end = d["seat"], parse_index(d["tile"]), d["end"]
        a, b = (int(x) for x in d["placed"].split("-"))
        number = a if end in (None, "left") else b
        deal = place(deal, seat, i, end, number)
        return state._replace(deal=deal._replace(turn=(seat + step) % n))
    if kind == "discarded":
        seat = d["seat"]
        deal = lay_down(deal, seat, parse_index(d["tile"]))
        return state._replace(deal=deal._replace(turn=(seat + step) % n))
    if kind == "passed":
        seat = d["seat"]
        passes = (*deal.passes, (seat, d["left"], d["right"]))
        return state._replace(deal=deal._replace(turn=(seat + step) % n, passes=passes))
    if kind == "deal_ended":
        result = DealResult.from_dict(d)
        ended, _ = finish_deal(state, deal._replace(turn=-1, result=result))
        return ended
    if kind == "set_ended":
        return state  # finish_deal already decided it from the same data
    raise EngineError("bad_history", f"unknown event kind {kind!r}")


def _mask(tiles: list[str]) -> int:
    m = 0
    for t in tiles:
        m |= 1 << parse_index(t)
    return m


def rebuild(rules: RuleSet, events: Iterable[Event], state: MatchState | None = None) -> MatchState:
    """Fold stored events into the state they describe."""
    state = new_match(rules) if state is None else state
    for event in events:
        state = apply_event(state, event)
    return state
