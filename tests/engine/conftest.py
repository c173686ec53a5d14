"""Shared helpers for the engine tests."""

from __future__ import annotations

import random
import re
from typing import Any

from engine import (
    DISCARD,
    Event,
    MatchState,
    Move,
    Tile,
    new_match,
    play,
    random_legal_move,
    start_deal,
)
from engine.match import begin_deal
from engine.rules import RuleSet
from engine.tiles import mask_of_names

TILE_RE = re.compile(r"(?<![0-9])([0-6])-([0-6])(?![0-9])")


def tiles_in(text: str) -> set[str]:
    """Every tile string in a JSON text, canonicalised low-high."""
    return {f"{min(a, b)}-{max(a, b)}" for a, b in TILE_RE.findall(text)}


def play_random_deal(
    state: MatchState, seed: int, rng: random.Random
) -> tuple[MatchState, list[Event]]:
    state, events = start_deal(state, seed)
    while state.phase == "playing":
        turn = state.turn
        assert turn is not None
        state, more = play(state, turn, random_legal_move(state, rng))
        events.extend(more)
    return state, events


def play_random_set(rules: RuleSet, seed: int, max_deals: int = 200) -> tuple[MatchState, Any]:
    rng = random.Random(seed)
    state = new_match(rules)
    seeds = []
    for k in range(max_deals):
        s = seed * 1000 + k
        seeds.append(s)
        state, _ = play_random_deal(state, s, rng)
        if state.phase == "set_over":
            return state, seeds
    raise AssertionError("set did not end")


def rebuild(rules: RuleSet, events: list[Event], state: MatchState | None = None) -> MatchState:
    """The state a stored event history describes, re-played through the engine.

    Each ``deal_started`` deals its recorded hands with ``begin_deal``; each ``played`` and
    ``discarded`` goes through ``play`` as the move it records; the rest follows from those.
    """
    state = new_match(rules) if state is None else state
    for event in events:
        d = event.data
        if event.kind == "deal_started":
            start = d.get("start")
            state, _ = begin_deal(
                state,
                tuple(mask_of_names(h) for h in d["hands"]),
                seed=d["seed"],
                redeals=d["redeals"],
                opener=d["opener"],
                start=None if start is None else (int(start[0]), int(start[-1])),
                set_aside=mask_of_names(d.get("set_aside", [])),
            )
        elif event.kind == "played":
            move = Move(Tile.parse(d["tile"]), d["end"], int(d["placed"][0]))
            if d["end"] is not None:
                move = Move(move.tile, d["end"])
            state, _ = play(state, d["seat"], move)
        elif event.kind == "discarded":
            state, _ = play(state, d["seat"], Move(Tile.parse(d["tile"]), DISCARD))
    return state
