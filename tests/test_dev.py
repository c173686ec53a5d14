"""dev.py's `test` command: the suite's worker processes, unless the arguments choose."""

from __future__ import annotations

import pytest

import dev


def test_the_suite_runs_in_the_default_workers_a_file_at_a_time() -> None:
    assert dev.test_workers([]) == ["-n", str(dev.TEST_WORKERS), "--dist", "loadfile"]
    assert dev.test_workers(["tests/engine", "-x", "-m", "not postgres"]) == dev.test_workers([])


@pytest.mark.parametrize(
    "args",
    [["-n", "0"], ["-n4"], ["--numprocesses=3"], ["--numprocesses", "1"], ["-p", "no:xdist"]],
)
def test_arguments_that_choose_their_own_workers_get_nothing_added(args: list[str]) -> None:
    assert dev.test_workers(args) == []
