import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.tournaments.formats import Entrant, Table, TableResult, TournamentError
from app.tournaments.knockout import (
    EIGHT_PLAYER_ROUNDS,
    Pool,
    advance,
    bracket_round,
    bracket_seeds,
    draw_pools,
    is_final,
    pool_schedule,
    pool_stage,
)

from .oracle import random_result

SIZE = {"tunggal": 4, "ganda": 2}


def entrants(count: int) -> list[Entrant]:
    return [Entrant(i, 2000 - 10 * i) for i in range(count)]  # 0 is the best rated


def test_pools_are_drawn_by_rating_in_a_snake() -> None:
    pools = draw_pools("ganda", entrants(8))
    assert pools == (Pool("A", (0, 3, 4, 7)), Pool("B", (1, 2, 5, 6)))
    assert [len(p.members) for p in draw_pools("ganda", entrants(7))] == [3, 4]
    assert [len(p.members) for p in draw_pools("ganda", entrants(9))] == [3, 3, 3]
    assert [len(p.members) for p in draw_pools("ganda", entrants(5))] == [5]
    assert draw_pools("ganda", entrants(2)) == ()  # two pairs: the final at once
    assert [len(p.members) for p in draw_pools("tunggal", entrants(17))] == [5, 6, 6]
    assert draw_pools("tunggal", entrants(4)) == ()
    assert [p.name for p in draw_pools("ganda", entrants(120))][25:28] == ["Z", "AA", "AB"]
    with pytest.raises(TournamentError):
        draw_pools("tunggal", entrants(3))


@pytest.mark.parametrize("mode", ["tunggal", "ganda"])
def test_pool_sizes_for_every_entry_count(mode) -> None:
    for count in range(SIZE[mode] + 1, 200):
        pools = draw_pools(mode, entrants(count))
        sizes = [len(p.members) for p in pools]
        assert sorted(e for p in pools for e in p.members) == list(range(count))
        assert max(sizes) - min(sizes) <= 1
        assert min(sizes) >= (4 if mode == "tunggal" else 3)
        assert max(sizes) <= (8 if mode == "tunggal" else 4) or count == 5
        # The top seeds head the pools, one each.
        assert sorted(p.members[0] for p in pools) == list(range(len(pools)))


def met_counts(rounds) -> Counter[tuple[int, ...]]:
    return Counter(tuple(sorted(p)) for r in rounds for t in r.tables for p in combinations(t, 2))


@pytest.mark.parametrize("size", [3, 4, 5])
def test_a_ganda_pool_is_a_round_robin(size) -> None:
    pool = Pool("A", tuple(range(size)))
    rounds = pool_schedule("ganda", pool)
    assert len(rounds) == (size if size % 2 else size - 1)
    assert met_counts(rounds) == dict.fromkeys(combinations(range(size), 2), 1)
    for r in rounds:
        assert sorted([*(e for t in r.tables for e in t), *r.byes]) == list(range(size))
    assert sorted(e for r in rounds for e in r.byes) == (list(range(size)) if size % 2 else [])


def test_a_tunggal_pool_of_eight_meets_everyone() -> None:
    pool = Pool("A", tuple(range(10, 18)))
    rounds = pool_schedule("tunggal", pool)
    assert len(rounds) == 3 and all(len(r.tables) == 2 and not r.byes for r in rounds)
    met = met_counts(rounds)
    assert len(met) == 28  # every two of the eight meet
    assert sorted(p for p, n in met.items() if n == 3) == [(10, 14), (11, 15), (12, 16), (13, 17)]
    assert Counter(met.values()) == {1: 24, 3: 4}


def test_no_three_rounds_of_eight_cover_every_pair_otherwise() -> None:
    """Brute force over every three rounds of two tables: those in which every two players meet
    all have the profile of EIGHT_PLAYER_ROUNDS (24 pairs once, 4 pairs three times)."""
    splits = [
        ((0, *c), tuple(x for x in range(1, 8) if x not in c)) for c in combinations(range(1, 8), 3)
    ]
    profiles = set()
    for second in splits:
        for third in splits:
            met = Counter(
                p for r in (splits[0], second, third) for t in r for p in combinations(t, 2)
            )
            if len(met) == 28:
                profiles.add(tuple(sorted(Counter(met.values()).items())))
    assert profiles == {((1, 24), (3, 4))}
    assert len({frozenset(t) for r in EIGHT_PLAYER_ROUNDS for t in r}) == 6


@pytest.mark.parametrize("size", [4, 5, 6, 7])
def test_smaller_tunggal_pools_rotate_their_byes(size) -> None:
    rounds = pool_schedule("tunggal", Pool("A", tuple(range(size))))
    assert len(rounds) == 3
    byes = Counter(e for r in rounds for e in r.byes)
    for r in rounds:
        assert len(r.byes) == size % 4 and len(r.tables) == 1
    if byes:
        assert max(byes.values()) - min(byes.get(e, 0) for e in range(size)) <= 1


