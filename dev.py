#!/usr/bin/env python3
"""Run Gaple Online from a fresh clone with nothing but Python 3.11+ (standard library only).

    python3 dev.py serve [gaple serve options]   # http://127.0.0.1:8000
    python3 dev.py test  [pytest options]        # the whole test suite, in TEST_WORKERS processes
    python3 dev.py migrate                       # upgrade the configured database

Each command creates .venv if it is missing and (re)installs the project with its dev extras
whenever pyproject.toml changed since the last install (a hash stamp inside .venv).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".gaple-install-stamp"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")


# The suite runs in this many pytest-xdist worker processes, a test file per worker at a time (a
# file's module fixtures are built once). Most tests wait on sockets, timers and the browser, so
# two share two cores well. `-n N` (`-n 0`: one process) overrides it.
TEST_WORKERS = 2


def test_workers(args: list[str]) -> list[str]:
    """The pytest-xdist options for `test`, unless its arguments choose their own (or no xdist)."""
    own = any(a.startswith(("-n", "--numprocesses")) or a == "no:xdist" for a in args)
    return [] if own else ["-n", str(TEST_WORKERS), "--dist", "loadfile"]


def _run(args: list[str | Path]) -> int:
    try:
        return subprocess.call([str(arg) for arg in args], cwd=ROOT)
    except KeyboardInterrupt:
        return 130


def _wanted_stamp() -> str:
    # The interpreter is part of the stamp: a venv rebuilt with another Python reinstalls.
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes())
    digest.update(sys.version.encode())
    return digest.hexdigest()


def ensure_environment() -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py runs on whatever python3 is
        sys.exit(f"dev.py: Python 3.11+ is required (this is {sys.version.split()[0]})")
    if not PYTHON.exists():
        print("dev.py: creating .venv ...", flush=True)
        if _run([sys.executable, "-m", "venv", VENV]) != 0:
            sys.exit("dev.py: could not create .venv (on Debian/Ubuntu: apt install python3-venv)")
    wanted = _wanted_stamp()
    if STAMP.exists() and STAMP.read_text().strip() == wanted:
        return
    print("dev.py: installing the project and its dev tools into .venv ...", flush=True)
    pip = [PYTHON, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    if _run([*pip, "-e", ".[dev]"]) != 0:
        sys.exit("dev.py: pip install failed (see above)")
    STAMP.write_text(wanted + "\n")


def main(argv: list[str]) -> int:
    commands = {
        "serve": [PYTHON, "-m", "app.cli", "serve"],
        "migrate": [PYTHON, "-m", "app.cli", "migrate"],
        "test": [PYTHON, "-m", "pytest"],
    }
    if not argv or argv[0] not in commands:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    ensure_environment()
    options = test_workers(argv[1:]) if argv[0] == "test" else []
    args = [str(arg) for arg in (*commands[argv[0]], *options, *argv[1:])]
    if os.name == "posix":
        # Become the server/pytest process, so Ctrl-C and `kill <pid>` reach it directly.
        os.chdir(ROOT)
        os.execv(args[0], args)
    return _run(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
