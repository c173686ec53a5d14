"""The engine's value types and random draws, as both builds run them (docs/ENGINE.md).

Under tests/engine/test_compiled.py these run on the compiled engine too, where records are
native classes that the garbage collector does not track.
"""

from __future__ import annotations

import gc
import json
import random
import subprocess
import sys

import engine.core
from engine import MatchState, new_match, play, pordi, random_legal_move, start_deal
from engine.core import next_float
from tests.wheel import ROOT

COMPILED = engine.core.__file__.endswith(".so")

# A few deals played through the public API; prints what they came to.
PLAY = """
import json, random
from engine import new_match, play, pordi, random_legal_move, start_deal
rng = random.Random(3)
state = new_match(pordi("ganda", target_points=3))
for seed in range(3):
    state, _ = start_deal(state, seed)
    while state.turn is not None:
        state, _ = play(state, state.turn, random_legal_move(state, rng))
print(json.dumps([state.scores, [r.result for r in state.results]]))
"""


def test_records_need_no_compiler_helpers_at_run_time() -> None:
    # mypy_extensions (where ``mypyc_attr`` comes from) is a build tool, not a dependency: an
    # install without it plays exactly as this one does.
    hidden = "import sys; sys.modules['mypy_extensions'] = None\n"
    runs = [
        subprocess.run(
            [sys.executable, "-P", "-c", prelude + PLAY],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        for prelude in (hidden, "")
    ]
    assert runs[0] == runs[1]
    scores, results = json.loads(runs[0])
    assert len(scores) == 4 and len(results) == 3


def test_compiled_records_are_left_out_of_the_garbage_collector() -> None:
    state, events = start_deal(new_match(pordi()), 1)
    state, more = play(state, state.turn or 0, random_legal_move(state, random.Random(1)))
    records = [state, state.pos, state.facts, *events, *more]
    assert all(gc.is_tracked(r) is not COMPILED for r in records)
    # Compiled, the records built on every move reuse one freed instance: never one still held.
    before = state
    for _ in range(3):
        state, _ = play(state, state.turn or 0, random_legal_move(state, random.Random(2)))
    assert isinstance(before, MatchState) and before.pos is not None
    assert len(before.pos.line) == 1 and len(state.pos.line) == 4


class Dice(random.Random):
    """A generator that draws its own way, as ``random.SystemRandom`` does."""

    def random(self) -> float:
        return 0.25


def test_next_float_is_the_generators_own_draw() -> None:
    a, b = random.Random(7), random.Random(7)
    assert [next_float(a) for _ in range(50)] == [b.random() for _ in range(50)]
    assert next_float(Dice()) == 0.25
    system = random.SystemRandom()
    assert all(0.0 <= next_float(system) < 1.0 for _ in range(20))
