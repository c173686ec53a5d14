"""Plant misbehaviour in a simulated rated ladder and measure the screening (docs/FAIRPLAY.md).

A ladder of honest Tunggal players (a hidden skill each; a set's ranks from skill plus Gumbel
noise, so the stronger win more often, as in Plackett-Luce) meets at random tables of four. Two
pairs misbehave:

* a **feeder** (``feeder`` helps ``fed``): they queue together in ``--together`` of the sets, and
  at a shared table the feeder plays for the fed player: the fed one's performance gets
  ``--help`` and the feeder's loses as much;
* a **booster** (``booster`` loses to ``boosted``): they queue together as often, and at a shared
  table the booster throws the set (finishes last);
* **two accounts from one address** (``alt_a``, ``alt_b``: one person, or one household): they
  play honestly and queue together in half as many sets, from the same address mark.

Every run screens the sets with app/players/screening.py at its documented threshold and counts:
each planted pair flagged (detection), and honest pairs flagged (false positives). Prints one line
per setting: runs, detection of each planted pair, runs with any honest pair flagged, and honest
pairs flagged per run.

    .venv/bin/python bench/fairplay.py --runs 200
    .venv/bin/python bench/fairplay.py --runs 200 --sets 150,300,600 --together 0.04,0.08
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.players.screening import ALPHA, MIN_SHARED, RatedSet, SeatResult, screen

FEEDER, FED, BOOSTER, BOOSTED = "feeder", "fed", "booster", "boosted"
ALT_A, ALT_B = "alt_a", "alt_b"
PLANTED = {(FED, FEEDER), (BOOSTED, BOOSTER)}  # (who gains, who gives)


@dataclass(frozen=True)
class Ladder:
    players: int = 40
    sets: int = 300
    together: float = 0.08  # share of the sets where each planted pair queues together
    help: float = 2.0  # a feeder's help, in units of skill


def simulate(ladder: Ladder, rng: random.Random) -> list[RatedSet]:
    """``ladder.sets`` rated Tunggal sets of four among honest players and the planted pairs."""
    honest = [f"p{n:02d}" for n in range(ladder.players - 6)]
    everyone = [*honest, FEEDER, FED, BOOSTER, BOOSTED, ALT_A, ALT_B]
    mark = {p: f"m-{p}" for p in everyone} | {ALT_B: f"m-{ALT_A}"}
    skill = {p: rng.gauss(0.0, 1.0) for p in everyone}
    sets = []
    for set_id in range(1, ladder.sets + 1):
        table: list[str] = []
        for pair, share in (
            ((FED, FEEDER), ladder.together),
            ((BOOSTED, BOOSTER), ladder.together),
            ((ALT_A, ALT_B), ladder.together / 2),
        ):
            if not table and rng.random() < share:
                table = list(pair)
        while len(table) < 4:
            pick = rng.choice(everyone)
            if pick not in table:
                table.append(pick)
        performance = {p: skill[p] - math.log(-math.log(rng.random() or 1e-12)) for p in table}
        if FED in table and FEEDER in table:
            performance[FED] += ladder.help
            performance[FEEDER] -= ladder.help
        if BOOSTED in table and BOOSTER in table:
            performance[BOOSTER] = -math.inf
        order = sorted(table, key=lambda p: performance[p], reverse=True)
        seats = tuple(
            SeatResult(
                player_id=p,
                team=seat,
                rank=order.index(p) + 1,
                won=order[0] == p,
                gain=1.5 - order.index(p),  # a rank above the middle gains, as a rating does
                client_mark=mark[p],
            )
            for seat, p in enumerate(table)
        )
        sets.append(RatedSet(set_id=set_id, seats=seats))
    return sets


@dataclass
class Measured:
    runs: int = 0
    fed_found: int = 0
    boosted_found: int = 0
    runs_with_false: int = 0
    false_flags: int = 0
    address_found: int = 0
    address_false: int = 0  # runs listing another pair as sharing an address


def measure(ladder: Ladder, runs: int, seed: int, alpha: float = ALPHA) -> Measured:
    measured = Measured()
    for run in range(runs):
        sets = simulate(ladder, random.Random(seed * 1_000_003 + run))
        found = screen(sets, alpha=alpha)
        flagged = {(f.player_id, f.partner_id) for f in found.flags}
        planted = {frozenset(p) for p in PLANTED}
        measured.runs += 1
        measured.fed_found += any(frozenset(f) == frozenset((FED, FEEDER)) for f in flagged)
        measured.boosted_found += any(
            frozenset(f) == frozenset((BOOSTED, BOOSTER)) for f in flagged
        )
        false = [f for f in flagged if frozenset(f) not in planted]
        measured.false_flags += len(false)
        measured.runs_with_false += bool(false)
        households = {frozenset((s.player_id, s.partner_id)) for s in found.shared_address}
        measured.address_found += frozenset((ALT_A, ALT_B)) in households
        measured.address_false += bool(households - {frozenset((ALT_A, ALT_B))})
    return measured


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--sets", default="300", help="comma list")
    parser.add_argument("--together", default="0.08", help="comma list")
    parser.add_argument("--help-skill", type=float, default=2.0, dest="help_skill")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--alpha", type=float, default=ALPHA)
    args = parser.parse_args()
    print(f"alpha {args.alpha} (Bonferroni over the pairs tested); pairs: >= {MIN_SHARED} meetings")
    print(
        "sets  together  runs  feeder found  booster found  runs with a false flag  false/run"
        "  one address found  other address pairs"
    )
    for sets in (int(x) for x in args.sets.split(",")):
        for together in (float(x) for x in args.together.split(",")):
            ladder = Ladder(args.players, sets, together, args.help_skill)
            m = measure(ladder, args.runs, args.seed, args.alpha)
            print(
                f"{sets:4d}  {together:8.2f}  {m.runs:4d}  {m.fed_found / m.runs:12.1%}"
                f"  {m.boosted_found / m.runs:13.1%}  {m.runs_with_false / m.runs:22.1%}"
                f"  {m.false_flags / m.runs:9.3f}  {m.address_found / m.runs:17.1%}"
                f"  {m.address_false / m.runs:19.1%}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
