"""The rule core: legal placements, applying one, the next seat, the outcome, on plain ints.

A tile is an index 0..27 and a hand a 28-bit mask (``engine.tiles``). A placement is a tile
and an end code: ``NO_END`` (the opening tile), ``AT_LEFT``, ``AT_RIGHT``, or ``DISCARD``
(Klasik: laid face down by a seat that cannot place). Everything that places a tile calls
this module: ``engine.deal.play_tile`` (the public ``play``) wraps it with validation,
immutable states and events; views list its placements; bots play deals out through
``play_out``. Nothing else in the engine re-implements a placement, the turn order or the
scoring of a finished deal.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from engine.rules import PRESET_SHAPES, RuleSet
from engine.scoring import classify_domi, score_counts, score_kandang, side_points
from engine.tiles import (
    BALAK_MASK,
    COUNT,
    DRAWN,
    FULL_MASK,
    HALF_MASK,
    HI_BITS,
    HIGH,
    LO_BITS,
    LOW,
    NUMBERS,
    OTHER,
    WITH,
    bits,
    mask_pips,
    parse_index,
)

NO_END: Final = 0
AT_LEFT: Final = 1
AT_RIGHT: Final = 2
DISCARD: Final = 3
END_NAMES: Final[tuple[str | None, ...]] = (None, "left", "right", "discard")
END_CODES: Final[dict[str | None, int]] = {
    None: NO_END,
    "left": AT_LEFT,
    "right": AT_RIGHT,
    "discard": 3,
}
NOBODY: Final = -1  # the "seat" of a face-up start tile on the line
SEAT_SLOTS: Final = 1 + max(p for shapes in PRESET_SHAPES.values() for p, _ in shapes)

# FIT[left][right]: the tiles that fit open ends left|right.
FIT: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(WITH[a] | WITH[b] for b in NUMBERS) for a in NUMBERS
)


def _place_entry(i: int, left: int, right: int, code: int) -> tuple[int, int, int, str] | None:
    """(new left, new right, end placed at, the tile as drawn) or None when it does not fit.

    ``code`` NO_END asks for the one end the tile fits; it is None when it fits both.
    """
    fits_l, fits_r = OTHER[i][left] >= 0, OTHER[i][right] >= 0
    if code == NO_END:
        if fits_l == fits_r:
            return None
        code = AT_LEFT if fits_l else AT_RIGHT
    if code == AT_LEFT and fits_l:
        n = OTHER[i][left]
        return n, right, AT_LEFT, DRAWN[n][left]
    if code == AT_RIGHT and fits_r:
        n = OTHER[i][right]
        return left, n, AT_RIGHT, DRAWN[right][n]
    return None


# PLACE[((i * 7 + left) * 7 + right) * 3 + code]: a placement on open ends, precomputed.
PLACE: Final[tuple[tuple[int, int, int, str] | None, ...]] = tuple(
    _place_entry(i, a, b, c)
    for i in range(COUNT)
    for a in NUMBERS
    for b in NUMBERS
    for c in (NO_END, AT_LEFT, AT_RIGHT)
)


def place(i: int, code: int, left: int, right: int) -> tuple[int, int, int, str] | None:
    """Tile ``i`` placed at ``code`` on open ends ``left|right`` (both >= 0).

    Returns (new left, new right, the end it went to, the tile as drawn), or None when the
    placement is not legal (no fit, or NO_END for a tile that fits both ends).
    """
    return PLACE[((i * 7 + left) * 7 + right) * 3 + code]


Line = tuple[tuple[int, int, int], ...]
# PIECES[(a * 7 + b) * SEAT_SLOTS + seat + 1]: the one-tile line ``((a, b, seat),)`` (seat
# NOBODY: the face-up start tile), prebuilt: a move joins its piece to the line's tuple.
PIECES: Final[tuple[Line, ...]] = tuple(
    ((a, b, seat),) for a in NUMBERS for b in NUMBERS for seat in range(NOBODY, SEAT_SLOTS - 1)
)


def piece(a: int, b: int, seat: int) -> Line:
    """``((a, b, seat),)``: a tile as ``Position.line`` holds it, numbers a|b left to right."""
    return PIECES[(a * 7 + b) * SEAT_SLOTS + seat + 1]


def open_with(i: int, facing: int) -> tuple[int, int]:
    """The ends after opening with tile ``i``, ``facing`` toward the left end."""
    return facing, HIGH[i] if facing == LOW[i] else LOW[i]


def seats_from(order: tuple[tuple[int, ...], ...], seat: int) -> tuple[int, ...]:
    """Every seat in turn order starting with ``seat``."""
    after = order[seat]
    return (seat, *after[:-1])


_OPENING: Final[dict[str | None, int]] = {None: -1}


def opening_index(rules: RuleSet) -> int:
    """Index of the tile that must open a set's first deal, -1 if any tile may (cached)."""
    name = rules.first_opening_tile
    i = _OPENING.get(name)
    if i is None:
        i = _OPENING[name] = parse_index(name)
    return i


