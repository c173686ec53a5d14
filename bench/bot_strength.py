"""How often the hard bot wins whole sets against normal bots: Tunggal and Ganda.

    .venv/bin/python bench/bot_strength.py [--sets 1000] [--seed 1] [--jobs 2] [--playouts N]

Tunggal: one hard bot against three normal ones, its seat rotating with the set number
(fair share 25%). Ganda: a hard team against a normal team, the seats alternated (fair share
50%). Every deal is seeded; each bot sees only its seat's view. The hard bot runs with the
service's limits: ``HardBot`` with a CPU-time budget per decision (``--budget``) and a playout
cap (``--playouts``). The last line reads
``hard vs normal: tunggal X.X% of sets (fair share 25%), ganda Y.Y% of sets (fair share 50%)``.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import BOTS, Bot, HardBot, new_match, play, pordi, start_deal, view
from engine.rules import RuleSet


def play_set(
    rules: RuleSet, hard: Bot, heroes: tuple[int, ...], seed: int
) -> tuple[bool, list[float]]:
    """One set; whether the hard seats won it, and the CPU seconds of each hard decision."""
    rng = random.Random(seed)
    normal = BOTS["normal"]
    state = new_match(rules)
    k = 0
    thinking: list[float] = []
    while state.phase != "set_over":
        state, _ = start_deal(state, seed * 1000 + k)
        k += 1
        while state.phase == "playing":
            seat = state.turn
            assert seat is not None
            seen = view(state, seat)
            if seat in heroes:
                t0 = time.process_time()
                move = hard.choose(seen, rng)
                thinking.append(time.process_time() - t0)
            else:
                move = normal.choose(seen, rng)
            state, _ = play(state, seat, move)
    result = state.set_result
    assert result is not None
    won = any(s in result["winners"] for s in heroes) and (
        rules.teams or len(result["winners"]) == 1
    )
    return won, thinking


def _chunk(args: tuple[str, int, int, int, int, float]) -> tuple[int, list[float]]:
    mode, start, stop, seed, playouts, budget = args
    rules = pordi(mode)
    hard = HardBot(playouts=playouts, budget=budget, clock=time.process_time)
    wins = 0
    thinking: list[float] = []
    for n in range(start, stop):
        heroes = (n % 4,) if mode == "tunggal" else (n % 2, n % 2 + 2)
        won, t = play_set(rules, hard, heroes, seed * 1_000_003 + n)
        wins += won
        thinking += t
    return wins, thinking


def win_rate(
    mode: str,
    sets: int,
    *,
    seed: int = 1,
    jobs: int = 1,
    playouts: int = 1200,
    budget: float = 0.12,
) -> tuple[int, list[float]]:
    """Sets won by the hard side out of ``sets``, and every hard decision's CPU seconds."""
    step = max(1, math.ceil(sets / (jobs * 8)))
    chunks = [(mode, a, min(sets, a + step), seed, playouts, budget) for a in range(0, sets, step)]
    if jobs <= 1:
        parts = [_chunk(c) for c in chunks]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            parts = list(pool.map(_chunk, chunks))
    return sum(w for w, _ in parts), [t for _, ts in parts for t in ts]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--playouts", type=int, default=HardBot.playouts)
    ap.add_argument("--budget", type=float, default=HardBot.budget, help="CPU s per decision")
    args = ap.parse_args()
    rates = {}
    for mode, share in (("tunggal", 0.25), ("ganda", 0.5)):
        t0 = time.perf_counter()
        wins, thinking = win_rate(
            mode,
            args.sets,
            seed=args.seed,
            jobs=args.jobs,
            playouts=args.playouts,
            budget=args.budget,
        )
        rate = wins / args.sets
        z = (rate - share) / math.sqrt(share * (1 - share) / args.sets)
        thinking.sort()
        p99 = thinking[int(0.99 * (len(thinking) - 1))] if thinking else 0.0
        mean = sum(thinking) / len(thinking) if thinking else 0.0
        print(
            f"{mode}: hard won {wins}/{args.sets} sets = {rate:.1%} (z = {z:.1f}); "
            f"{len(thinking)} decisions, CPU mean {mean * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
            f"max {thinking[-1] * 1000 if thinking else 0:.0f} ms; "
            f"{time.perf_counter() - t0:.0f} s",
            flush=True,
        )
        rates[mode] = rate
    print(
        f"hard vs normal: tunggal {rates['tunggal']:.1%} of sets (fair share 25%), "
        f"ganda {rates['ganda']:.1%} of sets (fair share 50%)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
