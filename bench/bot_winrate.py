"""Win rate of one ``heuristic`` bot against three ``random`` bots over seeded Tunggal sets.

    .venv/bin/python bench/bot_winrate.py [--sets 2000] [--seed 1] [--mode tunggal]

The heuristic bot sits at a seat that rotates with the set number; a tied set (possible only
when Additional Games are switched off) counts as no win. Each bot sees only its seat's view.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import BOTS, new_match, play, pordi, start_deal, view
from engine.rules import RuleSet


def play_set(rules: RuleSet, hero: int, seed: int) -> bool:
    """One set; True when the heuristic bot at seat ``hero`` wins it (Ganda: its team)."""
    rng = random.Random(seed)
    state = new_match(rules)
    k = 0
    while state.phase != "set_over":
        state, _ = start_deal(state, seed * 1000 + k)
        k += 1
        while state.phase == "playing":
            seat = state.turn
            assert seat is not None
            bot = BOTS["heuristic" if seat == hero else "random"]
            state, _ = play(state, seat, bot.choose(view(state, seat), rng))
    result = state.set_result
    assert result is not None
    return hero in result["winners"] and (rules.teams or len(result["winners"]) == 1)


def win_rate(sets: int, seed: int = 1, mode: str = "tunggal") -> tuple[int, int]:
    rules = pordi(mode)
    wins = sum(play_set(rules, n % rules.players, seed * 1_000_003 + n) for n in range(sets))
    return wins, sets


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mode", default="tunggal", choices=["tunggal", "ganda"])
    args = ap.parse_args()
    t0 = time.perf_counter()
    wins, n = win_rate(args.sets, args.seed, args.mode)
    rate = wins / n
    share = 0.25 if args.mode == "tunggal" else 0.5
    z = (rate - share) / math.sqrt(share * (1 - share) / n)
    print(
        f"{args.mode}: heuristic won {wins}/{n} sets = {rate:.1%} "
        f"(fair share {share:.0%}, z = {z:.1f}) in {time.perf_counter() - t0:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