def opening_mask(rules: RuleSet, first: bool, hand: int) -> int:
    """The tiles ``hand`` may open the empty line with.

    First deal with a ``first_opening_tile``: that tile. Later deals under ``opening_lead``
    "balak": any balak (the lead has already passed to a seat holding one; if no seat held
    one, any tile). Otherwise any tile.
    """
    if first:
        o = opening_index(rules)
        return FULL_MASK if o < 0 else 1 << o
    if rules.opening_lead == "balak" and hand & BALAK_MASK:
        return BALAK_MASK
    return FULL_MASK


def placements(
    hand: int, left: int, right: int, opening: int, discard: bool
) -> list[tuple[int, int]]:
    """Every legal (tile, end code) of ``hand``; a tile fitting two ends appears twice.

    ``left`` < 0: the line is empty and ``opening`` masks the tiles that may open it. A hand
    that cannot place under discard rules gets one DISCARD per tile.
    """
    if left < 0:
        return [(i, NO_END) for i in bits(hand & opening)]
    out: list[tuple[int, int]] = []
    wl, wr = WITH[left], WITH[right]
    for i in bits(hand & (wl | wr)):
        if wl >> i & 1 and wr >> i & 1:
            out.append((i, AT_LEFT))
            out.append((i, AT_RIGHT))
        else:
            out.append((i, NO_END))
    if not out and discard:
        return [(i, DISCARD) for i in bits(hand)]
    return out


def next_seat(hands: list[int], fit: int, after: tuple[int, ...], discard: bool) -> int:
    """Who moves next, from the seats ``after`` in turn order; -1 when nobody can place.

    Pass rules: the first of them able to place (the ones before it pass). Discard rules: the
    first of them, who places or discards, as long as some seat can still place.
    """
    for s in after:
        if hands[s] & fit:
            return after[0] if discard else s
    return -1


def next_drawing(
    hands: list[int], fit: int, after: tuple[int, ...], stock: list[int], draws: list[int]
) -> int:
    """Draw rules: who moves next, from the seats ``after`` in turn order; -1 for a lock.

    Each seat in turn that cannot place draws from the front of ``stock`` (tile indices, in
    dealt order) until it draws a tile that fits, then it moves; with the stock empty it
    passes. ``hands`` and ``stock`` change in place; every draw is appended to ``draws`` as
    ``seat * 32 + tile``. A line nobody can play on is a lock only once the stock is empty:
    until then a stuck seat draws.
    """
    for s in after:
        if hands[s] & fit:
            return s
        while stock:
            i = stock.pop(0)
            hands[s] |= 1 << i
            draws.append(s * 32 + i)
            if fit >> i & 1:
                return s
    return -1


# ``random.Random.random`` is the C generator's own method (``random.Random`` does not override
# it): called directly, it skips the method lookup on the instance that ``rng.random()`` costs.
_GENERATOR: Final = random.Random
_NEXT_FLOAT: Final[Callable[[random.Random], float]] = random.Random.random


def next_float(rng: random.Random) -> float:
    """``rng.random()``: the next float in [0, 1). Every random move and every simulated move
    draws one; a subclass that draws its own way (``random.SystemRandom``) still does."""
    if type(rng) is _GENERATOR:
        return _NEXT_FLOAT(rng)
    return rng.random()


def pick_random(
    hand: int, left: int, right: int, opening: int, rng: random.Random
) -> tuple[int, int]:
    """A uniformly random legal placement as (tile index, end code) of a hand that has one.

    ``opening``: before the first tile, the mask of tiles that may open. A tile that joins two
    different ends counts as two placements; on ends ``n|n`` a tile's two placements give the
    same result, so it counts once and its drawn end is random.
    """
    if left < 0:
        options = bits(hand & opening)
        return options[int(next_float(rng) * len(options))], NO_END
    wl, wr = WITH[left], WITH[right]
    fit = hand & (wl | wr)
    # bits(fit) as its two halves, not joined: this runs on every move.
    lo, hi = LO_BITS[fit & HALF_MASK], HI_BITS[fit >> 14]
    n_lo = len(lo)
    n = n_lo + len(hi)
    if left == right:
        k = int(next_float(rng) * n)
        i = lo[k] if k < n_lo else hi[k - n_lo]
        if wl >> i & 1 and wr >> i & 1:
            return i, AT_LEFT if next_float(rng) < 0.5 else AT_RIGHT
        return i, NO_END
    two = hand & wl & wr  # tiles joining both ends: a second placement each
    if not two:
        k = int(next_float(rng) * n)
        return (lo[k] if k < n_lo else hi[k - n_lo]), NO_END
    twos = bits(two)
    k = int(next_float(rng) * (n + len(twos)))
    if k >= n:
        return twos[k - n], AT_RIGHT
    i = lo[k] if k < n_lo else hi[k - n_lo]
    return i, AT_LEFT if two >> i & 1 else NO_END


