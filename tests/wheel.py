"""Build the project's wheel from a clean copy of this checkout, pure Python or with the compiled
engine (``GAPLE_COMPILE=1``, setup.py). The one way the tests and the benchmarks build it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LEFT_OUT = (".git", ".venv", "build", "dist", "var", "*.egg-info", "__pycache__", "node_modules")
LEFT_OUT += ("*.so",)  # a compiled module left in the checkout would go into any wheel
# What other test processes write meanwhile (a file removed mid-copy fails the copy).
LEFT_OUT += (".mypy_cache", ".ruff_cache", ".pytest_cache", "test-artifacts")
PIP = (sys.executable, "-m", "pip", "-q", "--disable-pip-version-check")


def build_wheel(out: Path, *, compiled: bool = False) -> Path:
    """The wheel, built into ``out`` from a copy of the checkout without build leftovers
    (setuptools reuses build/ and would carry stale files into the wheel). ``compiled``: with
    the engine's compiled modules (needs mypy, as the dev environment has, and a C compiler)."""
    source = out / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*LEFT_OUT))
    env = {**os.environ, "GAPLE_COMPILE": "1" if compiled else "0"}
    subprocess.run(
        [*PIP, "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir", str(out), str(source)],
        check=True,
        cwd=out,
        env=env,
    )
    (path,) = out.glob("gaple_online-*.whl")
    return path


def unpacked(wheel: Path, target: Path) -> Path:
    """``wheel``'s packages in ``target``: a directory to put first on the import path."""
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    return target


def compiled_engine(out: Path) -> Path:
    """A directory holding the compiled engine (and the rest of the project, as in the wheel);
    ``PYTHONPATH=<it> python -P …`` imports the engine from there."""
    return unpacked(build_wheel(out, compiled=True), out / "site")
