"""Random full deals per second: this engine vs the PyPI ``dominoes`` package, same run, one core.

    .venv/bin/python bench/engine_playouts.py [--seconds 5] [--compiled]

``--compiled``: the engine as a ``GAPLE_COMPILE=1`` wheel builds it (docs/ENGINE.md, "Compiled
engine"), built first into a temporary directory; without it, the pure-Python engine of the
checkout. The first line of the output names the engine measured.

Engine: the public API path, ``start_deal`` (seeded shuffle, redeals) + ``random_legal_move`` +
``play`` until the deal ends, with immutable states and every event, as the server drives a
table. The last line compares it (Tunggal) with the ``dominoes`` figure of the same run.
Rates are per second of this process's CPU time (``time.process_time``), in interleaved rounds,
so that other jobs on a shared machine disturb both contestants alike.
``dominoes``: a random 4-player game as its own ``players.random`` plays it (``dominoes`` is a
benchmark-only install: ``.venv/bin/pip install dominoes``).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Appended, not inserted: a compiled engine on PYTHONPATH (--compiled) comes first.
sys.path.append(str(Path(__file__).resolve().parents[1]))

import engine.core
from engine import new_match, play, pordi, random_legal_move, start_deal


def engine_deals(seconds: float, mode: str = "tunggal") -> tuple[int, float]:
    rules = pordi(mode)
    fresh = new_match(rules)
    rng = random.Random(1)
    n = 0
    t0 = time.process_time()
    end = t0 + seconds
    while True:
        for _ in range(10):
            state, _ = start_deal(fresh, n)
            while state.phase == "playing":
                turn = state.turn
                assert turn is not None
                state, _ = play(state, turn, random_legal_move(state, rng))
            n += 1
        now = time.process_time()
        if now >= end:
            return n, now - t0


def dominoes_games(seconds: float) -> tuple[int, float] | None:
    try:
        import dominoes
    except ImportError:
        return None
    random.seed(1)  # the package uses the global generator
    n = 0
    t0 = time.process_time()
    end = t0 + seconds
    while True:
        for _ in range(10):
            game = dominoes.Game.new()
            while game.result is None:
                dominoes.players.random(game)
                game.make_move(*game.valid_moves[0])
            n += 1
        now = time.process_time()
        if now >= end:
            return n, now - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="time per contestant")
    ap.add_argument("--rounds", type=int, default=10, help="interleaved rounds")
    ap.add_argument("--compiled", action="store_true", help="measure the compiled engine")
    args = ap.parse_args()
    if args.compiled:
        return run_compiled([a for a in sys.argv[1:] if a != "--compiled"])
    build = "compiled (mypyc)" if engine.core.__file__.endswith(".so") else "pure Python"
    print(f"python {sys.version.split()[0]}, engine {build}")
    print(f"{args.seconds:g} s each in {args.rounds} rounds")
    # Interleaved rounds: a load change on a shared machine hits every contestant alike.
    slot = args.seconds / args.rounds
    totals = {"dominoes": [0, 0.0], "ganda": [0, 0.0], "tunggal": [0, 0.0]}
    for _ in range(args.rounds):
        theirs = dominoes_games(slot)
        if theirs is None:
            print("dominoes: not installed - `.venv/bin/pip install dominoes` (bench only)")
            return 1
        for key, (n, dt) in (
            ("dominoes", theirs),
            ("ganda", engine_deals(slot, "ganda")),
            ("tunggal", engine_deals(slot)),
        ):
            totals[key][0] += n
            totals[key][1] += dt
    rate = {k: n / dt for k, (n, dt) in totals.items()}
    print(f"dominoes 6.x (random 4-player game):         {rate['dominoes']:9.0f} games/s")
    print(f"engine API path (states + events, ganda):    {rate['ganda']:9.0f} deals/s")
    print(f"engine API path (states + events, tunggal):  {rate['tunggal']:9.0f} deals/s")
    print(f"engine vs dominoes: {rate['tunggal'] / rate['dominoes']:.1f}x")
    return 0


def run_compiled(argv: list[str]) -> int:
    """This benchmark again, in a process that imports the engine from a compiled wheel."""
    from tests.wheel import compiled_engine

    with tempfile.TemporaryDirectory(prefix="gaple-compiled-") as out:
        print("building the compiled engine ...", flush=True)
        site = compiled_engine(Path(out))
        env = {**os.environ, "PYTHONPATH": str(site)}
        command = [sys.executable, "-P", __file__, *argv]
        return subprocess.run(command, env=env, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main())