# -- the outcome ------------------------------------------------------------------------------
Outcome = tuple[str, str, int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def outcome(
    rules: RuleSet,
    how: str,
    seat: int,
    i: int,
    code: int,
    left: int,
    right: int,
    hands: tuple[int, ...],
    discards: tuple[int, ...],
) -> Outcome:
    """Score a deal that just ended: (end, result, winner, points, counts, discards).

    ``how``: "domi" (``seat`` placed its last tile ``i`` at ``code`` on ends ``left|right``),
    "discard" (it discarded its last tile ``i``) or "kandang" (nobody can place: ``seat``
    locked the board). ``hands`` are the hands after the move; ``discards`` before it. Count
    scoring (Klasik) ranks every seat by what it answers for, hand + discards.
    """
    ds = discards
    if how == "discard":
        as_list = list(ds)
        as_list[seat] |= 1 << i
        ds = tuple(as_list)
    if rules.counts:
        counted = score_counts(rules, [h | d for h, d in zip(hands, ds, strict=True)])
        end = "kandang" if how == "kandang" else "domi"
        return end, how, counted.winner, counted.points, counted.counts, ds
    pips = tuple([mask_pips(h) for h in hands])
    if how == "kandang":
        kandang = score_kandang(rules, seat, pips)
        points = tuple(side_points(rules, kandang.awards))
        return "kandang", "kandang", kandang.winner, points, pips, ds
    others = 0  # a number is used up when no other seat holds it (§1.2)
    for h in hands:
        others |= h
    domi = classify_domi(rules, left, right, i, END_NAMES[code], others)
    return "domi", domi.result, seat, tuple(side_points(rules, {seat: domi.points})), pips, ds


# -- playing a deal out -----------------------------------------------------------------------
def play_out(
    rules: RuleSet,
    hands: list[int],
    discards: list[int],
    left: int,
    right: int,
    seat: int,
    opening: int,
    rng: random.Random,
    first: tuple[int, int] | None = None,
    stock: list[int] | None = None,
) -> tuple[int, ...]:
    """Play a deal to its end from a position with uniformly random moves; the points.

    ``seat`` is to move (it can place, or must discard); ``left`` < 0 before the opening,
    ``opening`` then masks the tiles it may open with. ``first``: the (tile, end code) that
    ``seat`` plays first, a legal one; random when None. ``hands`` and ``discards`` are
    changed in place. ``stock``: under draw rules, the boneyard in drawing order (changed in
    place). The same placements, turn order and scoring as ``play``, with no states or
    events: it is what the hard bot's simulations run.
    """
    order = rules.order
    discard = rules.discard
    drawing = rules.draws
    if stock is None:
        stock = []
    draws: list[int] = []
    while True:
        hand = hands[seat]
        if left >= 0 and not hand & FIT[left][right]:
            if first is None:
                tiles = bits(hand)  # discard rules: a seat that cannot place lays a tile down
                i = tiles[int(next_float(rng) * len(tiles))]
            else:
                i, first = first[0], None
            hands[seat] = hand = hand & ~(1 << i)
            if not hand:
                return outcome(
                    rules, "discard", seat, i, DISCARD, left, right, tuple(hands), tuple(discards)
                )[3]
            discards[seat] |= 1 << i
            seat = next_seat(hands, FIT[left][right], order[seat], discard)
            continue
        if first is None:
            i, code = pick_random(hand, left, right, opening, rng)
        else:
            (i, code), first = first, None
        before_l, before_r = left, right
        if left < 0:
            left, right = LOW[i], HIGH[i]
        else:
            entry = PLACE[((i * 7 + left) * 7 + right) * 3 + code]
            assert entry is not None
            left, right, code = entry[0], entry[1], entry[2]
        hands[seat] = hand = hand & ~(1 << i)
        if not hand:
            return outcome(
                rules, "domi", seat, i, code, before_l, before_r, tuple(hands), tuple(discards)
            )[3]
        if drawing:
            nxt = next_drawing(hands, FIT[left][right], order[seat], stock, draws)
        else:
            nxt = next_seat(hands, FIT[left][right], order[seat], discard)
        if nxt < 0:
            return outcome(
                rules, "kandang", seat, i, code, left, right, tuple(hands), tuple(discards)
            )[3]
        seat = nxt
