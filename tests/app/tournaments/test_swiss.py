import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.tournaments.formats import Bye, Entrant, Pairing, Table, TableResult, TournamentError
from app.tournaments.grouping import meetings, seat_tables
from app.tournaments.swiss import bye_count, late_join_allowed, pair_round

from .oracle import partitions, random_result

SIZE = {"tunggal": 4, "ganda": 2}


def repeat_cost(tables, met) -> int:
    return sum(met[tuple(sorted(p))] for t in tables for p in combinations(t, 2))


def play(mode, count, rounds, seed):
    """A Swiss of ``rounds`` rounds with random results: (entrants, pairings, results, byes)."""
    rng = random.Random(seed)
    entrants = [Entrant(i, rng.random()) for i in range(count)]
    results: list[TableResult] = []
    byes: list[Bye] = []
    pairings: list[Pairing] = []
    for number in range(1, rounds + 1):
        pairing = pair_round(mode, number, entrants, results, byes)
        pairings.append(pairing)
        results.extend(random_result(t, rng) for t in pairing.tables)
        byes.extend(pairing.byes)
    return entrants, pairings, results, byes


def test_round_one_seats_by_rating_or_by_a_seeded_shuffle() -> None:
    entrants = [Entrant(i, rating) for i, rating in enumerate([5, 9, 1, 7, 3, 8, 2, 6])]
    pairing = pair_round("tunggal", 1, entrants)
    assert [t.entrants for t in pairing.tables] == [(1, 5, 3, 7), (0, 4, 6, 2)]
    shuffled = pair_round("tunggal", 1, entrants, rng=random.Random(7))
    again = pair_round("tunggal", 1, entrants, rng=random.Random(7))
    assert shuffled == again
    assert sorted(shuffled.entrants()) == list(range(8))


def test_closest_scores_sit_together() -> None:
    entrants = [Entrant(i, 100 - i) for i in range(16)]
    first = pair_round("tunggal", 1, entrants)
    results = [TableResult(t, (1, 2, 3, 4), (40, 30, 20, 10)) for t in first.tables]
    second = pair_round("tunggal", 2, entrants, results)
    winners = {t.entrants[0] for t in first.tables}
    seconds = {t.entrants[1] for t in first.tables}
    assert set(second.tables[0].entrants) == winners
    assert set(second.tables[1].entrants) == seconds
    assert repeat_cost([t.entrants for t in second.tables], meetings(first.tables)) == 0


def costs_of(pairings) -> list[int]:
    met = Counter[tuple[int, int]]()
    costs = []
    for pairing in pairings:
        costs.append(repeat_cost([t.entrants for t in pairing.tables], met))
        met.update(meetings(pairing.tables))
    return costs


@pytest.mark.parametrize("seed", range(5))
def test_sixteen_players_meet_no_one_twice_in_three_rounds(seed) -> None:
    _, pairings, _, _ = play("tunggal", 16, 4, seed)
    assert costs_of(pairings)[:3] == [0, 0, 0]


def test_after_everyone_has_met_each_table_repeats_its_six_pairs_once() -> None:
    # With these results five repeat-free rounds exist, and are found: each of the sixteen has
    # then met the fifteen others, so every table of round 6 holds six pairs who met once.
    _, pairings, _, _ = play("tunggal", 16, 6, seed=1)
    assert costs_of(pairings) == [0, 0, 0, 0, 0, 4 * 6]


def test_byes_are_the_fewest_and_rotate() -> None:
    assert [bye_count("tunggal", n) for n in (4, 5, 6, 7, 8)] == [0, 1, 2, 3, 0]
    assert [bye_count("ganda", n) for n in (2, 3, 4, 5)] == [0, 1, 0, 1]
    *_, byes = play("ganda", 5, 5, seed=1)
    assert sorted(b.entrant for b in byes) == [0, 1, 2, 3, 4]  # each pair sits out once
    *_, byes = play("tunggal", 7, 7, seed=2)
    assert Counter(b.entrant for b in byes) == dict.fromkeys(range(7), 3)


