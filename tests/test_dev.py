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
        *("-n", "auto", "--dist", "loadfile", "--no-loadscope-reorder"),
        *("-p", "no:cacheprovider", "-ra"),
    ]
    assert dev._pytest_args([]) == list(dev.PARALLEL)


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


class _Item:
    """What the conftest's hook reads of a collected test."""

    def __init__(self, name: str, *, slow: bool = False) -> None:
        self.name = name
        self.fixturenames: tuple[str, ...] = ()
        self.slow = slow

    def get_closest_marker(self, name: str) -> object | None:
        return object() if name == "slow" and self.slow else None

    def add_marker(self, marker: object) -> None:
        raise AssertionError("no backend fixture, no mark")


COLLECTED = "b1 b2 a1 a2 c1 d1"  # files a and d hold slow tests


@pytest.mark.parametrize(("worker", "order"), [(True, "a1 a2 d1 b1 b2 c1"), (False, COLLECTED)])
def test_workers_take_the_slow_files_first_each_in_its_own_order(worker: bool, order: str) -> None:
    from tests import conftest

    class Config:
        workerinput: dict[str, str]

    config = Config()
    if worker:
        config.workerinput = {"workerid": "gw0"}
    items = [_Item(name, slow=name[0] in "ad") for name in COLLECTED.split()]
    conftest.pytest_collection_modifyitems(config, items)  # type: ignore[arg-type]
    assert " ".join(item.name for item in items) == order


def test_the_browser_tests_are_one_unit_of_work() -> None:
    from tests.conftest import work_unit

    assert work_unit("tests/e2e/test_bell.py::test_a[x]") == work_unit("tests/e2e/test_sets.py::b")
    assert work_unit("tests/e2e/test_sets.py::test_b") == "tests/e2e/"
    assert work_unit("tests/app/test_health.py::test_c") == "tests/app/test_health.py"
    assert work_unit("tests/app/test_health.py::test_d[sqlite]") == "tests/app/test_health.py"
    assert work_unit("tests/engine/test_compiled.py::test_e") == "tests/engine/test_compiled.py"


def test_only_loadfile_is_scheduled_so() -> None:
    from tests import conftest

    class Config:
        def getvalue(self, name: str) -> str:
            assert name == "dist"
            return "load"

    assert conftest.pytest_xdist_make_scheduler(Config(), None) is None  # type: ignore[arg-type]
