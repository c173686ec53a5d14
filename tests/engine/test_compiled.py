"""The compiled engine (``GAPLE_COMPILE=1``, docs/ENGINE.md "Compiled engine"): built into a
wheel from this checkout as the Docker image builds it, it passes every other engine test, the
conformance scenarios and the scenario runner's CLI included."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.wheel import ROOT, compiled_engine

COMPILED = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["gaple"]["compiled"]


def test_the_compiled_engine_passes_the_engine_tests(tmp_path: Path) -> None:
    site = compiled_engine(tmp_path)
    modules = [path.removesuffix(".py").replace("/", ".") for path in COMPILED]
    # Imported before pytest starts: every test below runs on these very modules. ``-P`` and
    # ``--import-mode=append`` keep the checkout behind the wheel on the import path.
    program = f"""
import importlib, sys
for name in {modules!r}:
    path = importlib.import_module(name).__file__
    assert path.startswith({str(site)!r}) and path.endswith(".so"), (name, path)
import pytest
sys.exit(pytest.main([
    "--import-mode=append", "-p", "no:cacheprovider", "-q", "tests/engine",
    "--ignore", "tests/engine/test_compiled.py",
]))
"""
    env = {**os.environ, "PYTHONPATH": str(site)}
    run = subprocess.run(
        [sys.executable, "-P", "-c", program],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]
    assert " passed" in run.stdout and " failed" not in run.stdout, run.stdout[-2000:]