def test_late_join_while_fewer_than_half_the_rounds_have_started() -> None:
    assert [late_join_allowed("swiss", rounds=5, started=s) for s in range(6)] == [
        True,
        True,
        True,
        False,
        False,
        False,
    ]
    four = [late_join_allowed("swiss", rounds=4, started=s) for s in range(3)]
    assert four == [True, True, False]
    assert late_join_allowed("swiss", rounds=1, started=1) is False
    assert late_join_allowed("knockout", rounds=7, started=0) is True
    assert late_join_allowed("knockout", rounds=7, started=1) is False
    with pytest.raises(TournamentError):
        late_join_allowed("swiss", rounds=3, started=4)


def test_a_late_entrant_and_a_withdrawn_one() -> None:
    entrants, _, results, byes = play("tunggal", 8, 2, seed=5)
    still_in = [e for e in entrants if e.id != 0] + [Entrant(99, 2000.0), Entrant(100, 0.0)]
    third = pair_round("tunggal", 3, still_in, results, byes)
    assert sorted(third.entrants()) == sorted(e.id for e in still_in)
    assert 0 not in third.entrants()
    # The late entrants have no points yet: the bottom of the order, the later entry lowest.
    assert [b.entrant for b in third.byes] == [100]


def test_bad_requests_are_refused() -> None:
    entrants, _, results, byes = play("ganda", 4, 2, seed=1)
    with pytest.raises(TournamentError):
        pair_round("ganda", 2, entrants, results, byes)  # round 2 is played
    with pytest.raises(TournamentError):
        pair_round("ganda", 3, entrants[:1], results, byes)
    with pytest.raises(TournamentError):
        pair_round("ganda", 3, [*entrants, entrants[0]], results, byes)
    with pytest.raises(TournamentError):
        pair_round("ganda", 16, entrants, results, byes)
    with pytest.raises(TournamentError):
        seat_tables([1, 2, 3], 2, {})


@settings(max_examples=60, deadline=None)
@given(
    mode=st.sampled_from(["tunggal", "ganda"]),
    data=st.data(),
    seed=st.integers(0, 2**32),
)
def test_every_round_seats_everyone_once_and_repeats_only_when_unavoidable(mode, data, seed):
    """For every round: each entrant at exactly one table or bye; byes the fewest, and nobody's
    second while someone has had none; the repeat cost (previous meetings of entrants seated
    together) equal to the least over every split of the seated entrants (brute force)."""
    count = data.draw(st.integers(4, 12) if mode == "tunggal" else st.integers(2, 10))
    rounds = data.draw(st.integers(1, 8))
    _, pairings, _, _ = play(mode, count, rounds, seed)
    had = Counter[int]()
    met = Counter[tuple[int, int]]()
    for pairing in pairings:
        assert sorted(pairing.entrants()) == list(range(count))
        assert all(len(t.entrants) == SIZE[mode] for t in pairing.tables)
        resting = [b.entrant for b in pairing.byes]
        assert len(resting) == count % SIZE[mode]
        if resting:
            assert max(had[e] for e in resting) <= min(
                had[e] for e in range(count) if e not in resting
            )
        had.update(resting)
        seated = sorted(e for e in range(count) if e not in resting)
        cost = repeat_cost([t.entrants for t in pairing.tables], met)
        assert cost == min(repeat_cost(split, met) for split in partitions(seated, SIZE[mode]))
        met.update(meetings(pairing.tables))


def test_a_search_out_of_steps_still_seats_everyone() -> None:
    """The budget's fallback (a greedy split repaired by swaps) gives a valid split that costs
    no more than the plain fold of the order."""
    rng = random.Random(11)
    order = list(range(40))
    met = Counter({tuple(sorted(rng.sample(order, 2))): rng.randint(1, 3) for _ in range(300)})
    tables = seat_tables(order, 4, met, budget=50)
    assert sorted(e for t in tables for e in t) == order
    fold = [tuple(order[i : i + 4]) for i in range(0, 40, 4)]
    assert repeat_cost(tables, met) <= repeat_cost(fold, met)
    assert repeat_cost(tables, met) >= repeat_cost(seat_tables(order, 4, met), met)


def test_table_numbers_and_rounds() -> None:
    pairing = pair_round("ganda", 1, [Entrant(i) for i in range(5)])
    assert [t.number for t in pairing.tables] == [1, 2]
    assert all(t.round == 1 for t in pairing.tables) and pairing.byes == (Bye(1, 4),)
    assert pairing.tables[0] == Table(1, 1, (0, 1))
