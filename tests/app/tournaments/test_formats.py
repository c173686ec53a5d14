from fractions import Fraction

import pytest

from app.tournaments.formats import (
    BYE_POINTS,
    PLACE_POINTS,
    Table,
    TableResult,
    TournamentError,
    result_from_scores,
    table_points,
)

F = Fraction


@pytest.mark.parametrize(
    ("mode", "places", "points"),
    [
        ("tunggal", (1, 2, 3, 4), (3, 2, 1, 0)),
        ("tunggal", (4, 3, 2, 1), (0, 1, 2, 3)),
        ("tunggal", (1, 2, 2, 4), (3, F(3, 2), F(3, 2), 0)),
        ("tunggal", (1, 1, 3, 3), (F(5, 2), F(5, 2), F(1, 2), F(1, 2))),
        ("tunggal", (2, 1, 2, 2), (1, 3, 1, 1)),
        ("tunggal", (1, 1, 1, 1), (F(3, 2),) * 4),
        ("ganda", (1, 2), (2, 0)),
        ("ganda", (2, 1), (0, 2)),
        ("ganda", (1, 1), (1, 1)),
    ],
)
def test_places_score_the_ladder_and_ties_share_the_average(mode, places, points) -> None:
    assert table_points(mode, places) == points
    assert sum(table_points(mode, places)) == sum(PLACE_POINTS[mode])


def test_a_bye_is_worth_an_average_result() -> None:
    assert BYE_POINTS["tunggal"] == F(3, 2)
    assert BYE_POINTS["ganda"] == 1


@pytest.mark.parametrize(
    "places", [(1, 3, 3, 4), (0, 1, 2, 3), (2, 2, 3, 4), (1, 2, 4, 4), (1, 2, 3), (1, 1, 1, 2)]
)
def test_places_that_are_no_ranking_are_refused(places) -> None:
    with pytest.raises(TournamentError) as refused:
        table_points("tunggal", places)
    assert refused.value.code == "invalid"


def test_a_result_must_fit_its_table() -> None:
    table = Table(1, 1, (1, 2, 3, 4))
    with pytest.raises(TournamentError):
        TableResult(table, (1, 2, 3), (0, 0, 0, 0))
    with pytest.raises(TournamentError):
        TableResult(table, (1, 2, 3, 4), (0, 0, 0))
    with pytest.raises(TournamentError):
        TableResult(Table(1, 1, (1, 1, 2, 3)), (1, 2, 3, 4), (0, 0, 0, 0))
    with pytest.raises(TournamentError):
        table_points("solo", (1, 2))  # type: ignore[arg-type]


def test_results_from_a_sets_scores() -> None:
    table = Table(1, 1, (10, 11, 12, 13))
    assert result_from_scores(table, [40, 55, 40, 12]).places == (2, 1, 2, 4)
    penalty = result_from_scores(table, [40, 55, 40, 12], lowest_wins=True)
    assert penalty.places == (2, 4, 2, 1)
    assert penalty.deal_points == (-40, -55, -40, -12)
    left = result_from_scores(table, [40, 55, 40, 12], last={11})
    assert left.places == (1, 4, 1, 3)
    with pytest.raises(TournamentError):
        result_from_scores(table, [1, 2, 3])
    with pytest.raises(TournamentError):
        result_from_scores(table, [1, 2, 3, 4], last={99})


def test_a_forfeit_places_below_those_who_left() -> None:
    table = Table(1, 1, (10, 11, 12, 13))
    result = result_from_scores(table, [40, 55, 40, 12], last={11}, forfeit={13})
    assert result.places == (1, 3, 1, 4)  # the withdrawn 13 below 11, who left the table
    assert result_from_scores(table, [1, 2, 3, 4], forfeit={10, 11}).places == (4, 3, 2, 1)
    with pytest.raises(TournamentError):
        result_from_scores(table, [1, 2, 3, 4], forfeit={99})
