"""The scenario runner (RULES.md §3): ``python -m engine.scenario PATH``.

``PATH`` ending in ``.jsonl`` holds one scenario per line, anything else one JSON scenario.
One JSON line is printed per scenario: ``end``, ``result``, ``winner``, ``points``, ``pips``
(and ``counts`` under Klasik count scoring), or ``{"error": "<code>: <message>"}`` for an
illegal or malformed one (then the next is run). Exit status: 0 when the file could be read,
2 when it could not.

Klasik additions to the format (docs/ENGINE_API.md): ``hands`` has ``rules.players`` seats of
``rules.hand_size`` tiles; ``start`` is the face-up start tile as drawn (``"5-2"``: left end
5); ``set_aside`` (optional) lists the tiles set aside, which must be exactly the tiles left
(under ``stuck: "draw"`` in the order they are drawn);
``opener`` is required on a first deal whose first mover is a random seat; a move is
``{"seat": s, "tile": "a-b", "end"?}`` or ``{"seat": s, "discard": "a-b"}``.

Everything above the ``__main__`` block is pure; the block at the bottom is the only code in
``engine/`` that touches files or the process (tests/engine/test_purity.py checks this).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from engine.deal import DISCARD, Move
from engine.errors import BadScenario, DealOver, EngineError
from engine.match import begin_deal, play, scenario_match
from engine.rules import RuleSet, rules_from_settings
from engine.tiles import COUNT, FULL_MASK, HIGH, LOW, Tile, names, parse_index

EXPECT_KEYS = ("end", "result", "winner", "points", "pips")


def _hands(raw: Any, players: int, size: int) -> tuple[int, ...]:
    if not isinstance(raw, list) or len(raw) != players:
        raise BadScenario(f"hands must be {players} lists of {size} tiles, one per seat")
    seen: dict[int, int] = {}
    masks = []
    for seat, hand in enumerate(raw):
        if not isinstance(hand, list) or len(hand) != size:
            raise BadScenario(f"seat {seat}'s hand must hold {size} tiles, not {hand!r}")
        m = 0
        for text in hand:
            i = parse_index(text)
            if i in seen:
                raise BadScenario(
                    f"tile {LOW[i]}-{HIGH[i]} is dealt twice (seats {seen[i]} and {seat})"
                )
            seen[i] = seat
            m |= 1 << i
        masks.append(m)
    if len(seen) != COUNT and players * size == COUNT:
        raise BadScenario("the hands must hold each of the 28 tiles once")
    return tuple(masks)


def _start(
    scenario: dict[str, Any], rules: RuleSet, hands: tuple[int, ...]
) -> tuple[tuple[int, int] | None, int]:
    """The face-up start tile as drawn and the mask of the tiles set aside."""
    dealt = 0
    for h in hands:
        dealt |= h
    raw = scenario.get("start")
    start = None
    if rules.face_up_start:
        if raw is None:
            raise BadScenario("these rules start the line with a face-up tile: give 'start'")
        i = parse_index(raw)
        if dealt >> i & 1:
            raise BadScenario(f"the start tile {LOW[i]}-{HIGH[i]} is also in a hand")
        text = raw.strip()
        start = (int(text[0]), int(text[-1]))
        dealt |= 1 << i
    elif raw is not None:
        raise BadScenario("these rules have no face-up start tile: drop 'start'")
    set_aside = FULL_MASK & ~dealt
    given = scenario.get("set_aside")
    if given is not None:
        if not isinstance(given, list):
            raise BadScenario("set_aside must be a list of tiles")
        m = 0
        for t in given:
            m |= 1 << parse_index(t)
        if m != set_aside or len(given) != rules.set_aside_count:
            raise BadScenario(
                f"set_aside must be the {rules.set_aside_count} tiles not dealt: "
                f"{', '.join(names(set_aside)) or 'none'}"
            )
    return start, set_aside


def _boneyard(scenario: dict[str, Any]) -> tuple[int, ...] | None:
    """Draw rules: the order of ``set_aside`` as written is the boneyard's, next draw first."""
    given = scenario.get("set_aside")
    if not isinstance(given, list):
        return None
    return tuple(parse_index(t) for t in given)


