"""The open-hand solver is exact: it agrees with a full tree search; its lines reach its value."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import MatchState, klasik, new_match, play, pordi, random_legal_move, start_deal
from engine.determinize import value
from engine.errors import BadInput
from engine.rules import RuleSet
from engine.solver import (
    SearchLimit,
    Solver,
    apply,
    brute_force,
    node_of,
    step_move,
    steps,
    tiles_left,
)

RULES: dict[str, RuleSet] = {
    "pordi tunggal": pordi("tunggal"),
    "pordi ganda": pordi("ganda"),
    "klasik discard": klasik(),
    "klasik pass": klasik(stuck="pass"),
    "klasik draw": klasik(stuck="draw"),
    "klasik 5 players": klasik(5),
    "klasik seven tiles": klasik(seven_tiles=True),
    "klasik penalty": klasik(scoring="penalty"),
}


def endgame(rules: RuleSet, seed: int, tiles: int) -> MatchState | None:
    """A seeded deal played at random until the hands hold at most ``tiles`` tiles."""
    rng = random.Random(seed)
    state, _ = start_deal(new_match(rules), seed)
    while state.phase == "playing" and tiles_left(node_of(state)) > tiles:
        assert state.turn is not None
        state, _ = play(state, state.turn, random_legal_move(state, rng))
    return state if state.phase == "playing" else None


@pytest.mark.parametrize("name", list(RULES))
def test_agrees_with_brute_force_on_random_endgames(name: str) -> None:
    rules = RULES[name]
    checked = 0
    for seed in range(60):
        state = endgame(rules, seed, 6 + seed % 7)  # 6 to 12 tiles left
        if state is None:
            continue
        node = node_of(state)
        solver = Solver(rules)
        for me in range(rules.players):  # every seat's view of the same position
            assert solver.value(node, me) == brute_force(rules, node, me), (seed, me)
        checked += 1
    assert checked >= 40


@pytest.mark.parametrize("name", ["pordi tunggal", "pordi ganda", "klasik draw"])
def test_one_table_answers_every_position_of_a_deal(name: str) -> None:
    """A solver keeps its tables (bounds from earlier windows): later answers stay exact."""
    rules = RULES[name]
    for seed in range(12):
        state = endgame(rules, seed, 13)
        if state is None:
            continue
        solver = Solver(rules)
        rng = random.Random(seed)
        while state.phase == "playing":
            node = node_of(state)
            for s, v in solver.values(node):
                child, points = apply(rules, node, s)
                want = brute_force(rules, child, node[4]) if child else None
                assert v == (value(rules, node[4], points) if points else want)
            for me in range(rules.players):
                assert solver.value(node, me) == brute_force(rules, node, me)
            assert state.turn is not None
            state, _ = play(state, state.turn, random_legal_move(state, rng))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(list(RULES)), st.integers(0, 10_000), st.integers(4, 12))
def test_the_best_move_keeps_the_value_and_the_best_line_reaches_it(
    name: str, seed: int, tiles: int
) -> None:
    rules = RULES[name]
    state = endgame(rules, seed, tiles)
    if state is None:
        return
    me = state.turn
    assert me is not None
    solver = Solver(rules)
    root = solver.value(node_of(state), me)
    while state.phase == "playing":
        node = node_of(state)
        here = solver.value(node, me)
        assert here == root  # playing the best moves never changes the value
        vals = solver.values(node, me)
        pick = max if rules.sides[node[4]] == rules.sides[me] else min
        target = pick(v for _, v in vals)
        move = next(s for s, v in vals if v == target)
        assert target == here
        state, _ = play(state, node[4], step_move(move))  # the public engine, not the solver
    result = state.last_result
    assert result is not None
    assert value(rules, me, result.points) == root


def test_a_whole_ganda_deal_from_the_first_move() -> None:
    rules = RULES["pordi ganda"]
    state, _ = start_deal(new_match(rules), 3)
    solver = Solver(rules)
    node = node_of(state)
    assert tiles_left(node) == 28
    v = solver.value(node)
    best = max(v2 for _, v2 in solver.values(node))
    assert best == v
    assert solver.nodes > 1000


def test_a_node_limit_stops_the_search() -> None:
    rules = RULES["pordi tunggal"]
    state, _ = start_deal(new_match(rules), 1)
    with pytest.raises(SearchLimit):
        Solver(rules, max_nodes=500).value(node_of(state))


def test_a_finished_deal_is_refused() -> None:
    rules = RULES["pordi ganda"]
    state, _ = start_deal(new_match(rules), 1)
    while state.phase == "playing":
        assert state.turn is not None
        state, _ = play(state, state.turn, random_legal_move(state, random.Random(1)))
    with pytest.raises(BadInput):
        node_of(state)


def test_steps_are_the_engines_legal_moves() -> None:
    from engine import legal_moves

    for name, rules in RULES.items():
        state = endgame(rules, 7, 14)
        assert state is not None, name
        node = node_of(state)
        assert state.turn is not None
        engine_moves = {
            (m.index, m.code if m.code >= 0 else 0) for m in legal_moves(state, state.turn)
        }
        assert set(steps(rules, node)) == engine_moves, name
