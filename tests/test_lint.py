"""The project's own checks run with the tests: ruff (lint and format) on the whole tree, and
mypy --strict on engine/ and app/ (configured in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_finds_nothing() -> None:
    result = run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_code_is_formatted() -> None:
    result = run("ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean() -> None:
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_refuses_a_stray_frame(tmp_path: Path) -> None:
    """``protocol.dumps`` takes the server's message union only: a frame of no documented shape
    is a type error, not a frame."""
    stray = tmp_path / "stray.py"
    stray.write_text(
        "from app.rooms.protocol import dumps\n"
        'dumps({"type": "pong", "t": 1})\n'
        'dumps({"type": "nope", "t": 1})\n'
        'dumps({"kind": "x"})\n'
    )
    result = run("mypy", "--strict", "--follow-imports=silent", str(stray))
    assert result.returncode == 1, result.stdout + result.stderr
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert [line.split(":")[1] for line in errors] == ["3", "4"], result.stdout
