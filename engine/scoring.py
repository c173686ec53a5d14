"""Scoring a deal (RULES.md §1.2-1.4). The points themselves are read from the ``RuleSet``.

Functions work on tile indices and hand masks (see ``engine.tiles``) so the same code scores the
real end of a deal and the "what would this placement score" hints of a seat's view.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.rules import RuleSet
from engine.tiles import HIGH, LOW, WITH

LEFT, RIGHT = "left", "right"


@dataclass(frozen=True, slots=True)
class DomiScore:
    result: str  # biasa, balak, ceki, ceki_habis, ceki_balak, ceki_palang
    points: int
    used_up: tuple[int, ...]  # the end numbers that were used up (for the record)


def classify_domi(
    rules: RuleSet, left: int, right: int, tile: int, end: str | None, others: int
) -> DomiScore:
    """Score the last tile ``tile`` placed on ends ``left|right`` at ``end``.

    ``others``: mask of every tile held by the seats other than the one going out. A number is
    used up when no tile of ``others`` bears it (§1.2).
    """
    a, b = LOW[tile], HIGH[tile]
    if left != right and {a, b} == {left, right}:
        used = tuple(n for n in (left, right) if not others & WITH[n])
        if not used:
            return DomiScore("ceki", rules.domi("ceki"), used)
        if len(used) == 2:
            return DomiScore("ceki_habis", rules.domi("ceki_habis"), used)
        # Placed on the left end it matches ``left`` and leaves ``right`` as the last open
        # number (both ends then show it); and the other way round.
        last_open = right if end == LEFT else left
        dead, live = rules.ceki_one_used_up_points
        return DomiScore("ceki", dead if last_open == used[0] else live, used)
    if left == right and a == b == left:
        if others & WITH[left]:
            return DomiScore("ceki_balak", rules.domi("ceki_balak"), ())
        return DomiScore("ceki_palang", rules.domi("ceki_palang"), (left,))
    if a == b:
        return DomiScore("balak", rules.domi("balak"), ())
    return DomiScore("biasa", rules.domi("biasa"), ())


def side_points(rules: RuleSet, awards: dict[int, int]) -> list[int]:
    """Per-seat points of a deal from the awards by seat (Ganda: both partners show it)."""
    points = [0] * rules.players
    for seat, p in awards.items():
        for s in rules.partners(seat):
            points[s] += p
    return points


@dataclass(frozen=True, slots=True)
class KandangScore:
    awards: dict[int, int]  # seat -> points awarded (Ganda: to that seat's team)
    winner: int


def _after(rules: RuleSet, seat: int) -> list[int]:
    """Every seat in turn order starting after ``seat`` (``seat`` itself last)."""
    n = rules.players
    return [(seat + rules.direction * k) % n for k in range(1, n + 1)]


def score_kandang(rules: RuleSet, locker: int, pips: list[int] | tuple[int, ...]) -> KandangScore:
    table = rules.kandang_table
    order = _after(rules, locker)
    opponents = [s for s in order if rules.team_of(s) != rules.team_of(locker)]
    p = pips[locker]
    m = min(pips[s] for s in opponents)
    if p < m:
        return KandangScore({locker: table.locker_lower}, locker)
    if rules.teams:
        # The opposing team scores; its seat with fewer pips wins (first in turn order on a tie).
        pts = table.tie_opponent if p == m else table.locker_higher[0]
        best = next(s for s in opponents if pips[s] == m)
        return KandangScore({best: pts}, _opener(rules, locker, best))
    awards: dict[int, int] = {}
    if p == m:
        for s in opponents:
            if pips[s] == m:
                awards[s] = table.tie_opponent
        if table.tie_locker:
            awards[locker] = table.tie_locker
    else:
        ranked = sorted(pips[s] for s in opponents)
        for s in opponents:
            if rules.kandang_tie_share == "higher":
                rank = sum(1 for x in ranked if x < pips[s])
            else:
                rank = sum(1 for x in ranked if x <= pips[s]) - 1
            awards[s] = table.locker_higher[rank]
    top = max(awards.values())
    best = next(s for s in order if awards.get(s, 0) == top)
    return KandangScore(awards, _opener(rules, locker, best))


def _opener(rules: RuleSet, locker: int, best: int) -> int:
    return locker if rules.kandang_opener == "locker" else best
