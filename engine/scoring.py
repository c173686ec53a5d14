"""Scoring a deal (RULES.md §1.2-1.4 and §2). The points themselves are read from the ``RuleSet``.

Functions work on tile indices and hand masks (see ``engine.tiles``) so the same code scores the
real end of a deal and the "what would this placement score" hints of a seat's view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.record import Record, mypyc_attr
from engine.rules import RuleSet
from engine.tiles import HIGH, INDEX, LOW, PIPS, WITH, bits, mask_pips

LEFT: Final = "left"
RIGHT: Final = "right"


@mypyc_attr(acyclic=True)
class DomiScore(Record):
    _fields = (
        "result",  # biasa, balak, ceki, ceki_habis, ceki_balak, ceki_palang
        "points",
        "used_up",  # the end numbers that were used up (for the record)
    )
    __slots__ = _fields

    def __init__(self, result: str, points: int, used_up: tuple[int, ...]) -> None:
        self.result = result
        self.points = points
        self.used_up = used_up


def classify_domi(
    rules: RuleSet, left: int, right: int, tile: int, end: str | None, others: int
) -> DomiScore:
    """Score the last tile ``tile`` placed on ends ``left|right`` at ``end``.

    ``others``: mask of every tile held by the seats other than the one going out. A number is
    used up when no tile of ``others`` bears it (§1.2).
    """
    a, b = LOW[tile], HIGH[tile]
    award = rules.domi_award
    if left != right and (a, b) in ((left, right), (right, left)):
        used = tuple(n for n in (left, right) if not others & WITH[n])
        if not used:
            return DomiScore("ceki", award["ceki"], used)
        if len(used) == 2:
            return DomiScore("ceki_habis", award["ceki_habis"], used)
        # Placed on the left end it matches ``left`` and leaves ``right`` as the last open
        # number (both ends then show it); and the other way round.
        last_open = right if end == LEFT else left
        dead, live = rules.ceki_one_used_up_points
        return DomiScore("ceki", dead if last_open == used[0] else live, used)
    if left == right and a == b == left:
        if others & WITH[left]:
            return DomiScore("ceki_balak", award["ceki_balak"], ())
        return DomiScore("ceki_palang", award["ceki_palang"], (left,))
    if a == b:
        return DomiScore("balak", award["balak"], ())
    return DomiScore("biasa", award["biasa"], ())


def side_points(rules: RuleSet, awards: dict[int, int]) -> list[int]:
    """Per-seat points of a deal from the awards by seat (Ganda: both partners show it)."""
    points = [0] * rules.players
    side_seats = rules.side_seats
    for seat, p in awards.items():
        for s in side_seats[seat]:
            points[s] += p
    return points


@mypyc_attr(acyclic=True)
class KandangScore(Record):
    _fields = ("awards", "winner")  # awards: seat -> points (Ganda: to that seat's team)
    __slots__ = _fields

    def __init__(self, awards: dict[int, int], winner: int) -> None:
        self.awards = awards
        self.winner = winner


def score_kandang(rules: RuleSet, locker: int, pips: Sequence[int]) -> KandangScore:
    """Score a deal ``locker`` locked (§1.3) from the pips left in each hand."""
    table = rules.kandang_table
    sides = rules.sides
    side = sides[locker]
    after = rules.order[locker]
    opponents = [s for s in after if sides[s] != side]  # in turn order after the locker
    theirs = [pips[s] for s in opponents]
    p = pips[locker]
    m = min(theirs)
    if p < m:
        return KandangScore({locker: table.locker_lower}, locker)
    if rules.teams:
        # The opposing team scores; its seat with fewer pips wins (first in turn order on a tie).
        pts = table.tie_opponent if p == m else table.locker_higher[0]
        best = opponents[theirs.index(m)]
        return KandangScore({best: pts}, _opener(rules, locker, best))
    awards: dict[int, int] = {}
    if p == m:
        for s, c in zip(opponents, theirs, strict=True):
            if c == m:
                awards[s] = table.tie_opponent
        if table.tie_locker:
            awards[locker] = table.tie_locker
    else:
        ranked = sorted(theirs)
        higher = rules.kandang_tie_share == "higher"
        for s, c in zip(opponents, theirs, strict=True):
            # Tied opponents share the higher award (the rank of the first of them) or the lower.
            rank = ranked.index(c) if higher else len(ranked) - 1 - ranked[::-1].index(c)
            awards[s] = table.locker_higher[rank]
    top = max(awards.values())
    best = next(s for s in after if awards.get(s, 0) == top)
    return KandangScore(awards, _opener(rules, locker, best))


def _opener(rules: RuleSet, locker: int, best: int) -> int:
    return locker if rules.kandang_opener == "locker" else best


# -- Klasik: counts (RULES.md §2) ---------------------------------------------------------------
ZERO_ZERO: Final = INDEX[0][0]
ZERO_ZERO_BIT: Final = 1 << ZERO_ZERO
OTHER_BLANKS: Final = WITH[0] & ~ZERO_ZERO_BIT
ZERO_ZERO_PENALTY: Final = 25


def zero_zero_counts_25(rules: RuleSet, tiles: int) -> bool:
    """Option: 0-0 among ``tiles`` counts 25, unless they also hold another blank (then 0)."""
    return rules.zero_zero_25 and bool(tiles & ZERO_ZERO_BIT) and not tiles & OTHER_BLANKS


def count_of(rules: RuleSet, tiles: int) -> int:
    """A seat's count: the pips of the tiles it answers for (hand and discards)."""
    extra = ZERO_ZERO_PENALTY if zero_zero_counts_25(rules, tiles) else 0
    return mask_pips(tiles) + extra


def lowest_tile(rules: RuleSet, tiles: int) -> tuple[int, int]:
    """Tie-break key: (value, low end) of the seat's lowest single tile; (-1, -1) with none.

    A seat with no tile at all ranks below any tile. The value of 0-0 is what it counts.
    """
    if not tiles:
        return (-1, -1)
    big = zero_zero_counts_25(rules, tiles)
    return min(
        (ZERO_ZERO_PENALTY if big and i == ZERO_ZERO else PIPS[i], LOW[i]) for i in bits(tiles)
    )


@mypyc_attr(acyclic=True)
class CountScore(Record):
    _fields = ("counts", "winner", "points")
    __slots__ = _fields

    def __init__(self, counts: tuple[int, ...], winner: int, points: tuple[int, ...]) -> None:
        self.counts = counts
        self.winner = winner
        self.points = points


def score_counts(rules: RuleSet, tiles: Sequence[int]) -> CountScore:
    """Score a Klasik deal from what each seat answers for (hand | discards, masks).

    Lowest count wins; ties: the lowest single tile, then its lower end (RULES.md §2).
    "difference": each seat scores, against every seat with a higher count, the difference;
    "penalty": each seat scores its own count (its total is a penalty; lowest wins the set).
    """
    counts = tuple(count_of(rules, m) for m in tiles)
    seats = range(len(counts))
    winner = min(seats, key=lambda s: (counts[s], lowest_tile(rules, tiles[s]), s))
    if rules.scoring == "penalty":
        points = counts
    else:
        points = tuple(sum(c - counts[s] for c in counts if c > counts[s]) for s in seats)
    return CountScore(counts, winner, points)
