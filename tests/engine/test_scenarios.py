"""The PORDI conformance scenarios (tests/engine/scenarios/pordi, docs/RULES.md §3) and the
scenario runner's errors and CLI. Where a rule book's own scenario folder sits beside the
checkout (``../shared/scenarios``, as on CI), its files are run as well; without it nothing is
missing."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.scenario import main, outcome, run_text

REPO_ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = Path(__file__).resolve().parent / "scenarios" / "pordi"
BESIDE = REPO_ROOT.parent / "shared" / "scenarios"  # optional: run too when it is there


def scenario_files() -> list[Path]:
    folders = [SCENARIOS, *([BESIDE] if BESIDE.is_dir() else [])]
    return [
        path
        for folder in folders
        for suffix in ("json", "jsonl")
        for path in sorted(folder.glob(f"*.{suffix}"))
    ]


def scenario_id(path: Path) -> str:
    return path.name if path.parent == SCENARIOS else f"beside/{path.name}"


def test_scenario_folder_exists() -> None:
    # Fail, never skip: the conformance cases are the point of this file.
    assert SCENARIOS.is_dir(), f"missing conformance scenarios at {SCENARIOS}"
    assert scenario_files(), f"no scenario files in {SCENARIOS}"


@pytest.mark.parametrize("path", scenario_files(), ids=scenario_id)
def test_shared_scenario_gives_its_expect(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    jsonl = path.suffix == ".jsonl"
    docs = (
        [json.loads(line) for line in text.splitlines() if line.strip()]
        if jsonl
        else [json.loads(text)]
    )
    got = run_text(text, jsonl)
    assert got == [d["expect"] for d in docs]


def test_every_scenario_through_the_cli() -> None:
    for path in scenario_files():
        proc = subprocess.run(
            [sys.executable, "-m", "engine.scenario", str(path)],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        expect = json.loads(path.read_text())["expect"]
        assert json.loads(proc.stdout) == expect


# -- illegal and malformed scenarios --------------------------------------------------------
def base() -> dict[str, Any]:
    scenario: dict[str, Any] = json.loads((SCENARIOS / "tunggal-biasa.json").read_text())
    return scenario


def later() -> dict[str, Any]:
    scenario: dict[str, Any] = json.loads((SCENARIOS / "tunggal-balak.json").read_text())
    return scenario


def error_of(scenario: Any) -> str:
    out = outcome(scenario)
    assert set(out) == {"error"}, out
    return str(out["error"])


def test_wrong_seat() -> None:
    s = base()
    s["moves"][1]["seat"] = 3  # seat 0 is to move
    err = error_of(s)
    assert err.startswith("not_your_turn: seat 3 cannot play 2-6")


def test_tile_not_in_hand() -> None:
    s = base()
    s["moves"][1]["tile"] = "6-5"  # seat 0 does not hold 6-5
    assert error_of(s).startswith("tile_not_in_hand: seat 0 cannot play 5-6")


def test_tile_fits_no_end() -> None:
    s = base()
    s["moves"][1] = {"seat": 0, "tile": "1-1"}
    assert error_of(s) == (
        "tile_does_not_fit: seat 0 cannot play 1-1: it fits no open end (ends 6|6)"
    )


def test_first_deal_not_opened_with_6_6() -> None:
    s = base()
    s["moves"][0] = {"seat": 2, "tile": "5-6"}
    assert error_of(s).startswith("must_open_with_6_6: seat 2 cannot open with 5-6")


def test_first_deal_opener_without_6_6() -> None:
    s = base()
    s["opener"] = 0
    assert error_of(s).startswith("must_open_with_6_6:")


def test_missing_end() -> None:
    s = base()
    del s["moves"][1]["end"]  # 6-2 on ends 6|6 fits both
    assert error_of(s).startswith("end_required: seat 0 must say which end for 2-6")


def test_end_that_does_not_fit() -> None:
    s = later()
    s["moves"][1]["end"] = "right"  # 0-3 on ends 0|2 fits the left end only
    assert error_of(s).startswith("tile_does_not_fit: seat 3 cannot play 0-3 on the right end")


@pytest.mark.parametrize(
    "mutate",
    [
        pytest.param(lambda s: s["hands"].pop(), id="three-hands"),
        pytest.param(lambda s: s["hands"][0].pop(), id="six-tiles"),
        pytest.param(lambda s: s["hands"][0].__setitem__(0, "6-6"), id="duplicate-tile"),
        pytest.param(lambda s: s["hands"][1].__setitem__(0, "7-1"), id="not-a-tile"),
        pytest.param(lambda s: s["hands"][1].__setitem__(0, "0-0-0"), id="bad-format"),
        pytest.param(lambda s: s["hands"][1].__setitem__(0, 5), id="not-a-string"),
    ],
)
def test_malformed_hands(mutate: Any) -> None:
    s = base()
    mutate(s)
    code = error_of(s).split(":")[0]
    assert code in {"bad_scenario", "bad_tile"}


def test_malformed_documents() -> None:
    assert error_of([]).startswith("bad_scenario:")
    s = base()
    del s["hands"]
    assert error_of(s).startswith("bad_scenario:")
    s = base()
    s["rules"] = {"preset": "nope"}
    assert error_of(s).startswith("bad_rules:")
    s = base()
    s["moves"] = s["moves"][:-1]
    assert error_of(s).startswith("bad_scenario: the moves do not finish the deal")
    s = base()
    s["moves"].append({"seat": 3, "tile": "0-0"})
    assert error_of(s).startswith("deal_over:")
    s = later()
    del s["opener"]
    assert error_of(s).startswith("bad_scenario:")


def test_jsonl_goes_on_after_bad_lines() -> None:
    good = base()
    bad = copy.deepcopy(good)
    bad["moves"][1]["seat"] = 3
    text = "\n".join([json.dumps(good), "{not json", json.dumps(bad), "", json.dumps(good)])
    out = run_text(text, jsonl=True)
    assert out[0] == good["expect"]
    assert out[1]["error"].startswith("bad_scenario: line 2 is not valid JSON")
    assert out[2]["error"].startswith("not_your_turn:")
    assert out[3] == good["expect"]
    assert len(out) == 4


def test_main_with_injected_io() -> None:
    lines: list[str] = []

    def unreadable(path: str) -> str:
        raise OSError("nope")

    assert main(["x.json"], unreadable, lines.append) == 2
    assert main([], unreadable, lines.append) == 2
    assert main(["x.json"], lambda p: "{", lines.append) == 0
    assert json.loads(lines[-1])["error"].startswith("bad_scenario:")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.scenario", *args],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=False,
    )


def test_cli_exit_status(tmp_path: Path) -> None:
    missing = run_cli(str(tmp_path / "missing.json"))
    assert missing.returncode == 2
    assert "error" in json.loads(missing.stdout)

    assert run_cli().returncode == 2

    undecodable = tmp_path / "bin.json"
    undecodable.write_bytes(b"\xff\xfe\x00")
    assert run_cli(str(undecodable)).returncode == 2

    good, bad = base(), base()
    bad["moves"][1]["tile"] = "6-5"
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n{oops\n", encoding="utf-8")
    proc = run_cli(str(mixed))
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert out[0] == good["expect"]
    assert out[1]["error"].startswith("tile_not_in_hand:")
    assert out[2]["error"].startswith("bad_scenario:")

    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    proc = run_cli(str(broken))
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["error"].startswith("bad_scenario:")


# -- Klasik (RULES.md §2): tests/engine/scenarios/klasik -----------------------------------------
KLASIK = Path(__file__).resolve().parent / "scenarios" / "klasik"
KLASIK_FILES = sorted(KLASIK.glob("*.json"))
# Every Klasik option has a scenario whose expect was worked out by hand from RULES.md §2.
KLASIK_COVERAGE = {
    "4p-domi.json": "4 players x 6, start tile, discards, a seat places its last tile",
    "4p-discard-out.json": "a seat discards its last tile; the lowest count still wins",
    "4p-pass-kandang.json": "discard=false: passes, blocked by set-aside tiles",
    "4p-discard-kandang.json": "the same deal with discards counting against the discarder",
    "7tiles-00-opens.json": "seven_tiles: the 0-0 holder opens with it",
    "7tiles-balak-lead.json": "seven_tiles, later deal: the lead passes to a balak holder",
    "5p-kandang.json": "5 players x 5, start tile, 2 set aside",
    "00-counts-25.json": "zero_zero_25, no other blank: 0-0 counts 25",
    "00-counts-0.json": "zero_zero_25 with another blank: 0-0 counts 0",
    "tie-lowest-tile.json": "tied counts: the lowest single tile wins",
    "tie-lower-end.json": "tied counts and lowest-tile pips: the lower end wins",
    "penalty.json": "penalty scoring: each seat scores its own count",
}


def klasik_scenario(name: str) -> dict[str, Any]:
    scenario: dict[str, Any] = json.loads((KLASIK / name).read_text(encoding="utf-8"))
    return scenario


def test_every_klasik_option_has_a_scenario() -> None:
    assert sorted(p.name for p in KLASIK_FILES) == sorted(KLASIK_COVERAGE)


@pytest.mark.parametrize("path", KLASIK_FILES, ids=lambda p: p.name)
def test_klasik_scenario_gives_its_expect(path: Path) -> None:
    scenario = json.loads(path.read_text(encoding="utf-8"))
    assert outcome(scenario) == scenario["expect"]


def test_klasik_scenarios_through_the_cli(tmp_path: Path) -> None:
    joined = tmp_path / "klasik.jsonl"
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in KLASIK_FILES]
    joined.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    proc = run_cli(str(joined))
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line) for line in proc.stdout.splitlines()] == [d["expect"] for d in docs]


def test_pass_and_discard_twins_differ_only_by_the_discards() -> None:
    passed = klasik_scenario("4p-pass-kandang.json")
    discarded = klasik_scenario("4p-discard-kandang.json")
    assert passed["hands"] == discarded["hands"]
    a, b = outcome(passed), outcome(discarded)
    assert a["counts"] == b["counts"] and a["points"] == b["points"]
    assert a["pips"][2] - b["pips"][2] == 12 + 11  # 6-6 and 5-6 went face down


def test_klasik_discard_while_able_to_place() -> None:
    s = klasik_scenario("4p-domi.json")
    s["moves"][1] = {"seat": 1, "discard": "0-5"}  # seat 1 holds 6-4 for ends 6|5
    assert error_of(s).startswith("must_place: seat 1 cannot discard 0-5: it can place")


def test_klasik_discard_under_pass_rules() -> None:
    s = klasik_scenario("4p-pass-kandang.json")
    s["moves"].insert(2, {"seat": 2, "discard": "6-6"})  # seat 2 is passed over, not asked
    assert error_of(s).startswith("not_your_turn: seat 2 cannot discard 6-6")
    s = klasik_scenario("4p-discard-kandang.json")
    s["rules"]["discard"] = False
    assert error_of(s).startswith("not_your_turn:")  # seat 2 passed automatically
    s = klasik_scenario("4p-domi.json")
    s["rules"]["discard"] = False
    s["moves"][0] = {"seat": 0, "discard": "2-1"}
    assert error_of(s).startswith("discard_not_allowed: seat 0 cannot discard 1-2")


def test_klasik_placing_when_it_must_discard() -> None:
    s = klasik_scenario("4p-domi.json")
    s["moves"][2] = {"seat": 2, "tile": "0-3"}
    assert error_of(s) == (
        "tile_does_not_fit: seat 2 cannot play 0-3: it fits no open end (ends 4|5) and must discard"
    )
    s["moves"][2] = {"seat": 2, "discard": "4-4"}
    assert error_of(s).startswith("tile_not_in_hand: seat 2 cannot discard 4-4")


def test_klasik_seven_tiles_openings() -> None:
    s = klasik_scenario("7tiles-00-opens.json")
    s["moves"][0] = {"seat": 0, "tile": "6-6"}
    assert error_of(s).startswith("must_open_with_0_0: seat 0 cannot open with 6-6")
    s = klasik_scenario("7tiles-00-opens.json")
    s["opener"] = 1
    assert error_of(s).startswith("must_open_with_0_0: seat 1 cannot open")
    s = klasik_scenario("7tiles-balak-lead.json")
    s["moves"][0] = {"seat": 2, "tile": "0-2"}
    assert error_of(s).startswith("must_open_with_balak: seat 2 cannot open with 0-2")
    s = klasik_scenario("7tiles-balak-lead.json")
    s["moves"][0] = {"seat": 1, "tile": "4-0"}  # the winner holds no balak: not its lead
    assert error_of(s).startswith("not_your_turn: seat 1 cannot play 0-4: it is seat 2's turn")
    s = klasik_scenario("7tiles-balak-lead.json")
    s["moves"][0] = {"seat": 2, "discard": "6-6"}
    assert error_of(s).startswith("must_place: seat 2 cannot discard 6-6: it opens the line")


@pytest.mark.parametrize(
    ("name", "mutate", "message"),
    [
        ("4p-domi.json", lambda s: s.pop("start"), "give 'start'"),
        ("4p-domi.json", lambda s: s.__setitem__("start", "1-0"), "is also in a hand"),
        ("4p-domi.json", lambda s: s.__setitem__("start", "6-7"), None),
        ("4p-domi.json", lambda s: s.pop("opener"), "random seat: give 'opener'"),
        ("4p-domi.json", lambda s: s["set_aside"].__setitem__(0, "6-6"), "set_aside must be"),
        ("4p-domi.json", lambda s: s["set_aside"].pop(), "set_aside must be"),
        ("4p-domi.json", lambda s: s.__setitem__("set_aside", "0-4"), "set_aside must be a list"),
        ("4p-domi.json", lambda s: s["hands"][0].append("0-4"), "must hold 6 tiles"),
        ("4p-domi.json", lambda s: s["hands"].append([]), "hands must be 4 lists"),
        ("5p-kandang.json", lambda s: s["hands"].pop(), "hands must be 5 lists"),
        ("5p-kandang.json", lambda s: s["hands"][4].pop(), "must hold 5 tiles"),
        ("7tiles-00-opens.json", lambda s: s.__setitem__("start", "0-0"), "no face-up start"),
        ("4p-domi.json", lambda s: s["moves"][2].__setitem__("tile", "0-3"), "seat and tile"),
        ("4p-domi.json", lambda s: s["moves"][2].__setitem__("end", "left"), "a discard has no"),
        ("4p-domi.json", lambda s: s["rules"].__setitem__("players", 6), None),
        ("4p-domi.json", lambda s: s["rules"].__setitem__("seven_tiles", "yes"), None),
    ],
)
def test_malformed_klasik_scenarios(name: str, mutate: Any, message: str | None) -> None:
    s = klasik_scenario(name)
    mutate(s)
    err = error_of(s)
    assert err.split(":")[0] in {"bad_scenario", "bad_tile", "bad_rules"}, err
    if message is not None:
        assert message in err, err


def test_klasik_moves_after_the_end() -> None:
    s = klasik_scenario("4p-discard-out.json")
    s["moves"].append({"seat": 1, "discard": "3-5"})
    assert error_of(s).startswith(
        "deal_over: move 21 (seat 1 discards 3-5) comes after the end of the deal"
    )
