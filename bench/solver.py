"""The open-hand solver's speed: whole PORDI deals solved from the first move, one core.

    .venv/bin/python bench/solver.py [--deals 200] [--modes ganda,tunggal]
        [--engines pure,compiled] [--site DIR] [--max-nodes N] [--playouts N] [-v]

For each of ``--deals`` seeded deals (seeds 0, 1, ...): ``solve``, the exact value of the
first position (one search, a fresh table), and ``analyse``, every legal move of every
position of the deal as a random (easy) bot played it, from the last move back to the first on
one solver (what ``engine.analysis.analyse_deal`` does, without the hard bot's playouts).
Prints p50 / p95 / max of the CPU seconds (``time.process_time``) and of the positions
searched. ``--max-nodes``: the per-position budget of the analysis (0: none); deals that hit
it are counted. ``--playouts N`` (0: not measured) adds ``full``: the whole analysis the service
stores, ``engine.analysis.analyse_deal`` with the hard bot's ``N`` playouts per move next to the
solver (the service's ``GAPLE_ANALYSIS_PLAYOUTS`` is 400).

``--engines``: ``pure``, the pure-Python engine of the checkout, in this process; ``compiled``,
the engine as a ``GAPLE_COMPILE=1`` wheel builds it (docs/ENGINE.md, "Compiled engine"; the
solver is among the compiled modules), built first into a temporary directory (or taken from
``--site``, a directory ``tests/wheel.compiled_engine`` made), in a child process run after the
pure one, never beside it: one process measures at a time. The first line of each engine's
output names the engine it measured.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

# Appended, not inserted: a compiled engine on PYTHONPATH (--engines compiled) comes first.
sys.path.append(str(Path(__file__).resolve().parents[1]))

import engine.solver
from engine import Move, new_match, play, pordi, start_deal, view
from engine.analysis import analyse_deal
from engine.bots import EASY
from engine.solver import SearchLimit, Solver, node_of


def pct(xs: Sequence[float], q: float) -> float:
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(q * len(ys)))]


ENGINES = ("pure", "compiled")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--modes", default="ganda,tunggal")
    ap.add_argument("--engines", default="pure", help="pure, compiled or pure,compiled")
    ap.add_argument("--site", type=Path, help="a compiled engine already built (tests/wheel.py)")
    ap.add_argument("--max-nodes", type=int, default=0)
    ap.add_argument("--playouts", type=int, default=0, help="also time analyse_deal with these")
    ap.add_argument("-v", "--verbose", action="store_true", help="a line per deal (stderr)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    engines = args.engines.split(",")
    if not set(engines) <= set(ENGINES):
        ap.error(f"--engines: choose from {', '.join(ENGINES)}")
    if args.child:  # the compiled engine's process: measure what this process imported
        measure(args)
        return 0
    for name in engines:
        if name == "pure":
            measure(args)
        else:
            code = run_compiled(args)
            if code:
                return code
    return 0


def run_compiled(args: argparse.Namespace) -> int:
    """This benchmark again, in a process that imports the engine from a compiled wheel."""
    argv = ["--deals", str(args.deals), "--modes", args.modes, "--max-nodes", str(args.max_nodes)]
    argv += ["--playouts", str(args.playouts)]
    command = [sys.executable, "-P", __file__, *argv, *["-v"] * args.verbose, "--child"]
    if args.site is not None:
        env = {**os.environ, "PYTHONPATH": str(args.site)}
        return subprocess.run(command, env=env, check=False).returncode
    from tests.wheel import compiled_engine

    with tempfile.TemporaryDirectory(prefix="gaple-compiled-") as out:
        print("building the compiled engine ...", flush=True)
        built = compiled_engine(Path(out))
        env = {**os.environ, "PYTHONPATH": str(built)}
        return subprocess.run(command, env=env, check=False).returncode


def measure(args: argparse.Namespace) -> None:
    compiled = str(engine.solver.__file__).endswith(".so")
    build = "compiled engine (mypyc, solver included)" if compiled else "pure-Python engine"
    print(f"python {sys.version.split()[0]}, {build}, {args.deals} deals per mode", flush=True)
    for mode in args.modes.split(","):
        rules = pordi(mode)
        solve_t: list[float] = []
        an_t: list[float] = []
        solve_n: list[int] = []
        an_n: list[int] = []
        full_t: list[float] = []
        limited = 0
        for seed in range(args.deals):
            start, _ = start_deal(new_match(rules), seed)
            t = time.process_time()
            s = Solver(rules)
            s.value(node_of(start))
            solve_t.append(time.process_time() - t)
            solve_n.append(s.nodes)
            rng = random.Random(seed)
            states = [start]
            moves: list[Move] = []
            while states[-1].phase == "playing":
                st = states[-1]
                assert st.turn is not None
                moves.append(EASY.choose(view(st, st.turn), rng))
                states.append(play(st, st.turn, moves[-1])[0])
            t = time.process_time()
            s = Solver(rules, args.max_nodes)
            nodes = 0
            try:
                for st in reversed(states[:-1]):
                    s.nodes = 0
                    s.values(node_of(st))
                    nodes += s.nodes
            except SearchLimit:
                limited += 1
            an_t.append(time.process_time() - t)
            an_n.append(nodes)
            full = ""
            if args.playouts:
                t = time.process_time()
                analyse_deal(rules, start, moves, max_nodes=args.max_nodes, playouts=args.playouts)
                full_t.append(time.process_time() - t)
                full = f", full {full_t[-1]:.2f} s"
            if args.verbose:
                print(
                    f"  {mode} deal {seed}: solve {solve_t[-1]:.2f} s {solve_n[-1]} positions, "
                    f"analyse {an_t[-1]:.2f} s {nodes} positions{full}",
                    file=sys.stderr,
                    flush=True,
                )
        rows = [("solve", solve_t, solve_n), ("analyse", an_t, an_n)]
        for name, ts, ns in rows:
            print(
                f"{mode:8} {name:8} s: p50 {pct(ts, 0.5):.2f} p95 {pct(ts, 0.95):.2f} "
                f"max {max(ts):.2f} | positions: p50 {pct(ns, 0.5):.0f} "
                f"p95 {pct(ns, 0.95):.0f} max {max(ns):.0f} | mean {statistics.mean(ts):.2f} s"
            )
        if full_t:
            print(
                f"{mode:8} full     s: p50 {pct(full_t, 0.5):.2f} p95 {pct(full_t, 0.95):.2f} "
                f"max {max(full_t):.2f} | {args.playouts} playouts a move | "
                f"mean {statistics.mean(full_t):.2f} s"
            )
        if args.max_nodes:
            print(f"{mode:8} analyses that hit the budget: {limited} of {args.deals}")


if __name__ == "__main__":
    raise SystemExit(main())