def test_seeds_winners_first_and_the_first_round_crosses_pools() -> None:
    pools = draw_pools("ganda", entrants(8))  # A (0, 3, 4, 7), B (1, 2, 5, 6)
    stage = pool_stage("ganda", pools)
    assert [len(p.tables) for p in stage] == [4, 4, 4]
    # Everyone wins by the order of their entry id: pool A 0 > 3 > 4 > 7, pool B 1 > 2 > 5 > 6.
    results = [
        TableResult(t, (1, 2) if t.entrants[0] < t.entrants[1] else (2, 1), (7, 0))
        for p in stage
        for t in p.tables
    ]
    seeds = bracket_seeds("ganda", entrants(8), pools, results)
    assert seeds == (0, 1, 3, 2)  # A1, B1, A2, B2
    first = bracket_round("ganda", 4, seeds)
    assert [t.entrants for t in first.tables] == [(0, 2), (1, 3)]  # A1-B2, B1-A2
    assert not first.byes
    won = [TableResult(t, (2, 1), (3, 7)) for t in first.tables]  # the lower seeds win
    final = advance("ganda", first, won, seeds)
    assert final == (3, 2) and is_final("ganda", final)
    assert [t.entrants for t in bracket_round("ganda", 5, final).tables] == [(3, 2)]


def test_single_pools_and_no_pools() -> None:
    pools = draw_pools("tunggal", entrants(7))
    assert len(pools) == 1
    stage = pool_stage("tunggal", pools)
    results = [random_result(t, random.Random(1)) for p in stage for t in p.tables]
    seeds = bracket_seeds(
        "tunggal", entrants(7), pools, results, [b for p in stage for b in p.byes]
    )
    assert len(seeds) == 4 and is_final("tunggal", seeds)  # one pool sends a full final table
    assert bracket_seeds("ganda", entrants(2), ()) == (0, 1)


def test_byes_go_to_the_top_seeds() -> None:
    ganda = bracket_round("ganda", 1, list(range(6)))  # 6 -> 4: two byes, two tables
    assert [b.entrant for b in ganda.byes] == [0, 1]
    assert [t.entrants for t in ganda.tables] == [(2, 5), (3, 4)]
    tunggal = bracket_round("tunggal", 1, list(range(10)))  # 10 -> 8: six byes, one table
    assert [b.entrant for b in tunggal.byes] == list(range(6))
    assert [t.entrants for t in tunggal.tables] == [(6, 7, 8, 9)]
    with pytest.raises(TournamentError):
        bracket_round("tunggal", 1, [1, 2, 3])
    with pytest.raises(TournamentError):
        bracket_round("tunggal", 1, list(range(5)))


def test_advance_takes_the_top_half_and_a_tie_at_the_cut_goes_to_the_better_seed() -> None:
    pairing = bracket_round("tunggal", 1, list(range(8)))
    table = pairing.tables[0]
    assert table.entrants == (0, 3, 4, 7)
    tied = TableResult(table, (1, 2, 2, 4), (50, 30, 30, 10))
    other = TableResult(pairing.tables[1], (4, 3, 2, 1), (0, 1, 2, 3))
    assert advance("tunggal", pairing, [tied, other], list(range(8))) == (0, 3, 5, 6)
    with pytest.raises(TournamentError):
        advance("tunggal", pairing, [tied], list(range(8)))  # a table without its result
    with pytest.raises(TournamentError):
        advance("tunggal", pairing, [tied, TableResult(Table(1, 2, (1, 2, 5, 9)), *_four())], [])


def _four():
    return (1, 2, 3, 4), (0, 0, 0, 0)


@settings(max_examples=30, deadline=None)
@given(
    mode=st.sampled_from(["tunggal", "ganda"]),
    count=st.integers(5, 33),
    seed=st.integers(0, 2**32),
)
def test_a_knockout_runs_to_one_final_table(mode, count, seed) -> None:
    rng = random.Random(seed)
    field = entrants(count)
    pools = draw_pools(mode, field)
    stage = pool_stage(mode, pools)
    results: list[TableResult] = []
    for pairing in stage:
        seated = pairing.entrants()
        assert len(seated) == len(set(seated))
        results.extend(random_result(t, rng) for t in pairing.tables)
    byes = [b for p in stage for b in p.byes]
    seeds = list(bracket_seeds(mode, field, pools, results, byes))
    assert len(seeds) == len(set(seeds)) == (SIZE[mode] if len(pools) == 1 else 2 * len(pools))
    still_in = seeds
    number = len(stage) + 1
    while not is_final(mode, still_in):
        pairing = bracket_round(mode, number, still_in)
        assert sorted(pairing.entrants()) == sorted(still_in)  # everyone once: a table or a bye
        going = advance(mode, pairing, [random_result(t, rng) for t in pairing.tables], seeds)
        # After the first round the field is a full bracket: k·2^m, halving every round.
        assert len(going) % SIZE[mode] == 0 and (len(going) // SIZE[mode]).bit_count() == 1
        assert len(going) < len(still_in) and set(going) <= set(still_in)
        still_in = list(going)
        number += 1
    final = bracket_round(mode, number, still_in)
    assert len(final.tables) == 1 and not final.byes
    assert len(final.tables[0].entrants) == SIZE[mode]
