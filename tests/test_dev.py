"""``python3 dev.py test`` (the README's test command, run by CI): pytest on pytest-xdist workers,
one per core, each test file whole on one worker, unless the caller chose otherwise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import dev

ROOT = Path(__file__).resolve().parents[1]


def test_the_suite_runs_on_every_core_with_files_whole() -> None:
    assert dev._pytest_args(["-p", "no:cacheprovider", "-ra"]) == [
        *("-n", "auto", "--dist", "loadfile"),
        *("-p", "no:cacheprovider", "-ra"),
    ]
    assert dev._pytest_args([]) == ["-n", "auto", "--dist", "loadfile"]


@pytest.mark.parametrize(
    "own",
    [
        ["-n", "0"],
        ["-n2"],
        ["--numprocesses=3"],
        ["--dist", "load"],
        ["--dist=loadgroup", "-n", "2"],
        ["-p", "no:xdist"],
        ["-pno:xdist"],
    ],
)
def test_the_callers_own_choice_of_workers_replaces_it(own: list[str]) -> None:
    args = ["tests/engine", *own, "-x"]
    assert dev._pytest_args(args) == args


def test_pytest_takes_the_arguments() -> None:
    # The plugin is installed (the dev extra, the dev lock): pytest knows -n and --dist.
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *dev.PARALLEL, "--collect-only", "-q", __file__],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "test_dev.py::test_pytest_takes_the_arguments" in run.stdout
