"""The analysis of a finished deal: exact values per move, the loss, the marks, the view's pick."""

from __future__ import annotations

import random

import pytest

from engine import Move, new_match, play, pordi, start_deal, view
from engine.analysis import BEST, BLUNDER, analyse_deal, analyse_stored, biggest_mistakes, mark
from engine.bots import EASY
from engine.match import MatchState
from engine.rules import RuleSet, klasik
from engine.solver import Solver, move_step, node_of


def random_deal(rules: RuleSet, seed: int) -> tuple[MatchState, list[Move]]:
    start, _ = start_deal(new_match(rules), seed)
    rng = random.Random(seed)
    state, moves = start, []
    while state.phase == "playing":
        assert state.turn is not None
        move = EASY.choose(view(state, state.turn), rng)
        moves.append(move)
        state, _ = play(state, state.turn, move)
    return start, moves


def test_marks_follow_the_documented_thresholds() -> None:
    rules = pordi("ganda")  # one unit: one point
    assert mark(rules, 0) == BEST
    assert mark(rules, 0.5) == "inaccuracy"
    assert mark(rules, 1) == "mistake"
    assert mark(rules, 1.9) == "mistake"
    assert mark(rules, 2) == BLUNDER
    assert mark(klasik(), 13) == "inaccuracy"  # Klasik: a unit is 100 / 7 points
    assert mark(klasik(), 15) == "mistake"


@pytest.mark.parametrize(
    "rules", [pordi("ganda"), klasik(stuck="pass")], ids=["ganda", "klasik pass"]
)
def test_every_move_has_its_exact_value_and_the_best(rules: RuleSet) -> None:
    for seed in (1,):
        start, moves = random_deal(rules, seed)
        a = analyse_deal(rules, start, moves, playouts=40, seed=seed)
        solver = Solver(rules)  # a table of its own, kept over the deal (exact: test_solver)
        assert [e["index"] for e in a["moves"]] == list(range(len(moves)))
        assert a["solved_from"] == 0
        state = start
        for e, move in zip(a["moves"], moves, strict=True):
            assert e["seat"] == state.turn and e["move"]["tile"] == str(move.tile)
            vals = dict(solver.values(node_of(state)))
            assert e["best"] == max(vals.values())
            assert e["played"] == vals[move_step(move)]
            assert e["loss"] == e["best"] - e["played"] >= 0
            assert e["mark"] == mark(rules, e["loss"])
            assert e["best_moves"] and all(
                vals[move_step(Move.from_dict(b))] == e["best"] for b in e["best_moves"]
            )
            legal = view(state, state.turn)["legal"]
            assert {"tile": e["view_best"]["tile"], "end": e["view_best"]["end"]} in [
                {"tile": o["tile"], "end": o["end"]} for o in legal
            ]
            state, events = play(state, e["seat"], move)
            assert e["move"]["end"] == events[0].data.get("end", "discard")  # as placed
        # a random player loses something somewhere
        assert any(e["mark"] != BEST for e in a["moves"])


def test_the_same_deal_gives_the_same_analysis() -> None:
    rules = pordi("ganda")
    start, moves = random_deal(rules, 4)
    assert analyse_deal(rules, start, moves, playouts=30) == analyse_deal(
        rules, start, moves, playouts=30
    )


def test_a_node_budget_leaves_the_early_moves_unsolved() -> None:
    rules = pordi("tunggal")
    start, moves = random_deal(rules, 5)
    a = analyse_deal(rules, start, moves, max_nodes=300, playouts=10)
    first = a["solved_from"]
    assert first is not None and first > 0
    for e in a["moves"]:
        solved = e["index"] >= first
        assert (e["mark"] is not None) == solved
        assert (e["played"] is not None) == solved
        assert e["view_best"] is not None  # the view's judgement needs no solver


def test_biggest_mistakes_are_the_seats_worst_moves() -> None:
    rules = pordi("ganda")
    start, moves = random_deal(rules, 6)
    a = analyse_deal(rules, start, moves, playouts=10)
    worst = biggest_mistakes(a, [0, 2], 3)
    assert all(e["seat"] in (0, 2) and e["loss"] > 0 for e in worst)
    losses = [e["loss"] for e in worst]
    assert losses == sorted(losses, reverse=True)
    everything = [e["loss"] for e in a["moves"] if e["seat"] in (0, 2) and e["loss"] > 0]
    assert losses == sorted(everything, reverse=True)[:3]


def test_an_unfinished_deal_is_refused() -> None:
    rules = pordi("ganda")
    start, moves = random_deal(rules, 7)
    with pytest.raises(ValueError, match="not over"):
        analyse_deal(rules, start, moves[:-1])


def test_a_stored_deal_is_analysed_from_plain_data() -> None:
    rules = pordi("ganda")
    state = new_match(rules)
    stored = []
    for seed in (11, 12):
        start, _ = start_deal(state, seed)
        state, moves = start, []
        rng = random.Random(seed)
        while state.phase == "playing":
            assert state.turn is not None
            move = EASY.choose(view(state, state.turn), rng)
            moves.append(move)
            state, _ = play(state, state.turn, move)
        stored.append((seed, [m.to_dict() for m in moves]))
    # the second deal, rebuilt on top of the first (its opener is the first deal's winner)
    got = analyse_stored(rules.to_dict(), stored, playouts=10, max_nodes=20_000)
    assert got == analyse_deal(rules, start, moves, playouts=10, seed=2, max_nodes=20_000)
    assert got["deal_number"] == 2