def _move(raw: Any, k: int) -> tuple[int, Move]:
    if not isinstance(raw, dict) or "seat" not in raw or ("tile" in raw) == ("discard" in raw):
        raise BadScenario(
            f"move {k} must be an object with seat and tile (or seat and discard), not {raw!r}"
        )
    seat = raw["seat"]
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise BadScenario(f"move {k}: seat must be a number, not {seat!r}")
    if "discard" in raw:
        if "end" in raw:
            raise BadScenario(f"move {k}: a discard has no end")
        return seat, Move(Tile.parse(raw["discard"]), DISCARD)
    text = raw["tile"]
    tile = Tile.parse(text)
    end = raw.get("end")
    if end not in (None, "left", "right"):
        raise BadScenario(f"move {k}: end must be 'left' or 'right', not {end!r}")
    # As written, the opening tile "a-b" puts a on the left (RULES.md §3).
    left = int(text.strip()[0])
    return seat, Move(tile, end, left)


def run_scenario(scenario: Any) -> dict[str, Any]:
    """Play one scenario; the outcome with the keys of ``expect``. Raises ``EngineError``."""
    if not isinstance(scenario, dict):
        raise BadScenario("a scenario is a JSON object")
    for key in ("rules", "hands", "moves"):
        if key not in scenario:
            raise BadScenario(f"the scenario has no {key!r}")
    rules = rules_from_settings(scenario["rules"])
    first = scenario.get("first_deal", True)
    if not isinstance(first, bool):
        raise BadScenario("first_deal must be true or false")
    opener = scenario.get("opener")
    if opener is not None and (
        isinstance(opener, bool) or not isinstance(opener, int) or not 0 <= opener < rules.players
    ):
        raise BadScenario(f"opener must be a seat 0..{rules.players - 1}, not {opener!r}")
    hands = _hands(scenario["hands"], rules.players, rules.hand_size)
    start, set_aside = _start(scenario, rules, hands)
    if first and rules.first_opener == "random" and opener is None:
        raise BadScenario("the first deal's first mover is a random seat: give 'opener'")
    state = scenario_match(rules, first_deal=first, opener=opener)
    boneyard = _boneyard(scenario) if rules.draws else None
    state, _ = begin_deal(
        state, hands, opener=opener, start=start, set_aside=set_aside, boneyard=boneyard
    )
    moves = scenario["moves"]
    if not isinstance(moves, list):
        raise BadScenario("moves must be a list")
    for k, raw in enumerate(moves):
        seat, move = _move(raw, k)
        if state.phase != "playing":
            verb = "discards" if move.is_discard else "plays"
            raise DealOver(
                f"move {k} (seat {seat} {verb} {move.tile}) comes after the end of the deal"
            )
        if not 0 <= seat < rules.players:
            raise BadScenario(f"move {k}: there is no seat {seat}")
        state, _ = play(state, seat, move)
    result = state.last_result
    if state.phase == "playing" or result is None:
        raise BadScenario(f"the moves do not finish the deal (seat {state.turn} to play)")
    out = {
        "end": result.end,
        "result": result.result,
        "winner": result.winner,
        "points": list(result.points),
        "pips": list(result.pips),
    }
    if rules.counts:
        out["counts"] = list(result.counts)
    if rules.draws:
        out["boneyard"] = names(result.set_aside)  # the tiles nobody drew
    return out


def outcome(scenario: Any) -> dict[str, Any]:
    """``run_scenario`` with errors turned into ``{"error": "<code>: <message>"}``."""
    try:
        return run_scenario(scenario)
    except EngineError as exc:
        return {"error": f"{exc.code}: {exc.message}"}


def run_text(text: str, jsonl: bool) -> list[dict[str, Any]]:
    """Every scenario of a file's text: one outcome per scenario (per non-blank line)."""
    docs = [line for line in text.splitlines() if line.strip()] if jsonl else [text]
    out = []
    for k, doc in enumerate(docs, start=1):
        try:
            scenario = json.loads(doc)
        except json.JSONDecodeError as exc:
            where = f"line {k}" if jsonl else "the file"
            out.append({"error": f"bad_scenario: {where} is not valid JSON ({exc.msg})"})
            continue
        out.append(outcome(scenario))
    return out


def main(argv: list[str], read_text: Callable[[str], str], write: Callable[[str], None]) -> int:
    """The CLI with its I/O injected: returns the exit status."""
    if len(argv) != 1:
        write(json.dumps({"error": "usage: python -m engine.scenario PATH(.json|.jsonl)"}))
        return 2
    path = argv[0]
    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        write(json.dumps({"error": f"cannot read {path}: {exc}"}))
        return 2
    for result in run_text(text, path.endswith(".jsonl")):
        write(json.dumps(result))
    return 0


if __name__ == "__main__":
    # The CLI proper: the only file and process access in engine/ (allowed by test_purity).
    import sys
    from pathlib import Path

    def _read(path: str) -> str:
        return Path(path).read_text(encoding="utf-8")

    def _write(line: str) -> None:
        sys.stdout.write(line + "\n")

    sys.exit(main(sys.argv[1:], _read, _write))
