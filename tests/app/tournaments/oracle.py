"""Independent readings of docs/TOURNAMENTS.md that the tests compare the package with."""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction

from app.tournaments.formats import Table, TableResult

LADDER = {"tunggal": (3, 2, 1, 0), "ganda": (2, 0)}  # docs/TOURNAMENTS.md, "Scoring"
BYE = {"tunggal": Fraction(3, 2), "ganda": Fraction(1)}


def documented_points(mode: str, result: TableResult) -> dict[int, Fraction]:
    """Hand out the ladder's awards in order of place; entrants tied on a place pool theirs."""
    ranked = sorted(zip(result.places, result.table.entrants, strict=True))
    awards = dict(zip((e for _, e in ranked), LADDER[mode], strict=True))
    points = {}
    for place, entrant in ranked:
        tied = [e for p, e in ranked if p == place]
        points[entrant] = Fraction(sum(awards[e] for e in tied), len(tied))
    return points


def random_result(table: Table, rng: random.Random) -> TableResult:
    """A result with ties now and then: places from random scores in 0..3."""
    scores = [rng.randint(0, 3) for _ in table.entrants]
    places = tuple(1 + sum(o > s for o in scores) for s in scores)
    return TableResult(table, places, tuple(scores))


def partitions(items: list[int], size: int) -> Iterator[list[tuple[int, ...]]]:
    """Every split of ``items`` into groups of ``size`` (brute force)."""
    if not items:
        yield []
        return
    head, rest = items[0], items[1:]
    from itertools import combinations

    for picked in combinations(rest, size - 1):
        left = [e for e in rest if e not in picked]
        for tail in partitions(left, size):
            yield [(head, *picked), *tail]
