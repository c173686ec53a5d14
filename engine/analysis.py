"""The analysis of a finished deal: every move against the best one, with all hands open.

For each move of a deal, ``analyse_deal`` gives the solver's exact value (``engine.solver``)
of the move played and of the best move, to the seat that moved, the loss between them and a
mark (``MARKS``), and what the hard bot's determinized playouts, seeing only what that seat
could know (its view), rated best: "the best with what you knew" next to "the best with all
hands open".

Positions are solved from the last move back to the first, all on one solver, so each earlier
position finds the later ones in its tables. A position the solver cannot finish within
``max_nodes`` visits leaves that move, and every move before it, unsolved (values ``None``,
mark ``None``): the analysis then holds the exact values from the first solved move on.
Pure: no I/O, no clock (the hard bot runs its ``playouts`` with no time budget), the same
input gives the same analysis.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from engine.bots import HardBot
from engine.deal import Move
from engine.match import MatchState, play
from engine.replay import Source, fold, replay_match
from engine.rules import RuleSet
from engine.solver import SearchLimit, Solver, move_step, node_of, step_move
from engine.views import view

# A move's mark by its loss (the best move's value less the played move's, in the deal's
# points as ``engine.determinize.value`` counts them), in units of the set's target / 7: one
# point under PORDI (target 7), about 14 under Klasik (target 100). A loss of 0 is "best".
MARKS: Final[tuple[tuple[float, str], ...]] = (
    (1.0, "inaccuracy"),  # under one unit
    (2.0, "mistake"),  # under two units
)
BLUNDER: Final = "blunder"  # two units or more
BEST: Final = "best"
ANALYSIS_VERSION: Final = 1


def unit(rules: RuleSet) -> float:
    """The loss one mark step stands for: the set's target over seven."""
    return rules.target_points / 7


def mark(rules: RuleSet, loss: float) -> str:
    """The mark of a move that lost ``loss`` against the best move."""
    if loss <= 1e-9:
        return BEST
    u = loss / unit(rules)
    for below, name in MARKS:
        if u < below:
            return name
    return BLUNDER


def _played(vals: list[tuple[tuple[int, int], float]], mine: tuple[int, int]) -> float:
    """The value of the move played: a tile fitting one end may be stored with that end."""
    for s, v in vals:
        if s == mine:
            return v
    return next(v for s, v in vals if s[0] == mine[0])


def analyse_deal(
    rules: RuleSet,
    start: MatchState,
    moves: Sequence[Move],
    *,
    max_nodes: int = 2_000_000,
    playouts: int = 400,
    seed: int = 0,
) -> dict[str, Any]:
    """The analysis of a deal from ``start`` (the state right after ``start_deal``) and its
    ``moves`` (all of them, to the deal's end). JSON-safe.

    ``max_nodes``: the solver's budget per position; ``playouts``: the hard bot's per move.
    """
    states = [start]
    shown: list[dict[str, Any]] = []  # each move as the replay shows it: its end as placed
    for m in moves:
        s = states[-1]
        if s.turn is None:
            raise ValueError("a move after the end of the deal")
        nxt, events = play(s, s.turn, m)
        own = events[0].data
        shown.append({"tile": own["tile"], "end": own.get("end", m.end)})
        states.append(nxt)
    end = states[-1]
    if end.phase not in ("deal_over", "set_over") or end.last_result is None:
        raise ValueError("the deal is not over")
    solver = Solver(rules, max_nodes)
    entries: list[dict[str, Any]] = []
    solved = True
    for k in range(len(moves) - 1, -1, -1):
        state, move = states[k], moves[k]
        seat = state.turn
        assert seat is not None
        entry: dict[str, Any] = {
            "index": k,
            "seat": seat,
            "move": shown[k],
            "played": None,
            "best": None,
            "loss": None,
            "mark": None,
            "best_moves": [],
        }
        if solved:
            node = node_of(state)
            solver.nodes = 0
            try:
                vals = solver.values(node)
            except SearchLimit:
                solved = False
            else:
                top = max(v for _, v in vals)
                played = _played(vals, move_step(move))
                entry.update(
                    played=played,
                    best=top,
                    loss=top - played,
                    mark=mark(rules, top - played),
                    best_moves=[step_move(s).to_dict() for s, v in vals if v == top],
                )
        seen = view(state, seat)
        if len(seen["legal"]) > 1:
            bot = HardBot(playouts=playouts, budget=0.0, clock=None)
            knew = bot.choose(seen, random.Random(seed * 1000 + k))
            entry["view_best"] = knew.to_dict()
        else:
            only = seen["legal"][0]
            entry["view_best"] = {"tile": only["tile"], "end": only["end"]}
        entries.append(entry)
    entries.reverse()
    result = end.last_result
    return {
        "version": ANALYSIS_VERSION,
        "deal_number": start.deal_number,
        "mode": rules.mode,
        "unit": unit(rules),
        "points": list(result.points),
        "solved_from": next((e["index"] for e in entries if e["mark"] is not None), None),
        "moves": entries,
    }


def biggest_mistakes(
    analysis: dict[str, Any], seats: Sequence[int], n: int = 5
) -> list[dict[str, Any]]:
    """The ``n`` moves of ``seats`` that lost most, worst first (best moves left out)."""
    lost = [
        e
        for e in analysis["moves"]
        if e["seat"] in seats and e["loss"] is not None and e["loss"] > 1e-9
    ]
    lost.sort(key=lambda e: (-e["loss"], e["index"]))
    return lost[:n]


def analyse_stored(
    rules: dict[str, Any],
    deals: Sequence[tuple[Source, Sequence[dict[str, Any]]]],
    *,
    max_nodes: int = 2_000_000,
    playouts: int = 400,
) -> dict[str, Any]:
    """``analyse_deal`` of a set's last deal in ``deals``, from stored data alone (plain data in,
    plain data out: what a worker process is sent). ``rules``: ``RuleSet.to_dict``; ``deals``:
    every deal of the set up to it, as (secret or seed, stored moves ``{"tile", "end"}``)."""
    ruleset = RuleSet.from_dict(rules)
    if not deals:
        raise ValueError("no deal to analyse")
    played = [(source, [Move.from_dict(m) for m in moves]) for source, moves in deals]
    before, _ = replay_match(ruleset, played[:-1])
    source, moves = played[-1]
    start, _ = fold(ruleset, source, [], before)
    return analyse_deal(
        ruleset, start, moves, max_nodes=max_nodes, playouts=playouts, seed=len(deals)
    )
