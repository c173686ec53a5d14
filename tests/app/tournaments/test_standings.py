import random
from collections import defaultdict
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.tournaments.formats import Bye, Entrant, Table, TableResult, TournamentError
from app.tournaments.standings import standings
from app.tournaments.swiss import pair_round

from .oracle import BYE, documented_points, random_result


def result(round_: int, number: int, entrants, places, deal_points) -> TableResult:
    return TableResult(Table(round_, number, tuple(entrants)), tuple(places), tuple(deal_points))


def test_points_then_deal_points() -> None:
    results = [
        result(1, 1, (1, 2, 3, 4), (1, 2, 3, 4), (50, 40, 30, 20)),
        result(1, 2, (5, 6, 7, 8), (1, 2, 2, 4), (60, 35, 35, 10)),
        result(2, 1, (1, 5, 6, 2), (1, 2, 3, 4), (45, 44, 20, 18)),
        result(2, 2, (3, 7, 8, 4), (4, 3, 1, 2), (5, 10, 60, 22)),
    ]
    table = standings("tunggal", range(1, 9), results)
    assert [(s.rank, s.entrant, s.points, s.deal_points) for s in table] == [
        (1, 1, 6, 95),
        (2, 5, 5, 104),
        (3, 8, 3, 70),
        (4, 6, Fraction(5, 2), 55),  # 6 and 7 share second place in round 1: 3/2 each
        (5, 7, Fraction(5, 2), 45),
        (6, 2, 2, 58),
        (7, 4, 2, 42),
        (8, 3, 1, 35),
    ]
    by = {s.entrant: s for s in table}
    # Buchholz: every opponent's points, once per meeting (1 met 2 twice).
    assert by[1].buchholz == 2 + 1 + 2 + 5 + Fraction(5, 2) + 2


def test_buchholz_then_the_earlier_entry() -> None:
    win, lose = (1, 2), (7, 3)
    results = [
        result(1, 1, (1, 2), win, lose),
        result(1, 2, (3, 4), win, lose),
        result(1, 3, (5, 6), win, lose),
        result(2, 1, (1, 3), win, lose),
        result(2, 2, (2, 6), win, lose),
        result(2, 3, (4, 5), win, lose),
    ]
    table = standings("ganda", range(1, 7), results)
    # 2, 3, 4 and 5 have 2 points and 10 deal points each; their opponents' points decide:
    # 3 met 4 and 1 (6), 2 met 1 and 6 (4), 4 met 3 and 5 (4), 5 met 6 and 4 (2).
    assert [(s.entrant, s.points, s.deal_points, s.buchholz) for s in table] == [
        (1, 4, 14, 4),
        (3, 2, 10, 6),
        (2, 2, 10, 4),
        (4, 2, 10, 4),
        (5, 2, 10, 2),
        (6, 0, 6, 4),
    ]


def test_byes_score_the_average_and_count_for_no_opponent() -> None:
    results = [result(1, 1, (1, 2), (1, 2), (7, 2))]
    table = {s.entrant: s for s in standings("ganda", [1, 2, 3], results, [Bye(1, 3)])}
    assert table[3].points == 1 and table[3].byes == 1 and table[3].buchholz == 0
    assert table[3].played == 0 and table[1].played == 1
    assert table[3].tiebreaks() == {"deal_points": 0, "buchholz": 0}


def test_bad_results_are_refused() -> None:
    one = result(1, 1, (1, 2), (1, 2), (7, 2))
    with pytest.raises(TournamentError):
        standings("ganda", [1], [one])  # 2 never entered
    with pytest.raises(TournamentError):
        standings("ganda", [1, 2], [one, result(1, 2, (1, 2), (1, 2), (7, 0))])  # twice in round 1
    with pytest.raises(TournamentError):
        standings("ganda", [1, 2], [one], [Bye(1, 2)])  # a table and a bye in one round
    with pytest.raises(TournamentError):
        standings("tunggal", [1, 2], [one])  # a table of two in Tunggal
    with pytest.raises(TournamentError):
        standings("ganda", [1, 1, 2], [one])


@settings(max_examples=40, deadline=None)
@given(
    mode=st.sampled_from(["tunggal", "ganda"]),
    count=st.integers(4, 14),
    rounds=st.integers(1, 5),
    seed=st.integers(0, 2**32),
)
def test_standings_equal_the_documented_points_of_the_results(mode, count, rounds, seed) -> None:
    rng = random.Random(seed)
    entrants = [Entrant(i, rng.random()) for i in range(count)]
    results: list[TableResult] = []
    byes: list[Bye] = []
    for number in range(1, rounds + 1):
        pairing = pair_round(mode, number, entrants, results, byes, rng=rng)
        results.extend(random_result(table, rng) for table in pairing.tables)
        byes.extend(pairing.byes)
    expected: dict[int, Fraction] = defaultdict(Fraction)
    deal: dict[int, int] = defaultdict(int)
    for r in results:
        for entrant, points in documented_points(mode, r).items():
            expected[entrant] += points
        for entrant, dealt in zip(r.table.entrants, r.deal_points, strict=True):
            deal[entrant] += dealt
    for bye in byes:
        expected[bye.entrant] += BYE[mode]
    table = standings(mode, range(count), results, byes)
    assert {s.entrant: s.points for s in table} == {i: expected[i] for i in range(count)}
    assert {s.entrant: s.deal_points for s in table} == {i: deal[i] for i in range(count)}
    keys = [(-s.points, -s.deal_points, -s.buchholz, s.entrant) for s in table]
    assert keys == sorted(keys)
    assert [s.rank for s in table] == list(range(1, count + 1))
