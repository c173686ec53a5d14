"""Ratings: ranks from a set's result, and what the store books when a set starts and ends.

The store tests drive the real SqlGameStore (the table actor's storage) on both databases with
a set's result written as the table writes it; the live test (test_rated_sets.py) plays whole
sets through the real server.
"""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import select

import engine
from app.players.ratings import displayed, seat_ranks
from app.rooms.store import SqlGameStore
from app.store.db import Database
from app.store.models import Rating, RatingChange, SetPlayer
from app.store.records import MoveRecord
from tests.app.players.conftest import AT, play_set, seated_room

# --- ranks (pure) -------------------------------------------------------------------------------


def test_tunggal_ranks_by_score_with_ties_and_leavers_last() -> None:
    rules = engine.pordi("tunggal")
    assert seat_ranks(rules, [5, 3, 3, 1], set()) == [1, 2, 2, 4]
    assert seat_ranks(rules, [5, 3, 3, 1], {0}) == [4, 1, 1, 3]
    assert seat_ranks(rules, [5, 3, 3, 1], {0, 3}) == [3, 1, 1, 3]
    assert seat_ranks(rules, [0, 0, 0, 0], set()) == [1, 1, 1, 1]


def test_penalty_scoring_ranks_the_lowest_total_first() -> None:
    rules = engine.klasik(players=5, scoring="penalty")
    assert rules.set_goal == "least_after_deals"
    assert seat_ranks(rules, [40, 12, 90, 12, 55], set()) == [3, 1, 5, 1, 4]


def test_ganda_ranks_teams_and_a_leaver_sinks_the_team() -> None:
    rules = engine.pordi("ganda")
    assert seat_ranks(rules, [7, 3, 7, 3], set()) == [1, 2, 1, 2]
    assert seat_ranks(rules, [7, 3, 7, 3], {2}) == [2, 1, 2, 1]
    assert seat_ranks(rules, [7, 3, 7, 3], {1, 2}) == [1, 1, 1, 1]


def test_displayed_rating_of_a_new_player_is_1500() -> None:
    model = PlackettLuce()
    assert displayed(model.mu, model.sigma) == 1500
    assert displayed(27.0, 8.0) == round(1500 + 50 * (27.0 - 24.0))


# --- the store: lineup at the start, ratings at the end -----------------------------------------


async def _stored(db: Database) -> tuple[list[Rating], list[RatingChange], list[SetPlayer]]:
    async with db.session() as session:
        ratings = list(await session.scalars(select(Rating).order_by(Rating.player_id)))
        changes = list(await session.scalars(select(RatingChange)))
        lineup = list(await session.scalars(select(SetPlayer).order_by(SetPlayer.seat)))
    return ratings, changes, lineup


async def test_a_rated_tunggal_set_rates_four_ways_as_openskill_does(db: Database) -> None:
    room_id, players = await seated_room(db, mode="tunggal", rated=True)
    store = SqlGameStore(db)
    set_id = await play_set(store, room_id, "tunggal", [2, 9, 4, 4])
    ratings, changes, lineup = await _stored(db)

    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(4)], ranks=[4, 1, 2, 2])
    by_player = {r.player_id: r for r in ratings}
    for seat, player in enumerate(players):
        assert by_player[player].mu == pytest.approx(expected[seat][0].mu, abs=1e-9)
        assert by_player[player].sigma == pytest.approx(expected[seat][0].sigma, abs=1e-9)
        assert by_player[player].sets == 1 and by_player[player].mode == "tunggal"
    assert {(c.player_id, c.rank, c.set_id) for c in changes} == {
        (players[0], 4, set_id),
        (players[1], 1, set_id),
        (players[2], 2, set_id),
        (players[3], 2, set_id),
    }
    assert [(s.rank, s.won, s.left, s.rated) for s in lineup] == [
        (4, False, False, True),
        (1, True, False, True),
        (2, False, False, True),
        (2, False, False, True),
    ]


async def test_a_rated_ganda_set_is_a_two_team_result(db: Database) -> None:
    room_id, players = await seated_room(db, mode="ganda", rated=True)
    store = SqlGameStore(db)
    await play_set(store, room_id, "ganda", [3, 7, 3, 7])
    first, _, _ = await _stored(db)
    await play_set(store, room_id, "ganda", [7, 1, 7, 1], number=2)
    ratings, changes, _ = await _stored(db)

    model = PlackettLuce()
    a, b = [model.rating(), model.rating()], [model.rating(), model.rating()]
    a, b = model.rate([a, b], ranks=[2, 1])  # seats 0+2 lost the first set
    a, b = model.rate([a, b], ranks=[1, 2])
    expected = {players[0]: a[0], players[2]: a[1], players[1]: b[0], players[3]: b[1]}
    for rating in ratings:
        assert rating.mode == "ganda" and rating.sets == 2
        assert rating.mu == pytest.approx(expected[rating.player_id].mu, abs=1e-9)
        assert rating.sigma == pytest.approx(expected[rating.player_id].sigma, abs=1e-9)
    assert len(changes) == 8 and len(first) == 4


async def test_a_player_who_left_mid_set_ranks_last(db: Database) -> None:
    room_id, players = await seated_room(db, mode="tunggal", rated=True)
    store = SqlGameStore(db)
    rules = engine.pordi("tunggal").to_dict()
    set_id = await store.create_set(room_id=room_id, number=1, rules=rules, at=AT)
    await store.put_bot_in_seat(room_id, 1, "normal", left_by=players[1])  # seat 1 leaves
    deal_id = await store.create_deal(set_id=set_id, number=1, secret="1" * 64, opener=0, at=AT)
    record = MoveRecord(
        deal_id=deal_id,
        seq=1,
        seat=1,
        tile="6-6",
        end=None,
        auto=False,
        client_move_id=None,
        at=AT,
        set_id=set_id,
        set_result={"mode": "tunggal", "scores": [2, 9, 4, 1], "winners": [1]},
        scores=[2, 9, 4, 1],
    )
    await store.record_move(record)
    ratings, changes, lineup = await _stored(db)
    assert {c.player_id: c.rank for c in changes} == {
        players[0]: 2,
        players[1]: 4,  # the best score, but they left
        players[2]: 1,
        players[3]: 3,
    }
    assert [(s.left, s.won) for s in lineup] == [
        (False, False),
        (True, False),
        (False, True),
        (False, False),
    ]
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(4)], ranks=[2, 4, 1, 3])
    mu = {r.player_id: r.mu for r in ratings}
    assert [mu[p] for p in players] == pytest.approx([e[0].mu for e in expected], abs=1e-9)


@pytest.mark.parametrize(("rated", "bots"), [(False, ()), (True, (3,))])
async def test_an_unrated_room_or_a_bot_at_the_start_changes_no_rating(
    db: Database, rated: bool, bots: tuple[int, ...]
) -> None:
    room_id, players = await seated_room(db, mode="tunggal", rated=rated, bots=bots)
    await play_set(SqlGameStore(db), room_id, "tunggal", [2, 9, 4, 4])
    ratings, changes, lineup = await _stored(db)
    assert ratings == [] and changes == []
    # The set still counts as played (and won) for the humans who sat there.
    humans = 4 - len(bots)
    assert [(s.player_id, s.rated, s.won) for s in lineup] == [
        (players[seat], False, seat == 1) for seat in range(humans)
    ]
