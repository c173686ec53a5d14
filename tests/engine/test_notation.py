"""The Gaple record: whole seeded sets round-trip exactly; the checker refuses what does not
replay; a parse error names its line and column."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from itertools import product
from pathlib import Path
from typing import Any

import pytest

import engine.notation
from engine import Move, klasik, new_match, play, pordi, random_legal_move, start_deal
from engine.errors import BadRules
from engine.notation import BadRecord, check, parse, record_of, write
from engine.rules import (
    MODES,
    PRESET_FIXED,
    PRESET_SCORINGS,
    PRESET_SHAPES,
    PRESETS,
    STUCK,
    RuleSet,
)

RULES: dict[str, RuleSet] = {
    "pordi tunggal": pordi("tunggal", deals_per_set=3),
    "pordi ganda": pordi("ganda", target_points=4),
    "klasik discard": klasik(deals_per_set=2, target_points=30),
    "klasik pass": klasik(stuck="pass", deals_per_set=2, target_points=30),
    "klasik draw": klasik(stuck="draw", deals_per_set=2, target_points=30),
    "klasik 5 players": klasik(5, deals_per_set=2, target_points=30),
    "klasik seven tiles": klasik(seven_tiles=True, deals_per_set=2, target_points=30),
    "klasik penalty": klasik(scoring="penalty", deals_per_set=2),
    "klasik 0-0 counts 25": klasik(zero_zero_25=True, deals_per_set=2, target_points=30),
}


def seeded_set(rules: RuleSet, seed: int) -> list[tuple[int | str, list[Move]]]:
    rng = random.Random(seed)
    state = new_match(rules)
    deals: list[tuple[int | str, list[Move]]] = []
    while state.phase != "set_over":
        source: int | str = rng.randrange(2**31) if seed % 2 else f"{rng.getrandbits(256):064x}"
        state, _ = (
            start_deal(state, source)
            if isinstance(source, int)
            else start_deal(state, secret=source)
        )
        moves = []
        while state.phase == "playing":
            assert state.turn is not None
            move = random_legal_move(state, rng)
            moves.append(move)
            state, _ = play(state, state.turn, move)
        deals.append((source, moves))
    return deals


@pytest.mark.parametrize("name", list(RULES))
def test_whole_sets_round_trip_and_check(name: str) -> None:
    rules = RULES[name]
    for seed in range(4):
        seats = [f'Pemain {i} "x" é' for i in range(rules.players)]
        record = record_of(rules, seats, seeded_set(rules, seed))
        text = write(record)
        assert parse(text) == record
        assert write(parse(text)) == text
        assert check(text) == record
        assert record.scores is not None and len(record.deals) >= 1


def every_preset_combination() -> Iterator[tuple[str, RuleSet]]:
    """Every rule set the presets allow, from the engine's own lists of them: each preset's
    shapes (players, tiles each), scorings, modes, stuck rules and the 0-0 option, less what a
    preset fixes and what the engine refuses (seven tiles with drawing)."""
    for preset, make in PRESETS.items():
        fixed = PRESET_FIXED[preset]
        modes = (fixed["mode"],) if "mode" in fixed else MODES
        stucks = (fixed["stuck"],) if "stuck" in fixed else STUCK
        zeros = (fixed["zero_zero_25"],) if "zero_zero_25" in fixed else (False, True)
        space = product(PRESET_SHAPES[preset], PRESET_SCORINGS[preset], modes, stucks, zeros)
        for (players, hand), scoring, mode, stuck, zero in space:
            options: dict[str, Any] = {"mode": mode, "deals_per_set": 2}
            if preset == "klasik":
                options |= {"players": players, "seven_tiles": hand == 7, "stuck": stuck}
                options |= {"zero_zero_25": zero, "scoring": scoring, "target_points": 30}
            else:
                options["target_points"] = 3
            try:
                rules = make(**options)
            except BadRules:
                continue
            assert (rules.players, rules.hand_size, rules.scoring) == (players, hand, scoring)
            assert (rules.mode, rules.stuck, rules.zero_zero_25) == (mode, stuck, zero)
            name = f"{preset} {mode} {players}x{hand} {scoring} {stuck}" + " 0-0=25" * zero
            yield name, rules


COMBINATIONS = dict(every_preset_combination())


def test_the_combinations_cover_every_choice_of_the_presets() -> None:
    rule_sets = list(COMBINATIONS.values())
    assert {r.preset for r in rule_sets} == set(PRESETS)
    assert {r.mode for r in rule_sets} == set(MODES)
    assert {r.stuck for r in rule_sets} == set(STUCK)
    for preset in PRESETS:
        mine = [r for r in rule_sets if r.preset == preset]
        assert {(r.players, r.hand_size) for r in mine} == set(PRESET_SHAPES[preset])
        assert {r.scoring for r in mine} == set(PRESET_SCORINGS[preset])
    klasik_sets = [r for r in rule_sets if r.preset == "klasik"]
    assert {r.zero_zero_25 for r in klasik_sets} == {False, True}
    assert len(COMBINATIONS) == 34  # 2 PORDI + 3 shapes x 2 scorings x 3 stuck x 2, less 4


@pytest.mark.parametrize("name", list(COMBINATIONS))
def test_every_preset_combination_round_trips_and_checks(name: str) -> None:
    rules = COMBINATIONS[name]
    for seed in range(2):  # a seeded set and a set of fair deals (secrets)
        record = record_of(rules, [f"P{i}" for i in range(rules.players)], seeded_set(rules, seed))
        text = write(record)
        assert parse(text) == record
        assert write(parse(text)) == text
        assert check(text) == record


def test_checking_plays_each_move_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # A long record (21 deals, several hundred moves): a checker that replayed from the start
    # for each move would play tens of thousands of moves; this one plays each move once.
    rules = pordi("tunggal", deals_per_set=21)
    text = write(record_of(rules, ["A", "B", "C", "D"], seeded_set(rules, 3)))
    moves = sum(1 for line in text.split("\n") if line.startswith("  "))
    assert moves > 400
    played: list[int] = []

    def counted(*args: Any) -> Any:
        played.append(1)
        return play(*args)

    monkeypatch.setattr(engine.notation, "play", counted)
    assert len(check(text).deals) == 21
    assert len(played) == moves


def test_the_checker_refuses_a_move_after_the_deal_ended() -> None:
    text = a_text()
    lines = text.split("\n")
    k = line_of(text, "points ")
    extra = lines[k - 2]  # the deal's last move, once more
    bad = "\n".join([*lines[: k - 1], extra, *lines[k - 1 :]])
    with pytest.raises(BadRecord) as err:
        check(bad)
    assert err.value.line == k


def a_text() -> str:
    rules = RULES["pordi ganda"]
    return write(record_of(rules, ["A", "B", "C", "D"], seeded_set(rules, 1)))


def line_of(text: str, prefix: str, nth: int = 0) -> int:
    return [i for i, raw in enumerate(text.split("\n"), start=1) if raw.startswith(prefix)][nth]


def test_the_checker_refuses_an_illegal_move() -> None:
    text = a_text()
    lines = text.split("\n")
    k = line_of(text, "  ", 3)  # the fourth move of the first deal
    seat, tile = lines[k - 1].split()[:2]
    held = {ln.split()[1] for ln in lines if ln.startswith("  ")}
    other = next(t for t in sorted(held) if t != tile)
    lines[k - 1] = f"  {seat} 6-6" if tile != "6-6" else f"  {seat} {other}"
    with pytest.raises(BadRecord) as err:
        check("\n".join(lines))
    assert err.value.line == k


def test_the_checker_refuses_a_wrong_result() -> None:
    text = a_text()
    lines = text.split("\n")
    k = line_of(text, "points ")
    points = [int(p) for p in lines[k - 1].split()[1:]]
    lines[k - 1] = "points " + " ".join(str(p + 1) for p in points)
    parse("\n".join(lines))  # well formed
    with pytest.raises(BadRecord) as err:
        check("\n".join(lines))
    assert err.value.line == k
    wrong_set = text.replace("\nset ", "\nset 9", 1)
    with pytest.raises(BadRecord, match="totals"):
        check(wrong_set)


@pytest.mark.parametrize(
    ("edit", "line", "column"),
    [
        (lambda t: t.replace("gaple-record 1", "gaple 1"), 1, 1),
        (lambda t: t.replace("rules {", "rules [", 1), 2, 7),
        (lambda t: t.replace("\n  ", "\n  x", 1), None, 3),
        (lambda t: t.replace(" 0-", " 0-9", 1) if " 0-" in t else t, None, None),
        (lambda t: t.replace("\ndeal 1 ", "\ndeal 2 ", 1), None, 6),
        (lambda t: t.replace("\npoints", "\nscore", 1), None, 1),
    ],
)
def test_a_parse_error_names_its_line_and_column(edit, line, column) -> None:  # type: ignore[no-untyped-def]
    text = a_text()
    bad = edit(text)
    assert bad != text
    with pytest.raises(BadRecord) as err:
        parse(bad)
    if line is not None:
        assert err.value.line == line
    else:
        first_diff = next(
            i
            for i, (a, b) in enumerate(
                zip(text.split("\n"), bad.split("\n"), strict=False), start=1
            )
            if a != b
        )
        assert err.value.line == first_diff
    if column is not None:
        assert err.value.column == column
    assert f"line {err.value.line}, column {err.value.column}" in err.value.message


def test_the_command_line_checks_a_file(tmp_path: Path) -> None:
    good = tmp_path / "set.gaple"
    good.write_text(a_text(), encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    ok = subprocess.run(
        [sys.executable, "-m", "engine.notation", "check", str(good)],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert ok.returncode == 0 and "every move legal" in ok.stdout
    bad = tmp_path / "bad.gaple"
    bad.write_text(a_text().replace("\npoints ", "\npoints 9", 1), encoding="utf-8")
    refused = subprocess.run(
        [sys.executable, "-m", "engine.notation", "check", str(bad)],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert refused.returncode == 1 and "line " in refused.stderr
