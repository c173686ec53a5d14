"""The compiled engine (``GAPLE_COMPILE=1``, docs/ENGINE.md "Compiled engine"): built into a
wheel from this checkout as the Docker image builds it, it passes every other engine test (the
conformance scenarios and the scenario runner's CLI included), and the server's live tables run
on it as they do on the pure-Python engine."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.wheel import ROOT, compiled_engine

pytestmark = pytest.mark.slow  # each test builds or runs a whole pytest of its own

COMPILED = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["gaple"]["compiled"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled_engine(tmp_path_factory.mktemp("compiled"))


def pytest_on_compiled_engine(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pytest args`` in a process whose engine is the compiled one from ``site``."""
    modules = [path.removesuffix(".py").replace("/", ".") for path in COMPILED]
    # Imported before pytest starts: every test runs on these very modules. ``-P`` and
    # ``--import-mode=append`` keep the checkout behind the wheel on the import path.
    program = f"""
import importlib, sys
for name in {modules!r}:
    path = importlib.import_module(name).__file__
    assert path.startswith({str(site)!r}) and path.endswith(".so"), (name, path)
import pytest
sys.exit(pytest.main(["--import-mode=append", "-p", "no:cacheprovider", "-q", *{args!r}]))
"""
    return subprocess.run(
        [sys.executable, "-P", "-c", program],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        timeout=900,
    )


def passed(run: subprocess.CompletedProcess[str]) -> None:
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]
    assert " passed" in run.stdout and " failed" not in run.stdout, run.stdout[-2000:]


def test_the_compiled_engine_passes_the_engine_tests(site: Path) -> None:
    passed(pytest_on_compiled_engine(site, "tests/engine", "--ignore", __file__))


def test_live_tables_run_on_the_compiled_engine(site: Path) -> None:
    # The server's tables (moves, clock, bots, resume, chat, Klasik, draw, fair deals) and
    # quick play and practice, on SQLite: the server code against the compiled types.
    passed(
        pytest_on_compiled_engine(
            site,
            "tests/app/live",
            "tests/app/test_practice.py",
            "tests/app/test_quickplay.py",
            "-m",
            "not postgres",
        )
    )


def test_build_info_says_the_compiled_engine_is_loaded(site: Path) -> None:
    program = """
from app.metrics import Metrics
[family] = [f for f in Metrics().registry.collect() if f.name == "gaple_build_info"]
print(family.samples[0].labels["engine"])
"""
    run = subprocess.run(
        [sys.executable, "-P", "-c", program],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == "compiled"
