"""Seating a round's entrants at tables: who sits out, and who sits with whom.

One search serves the Swiss rounds and the knockout pools (docs/TOURNAMENTS.md, "Pairing"):
entrants come in a fixed order (by standings, or by rating), and ``seat_tables`` splits them into
tables so that the *repeat cost* — over every two entrants seated together, the number of times
they already met — is as small as it can be, preferring, among splits of equal cost, the first in
the search's order: the top entrant left with the next ones below them. So a repeat-free round is
found whenever one exists, and closest scores sit together.

The search is a depth-first search with backtracking: each table is headed by the top entrant
left, who is seated with the first entrants below them that keep the cost within a limit. A
first pass allows no repeat at all, and its first split is the answer when there is one. When
there is none, a greedy split (each table the cheapest among the next few entrants), repaired by
swaps (an entrant of a table with a repeat trades places with one of a table nearby while that
lowers the cost), bounds the cost, and a branch-and-bound pass finds the first split in the
search's order of the least cost. Both passes share ``budget`` steps; the search is exact unless
it runs out of them, and then the best split it reached (or the repaired greedy one) stands.

A min-cost grouping into fours is a hard problem (three-dimensional matching), so an exact search
with a step limit and a repair beats either alone: small rounds, where repeats are hard to avoid,
are solved exactly (tests/app/tournaments compare them with brute force); in large ones the last
entrants of the order (the lowest scores, who have met each other often) may need a partner from
far above, which backtracking reaches too late and a swap finds at once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from itertools import combinations

from app.tournaments.formats import Table, TournamentError

Pair = tuple[int, int]
BUDGET = 100_000  # steps (entrants tried at a table) per call; enough to be exact up to 12 players
GREEDY_WINDOW = 8  # the greedy fallback's look-ahead: the next entrants it chooses among


def pair(a: int, b: int) -> Pair:
    return (a, b) if a < b else (b, a)


def meetings(tables: Iterable[Table]) -> Counter[Pair]:
    """How many times each two entrants sat at one table."""
    met: Counter[Pair] = Counter()
    for table in tables:
        for a, b in combinations(table.entrants, 2):
            met[pair(a, b)] += 1
    return met


def table_cost(members: Sequence[int], met: Mapping[Pair, int]) -> int:
    return sum(met.get(pair(a, b), 0) for a, b in combinations(members, 2))


def choose_byes(order: Sequence[int], count: int, byes_had: Mapping[int, int]) -> list[int]:
    """The ``count`` entrants who sit out: the fewest byes so far first, then from the bottom of
    ``order``. Nobody gets a second bye while someone in ``order`` has had none."""
    if not 0 <= count <= len(order):
        raise TournamentError(f"cannot give {count} byes to {len(order)} entrants")
    position = {e: i for i, e in enumerate(order)}
    return sorted(order, key=lambda e: (byes_had.get(e, 0), -position[e]))[:count]


class _OutOfSteps(Exception):
    pass


def seat_tables(
    order: Sequence[int],
    size: int,
    met: Mapping[Pair, int],
    *,
    budget: int = BUDGET,
) -> list[tuple[int, ...]]:
    """Split ``order`` (a multiple of ``size`` long) into tables of ``size`` at the least repeat
    cost; tables come out in order of their top entrant."""
    if size < 2 or len(order) % size:
        raise TournamentError(f"{len(order)} entrants do not fill tables of {size}")
    if len(set(order)) != len(order):
        raise TournamentError("an entrant is listed twice", field="entrants")
    if not order:
        return []
    search = _Search(size, met, budget)
    try:
        found = search.run(list(order), 0)  # the first repeat-free split, if there is one
    except _OutOfSteps:
        return _repair(_greedy(order, size, met), met)
    if found is not None:
        return found
    # Repeats cannot be avoided: a repaired greedy split bounds the cost, then branch and bound
    # finds the first split in the search's order of the least cost (or the best it reached).
    fallback = _repair(_greedy(order, size, met), met)
    with suppress(_OutOfSteps):
        search.run(list(order), sum(table_cost(t, met) for t in fallback), exhaust=True)
    return search.best if search.best is not None else fallback


class _Search:
    """The depth-first search of one pass, on an explicit stack (a round may hold hundreds of
    tables): a frame per table placed, each trying the tables its top entrant can head."""

    def __init__(self, size: int, met: Mapping[Pair, int], budget: int) -> None:
        self.size = size
        self.met = met
        self.budget = budget
        self.steps = 0
        self.limit = 0
        self.best: list[tuple[int, ...]] | None = None

    def run(
        self, order: list[int], limit: int, *, exhaust: bool = False
    ) -> list[tuple[int, ...]] | None:
        """The first split in the search's order that costs at most ``limit``, or None.

        With ``exhaust``, go on after each split found, now asking for a cheaper one, and
        keep the last in ``best``: the first split of the least cost."""
        self.limit = limit
        self.best = None
        found: list[tuple[int, ...]] = []
        stack = [(order, self._tables(order, 0))]
        while stack:
            rest, tables = stack[-1]
            step = next(tables, None)
            if step is None:
                stack.pop()
                if found:
                    found.pop()
                continue
            members, cost = step
            seated = set(members)
            left = [e for e in rest if e not in seated]
            if not left:
                self.best = [*found, members]
                if not exhaust or cost == 0:
                    return self.best
                self.limit = cost - 1
                continue
            found.append(members)
            stack.append((left, self._tables(left, cost)))
        return self.best

    def _tables(self, rest: list[int], cost: int) -> Iterator[tuple[tuple[int, ...], int]]:
        return self._extend((rest[0],), rest, 1, cost)

    def _extend(
        self, members: tuple[int, ...], rest: list[int], start: int, cost: int
    ) -> Iterator[tuple[tuple[int, ...], int]]:
        """Every way to complete ``members`` from ``rest[start:]`` within the limit, in order."""
        if len(members) == self.size:
            yield members, cost
            return
        for k in range(start, len(rest) - (self.size - len(members)) + 1):
            self.steps += 1
            if self.steps > self.budget:
                raise _OutOfSteps
            entrant = rest[k]
            total = cost + sum(self.met.get(pair(m, entrant), 0) for m in members)
            if total > self.limit:
                continue
            yield from self._extend((*members, entrant), rest, k + 1, total)


def _greedy(order: Sequence[int], size: int, met: Mapping[Pair, int]) -> list[tuple[int, ...]]:
    rest = list(order)
    tables = []
    while rest:
        head, window = rest[0], rest[1 : 1 + GREEDY_WINDOW]
        members = min(
            ((head, *picked) for picked in combinations(window, size - 1)),
            key=lambda members: table_cost(members, met),
        )
        tables.append(members)
        rest = [e for e in rest if e not in members]
    return tables


def _repair(tables: list[tuple[int, ...]], met: Mapping[Pair, int]) -> list[tuple[int, ...]]:
    """Swap entrants between tables while a swap lowers the repeat cost (nearest tables first).

    Every swap lowers the total by one at least, so this ends after at most that many swaps."""
    seats = [list(t) for t in tables]
    costs = [table_cost(t, met) for t in seats]
    improved = True
    while improved:
        improved = False
        for i in range(len(seats)):
            if costs[i] == 0:
                continue
            for j in sorted(range(len(seats)), key=lambda j: (abs(j - i), j)):
                if j == i:
                    continue
                if _improve(seats, costs, i, j, met):
                    improved = True
                    break
    return [tuple(t) for t in seats]


def _improve(
    seats: list[list[int]], costs: list[int], i: int, j: int, met: Mapping[Pair, int]
) -> bool:
    for a in range(len(seats[i])):
        for b in range(len(seats[j])):
            mine, theirs = list(seats[i]), list(seats[j])
            mine[a], theirs[b] = theirs[b], mine[a]
            new_mine, new_theirs = table_cost(mine, met), table_cost(theirs, met)
            if new_mine + new_theirs < costs[i] + costs[j]:
                seats[i], seats[j] = mine, theirs
                costs[i], costs[j] = new_mine, new_theirs
                return True
    return False
