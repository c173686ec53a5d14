"""A team battle's ranking of clubs (``standings.club_standings``): each club's points are the sum
of its best N entrants' points, ties broken by the club's best entrant, then the listed order."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.tournaments.formats import TournamentError
from app.tournaments.standings import Standing, club_standings


def ranked(points: list[Fraction]) -> tuple[Standing, ...]:
    """Standings of entrants 1..n with these points, ranked by points then entrant id."""
    order = sorted(range(1, len(points) + 1), key=lambda e: (-points[e - 1], e))
    return tuple(
        Standing(rank, e, points[e - 1], 0, Fraction(0), 1, 0)
        for rank, e in enumerate(order, start=1)
    )


def test_the_best_n_of_each_club_count() -> None:
    table = ranked([Fraction(p) for p in (6, 5, 3, Fraction(5, 2), 2, 1)])
    clubs = {1: 10, 2: 20, 3: 10, 4: 20, 5: 10, 6: 20}
    found = club_standings(table, clubs, [10, 20], best=2)
    assert [(c.rank, c.club, c.points, c.counted) for c in found] == [
        (1, 10, 9, (1, 3)),  # 6 + 3; entrant 5's 2 does not count
        (2, 20, Fraction(15, 2), (2, 4)),  # 5 + 5/2
    ]


def test_a_club_with_fewer_entrants_counts_them_all_and_one_with_none_scores_zero() -> None:
    table = ranked([Fraction(4), Fraction(3), Fraction(1)])
    found = club_standings(table, {1: 7, 2: 8, 3: 8}, [7, 8, 9], best=3)
    assert [(c.club, c.points, c.counted) for c in found] == [
        (7, 4, (1,)),
        (8, 4, (2, 3)),  # equal points: club 7's best entrant ranks higher
        (9, 0, ()),
    ]


def test_equal_points_and_equal_best_go_to_the_club_listed_first() -> None:
    assert [c.club for c in club_standings((), {}, [3, 1, 2], best=1)] == [3, 1, 2]


def test_refusals() -> None:
    table = ranked([Fraction(1)])
    with pytest.raises(TournamentError):
        club_standings(table, {1: 99}, [1, 2], best=1)  # a club not in the battle
    with pytest.raises(TournamentError):
        club_standings(table, {1: 1}, [1, 1], best=1)  # listed twice
    with pytest.raises(TournamentError):
        club_standings(table, {1: 1}, [1, 2], best=0)


halves = st.integers(min_value=0, max_value=40).map(lambda n: Fraction(n, 2))


@given(
    points=st.lists(halves, min_size=0, max_size=40),
    seats=st.data(),
    clubs=st.integers(min_value=1, max_value=6),
    best=st.integers(min_value=1, max_value=8),
)
def test_club_points_are_the_documented_sum(
    points: list[Fraction], seats: st.DataObject, clubs: int, best: int
) -> None:
    listed = list(range(100, 100 + clubs))
    # Each entrant plays for one of the clubs, or for none.
    playing = {
        e: club
        for e in range(1, len(points) + 1)
        if (club := seats.draw(st.sampled_from([None, *listed]))) is not None
    }
    table = ranked(points)
    found = club_standings(table, playing, listed, best)
    assert [c.rank for c in found] == list(range(1, clubs + 1))
    assert sorted(c.club for c in found) == listed
    for c in found:
        mine = [points[e - 1] for e in playing if playing[e] == c.club]
        assert c.points == sum(sorted(mine, reverse=True)[:best], Fraction(0))
        assert len(c.counted) == min(best, len(mine))
        assert all(playing[e] == c.club for e in c.counted)
        assert c.points == sum((points[e - 1] for e in c.counted), Fraction(0))
    assert [c.points for c in found] == sorted((c.points for c in found), reverse=True)
