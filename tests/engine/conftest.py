"""Shared helpers for the engine tests."""

from __future__ import annotations

import random
import re
from typing import Any

from engine import Event, MatchState, new_match, play, random_legal_move, start_deal
from engine.rules import RuleSet

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
