"""The playout kernel: whole random deals without events or immutable states.

For simulations (Monte Carlo bots, the benchmark, statistics): the same dealing
(``match.deal_hands``), the same choice of random placement (``deal.pick_random``) and the same
scoring tables (``engine.scoring``) as the public path, on plain ints. A test checks that it
gives exactly the public path's result for the same seed and generator. It covers PORDI-shaped
rules (pass when stuck, all tiles dealt, fixed scoring); Klasik simulations use the public path.
"""

from __future__ import annotations

import random

from engine.deal import opening_index, pick_random, turn_order
from engine.errors import BadRules
from engine.match import deal_hands
from engine.rules import RuleSet
from engine.scoring import LEFT, RIGHT, classify_domi, score_kandang, side_points
from engine.tiles import FULL_MASK, HIGH, LOW, OTHER, WITH, mask_pips

_ENDS = (None, LEFT, RIGHT)


def random_full_deal(
    rules: RuleSet, seed: int, rng: random.Random, *, opener: int | None = None
) -> tuple[str, str, int, tuple[int, ...], tuple[int, ...]]:
    """Deal from ``seed`` like ``start_deal`` and play it out at random.

    ``opener`` None: a set's first deal (the 6-6 holder opens with 6-6); else that seat opens
    with any tile, as after a previous deal won by it.
    """
    hands, _ = deal_hands(rules, seed)
    first = opener is None
    if first:
        o = opening_index(rules)
        opener = next(s for s, h in enumerate(hands) if h >> o & 1) if o >= 0 else 0
    assert opener is not None
    return random_deal(rules, hands, opener, first, rng)


def random_deal(
    rules: RuleSet,
    hands: tuple[int, ...],
    opener: int,
    first: bool,
    rng: random.Random,
) -> tuple[str, str, int, tuple[int, ...], tuple[int, ...]]:
    """Play one deal from ``hands`` with uniformly random placements.

    Returns (end, result, winner, points, pips) as the public path's ``DealResult`` would.
    """
    if rules.counts or rules.discard or rules.face_up_start or rules.set_aside_count:
        raise BadRules("the playout kernel plays PORDI-shaped deals only (no Klasik counting)")
    rand = rng.random
    order = turn_order(rules.players, rules.direction)
    with_, other_, pick = WITH, OTHER, pick_random  # locals: this loop is the hot path
    h = list(hands)
    o = opening_index(rules)
    opening = 1 << o if first and o >= 0 else FULL_MASK
    seat = opener
    i, code = pick(h[seat], -1, -1, opening, rand)
    # Opening without a chosen side: the low number faces the left end (as Move(tile)).
    left, right = LOW[i], HIGH[i]
    h[seat] &= ~(1 << i)
    board = 1 << i
    while True:
        # Next seat able to move, in turn order; nobody: the board is locked by ``seat``.
        fit = with_[left] | with_[right]
        for s in order[seat]:
            if h[s] & fit:
                seat = s
                break
        else:
            pips = tuple(mask_pips(x) for x in h)
            kandang = score_kandang(rules, seat, pips)
            points = tuple(side_points(rules, kandang.awards))
            return "kandang", "kandang", kandang.winner, points, pips
        hand = h[seat]
        i, code = pick(hand, left, right, -1, rand)
        other = other_[i]
        if code == 0:
            code = 1 if other[left] >= 0 else 2
        before_l, before_r = left, right
        if code == 1:
            left = other[left]
        else:
            right = other[right]
        hand &= ~(1 << i)
        h[seat] = hand
        board |= 1 << i
        if not hand:
            domi = classify_domi(rules, before_l, before_r, i, _ENDS[code], FULL_MASK & ~board)
            pips = tuple(mask_pips(x) for x in h)
            points = tuple(side_points(rules, {seat: domi.points}))
            return "domi", domi.result, seat, points, pips
