"""The conformance scenarios of ../shared/scenarios and the scenario runner's errors and CLI."""

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
SCENARIOS = REPO_ROOT.parent / "shared" / "scenarios"


def scenario_files() -> list[Path]:
    return sorted(SCENARIOS.glob("*.json")) + sorted(SCENARIOS.glob("*.jsonl"))


def test_scenario_folder_exists() -> None:
    # Fail, never skip: the conformance cases are the point of this file.
    assert SCENARIOS.is_dir(), f"missing conformance scenarios at {SCENARIOS}"
    assert scenario_files(), f"no scenario files in {SCENARIOS}"


@pytest.mark.parametrize("path", scenario_files(), ids=lambda p: p.name)
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
