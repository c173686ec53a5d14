"""scoring.py: every row of RULES.md §1.2 and §1.3."""

from __future__ import annotations

import pytest

from engine import pordi
from engine.scoring import classify_domi, score_kandang, side_points
from engine.tiles import FULL_MASK, INDEX, WITH

T = pordi()
G = pordi("ganda")


def idx(a: int, b: int) -> int:
    return INDEX[a][b]


def others_without(*numbers: int) -> int:
    """A mask of 'tiles other seats hold' that bears none of ``numbers``."""
    m = FULL_MASK
    for n in numbers:
        m &= ~WITH[n]
    return m


@pytest.mark.parametrize(
    ("left", "right", "tile", "end", "others", "result", "points"),
    [
        (2, 5, (5, 4), None, FULL_MASK, "biasa", 1),
        (2, 5, (5, 5), None, FULL_MASK, "balak", 2),
        (2, 5, (2, 5), "left", FULL_MASK, "ceki", 2),
        (2, 5, (2, 5), "left", others_without(2, 5), "ceki_habis", 3),
        # one end used up (5): board ends dead when 5 is the last open number
        (2, 5, (2, 5), "left", others_without(5), "ceki", 2),  # left: matches 2, 5 stays
        (2, 5, (2, 5), "right", others_without(5), "ceki", 1),  # right: matches 5, 2 stays
        (3, 3, (3, 3), "left", FULL_MASK, "ceki_balak", 3),
        (3, 3, (3, 3), "right", others_without(3), "ceki_palang", 4),
        (3, 3, (3, 1), "left", others_without(3), "biasa", 1),
    ],
)
def test_domi_table(
    left: int, right: int, tile: tuple[int, int], end: str | None, others: int,
    result: str, points: int,
) -> None:  # fmt: skip
    got = classify_domi(T, left, right, idx(*tile), end, others)
    assert (got.result, got.points) == (result, points)


def test_ceki_one_used_up_switch() -> None:
    flat = pordi(ceki_one_used_up_points=[2, 2])
    got = classify_domi(flat, 2, 5, idx(2, 5), "right", others_without(5))
    assert (got.result, got.points) == ("ceki", 2)


def test_ganda_points_show_on_both_partners() -> None:
    assert side_points(G, {1: 3}) == [0, 3, 0, 3]
    assert side_points(T, {1: 3}) == [0, 3, 0, 0]


@pytest.mark.parametrize(
    ("locker", "pips", "awards", "winner"),
    [
        (0, [4, 5, 9, 6], {0: 3}, 0),  # p < m
        (0, [6, 11, 13, 6], {3: 1}, 3),  # p = m: the tied opponent
        (0, [6, 6, 13, 6], {1: 1, 3: 1}, 1),  # two tied: first after the locker wins
        (2, [6, 6, 13, 6], {3: 3, 0: 3, 1: 3}, 3),  # all tied above: share the top award
        (0, [9, 5, 5, 9], {1: 3, 2: 3, 3: 1}, 1),  # 5,5,9 -> 3,3,1
        (0, [9, 7, 5, 6], {2: 3, 3: 2, 1: 1}, 2),
        (1, [5, 9, 9, 8], {0: 3, 3: 2, 2: 1}, 0),
    ],
)
def test_tunggal_kandang(locker: int, pips: list[int], awards: dict[int, int], winner: int) -> None:
    k = score_kandang(T, locker, pips)
    assert k.awards == awards and k.winner == winner


def test_tunggal_kandang_switches() -> None:
    lower = pordi(kandang_tie_share="lower")
    assert score_kandang(lower, 0, [9, 5, 5, 9]).awards == {1: 2, 2: 2, 3: 1}
    plus_one = pordi(kandang_tunggal={"locker_lower": 3, "tie_opponent": 1, "tie_locker": 1,
                                      "locker_higher": [3, 2, 1]})  # fmt: skip
    assert score_kandang(plus_one, 0, [6, 11, 13, 6]).awards == {3: 1, 0: 1}
    by_locker = pordi(kandang_opener="locker")
    assert score_kandang(by_locker, 0, [9, 5, 5, 9]).winner == 0


@pytest.mark.parametrize(
    ("locker", "pips", "awards", "winner"),
    [
        (0, [5, 13, 1, 15], {0: 2}, 0),  # partner's pips are not compared
        (0, [5, 5, 19, 15], {1: 1}, 1),
        (0, [9, 7, 1, 5], {3: 3}, 3),  # opposing team's seat with fewer pips
        (2, [9, 7, 12, 7], {3: 3}, 3),  # tie inside the team: first after the locker
    ],
)
def test_ganda_kandang(locker: int, pips: list[int], awards: dict[int, int], winner: int) -> None:
    k = score_kandang(G, locker, pips)
    assert k.awards == awards and k.winner == winner
    assert side_points(G, k.awards)[winner] == max(side_points(G, k.awards))
