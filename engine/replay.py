"""Replay: a deal or a whole set rebuilt by playing its stored moves through ``play``.

The service stores what each deal was dealt from (a fair deal's secret, or an older deal's seed)
and its moves (placements and discards, each as tile +
end; a discard's end is ``"discard"``) before it broadcasts them; after a restart it rebuilds
the table with ``replay_match``. There is no second fold over events: the moves go through
the same ``start_deal`` and ``play`` as the live table, so a replayed state is the live one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.deal import Move
from engine.errors import DealOver
from engine.events import Event
from engine.match import MatchState, new_match, play, start_deal
from engine.rules import RuleSet

# What a deal is dealt from: a secret (str, docs/FAIRNESS.md) or a seed (int, older deals).
Source = int | str


def fold(
    rules: RuleSet, source: Source, moves: Iterable[Move], state: MatchState | None = None
) -> tuple[MatchState, list[Event]]:
    """Deal from ``source`` (on ``state``, default a new match) and play ``moves``.

    ``source`` is a fair deal's secret (str) or a seed (int). Each move is played by the seat
    whose turn it is.
    """
    state = new_match(rules) if state is None else state
    if isinstance(source, str):
        state, events = start_deal(state, secret=source)
    else:
        state, events = start_deal(state, source)
    for move in moves:
        if state.turn is None:
            raise DealOver(f"move {move} comes after the end of the deal")
        state, more = play(state, state.turn, move)
        events.extend(more)
    return state, events


def replay_match(
    rules: RuleSet, deals: Sequence[tuple[Source, Sequence[Move]]]
) -> tuple[MatchState, list[Event]]:
    """Rebuild a whole set from stored ``(secret or seed, moves)`` per deal, in order.

    Each move is ``Move(Tile.parse(tile), end)`` as stored: ``end`` is None, "left", "right"
    or "discard".
    """
    state = new_match(rules)
    events: list[Event] = []
    for source, moves in deals:
        state, more = fold(rules, source, moves, state)
        events.extend(more)
    return state, events
