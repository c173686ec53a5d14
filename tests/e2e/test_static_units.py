"""The client's pure modules under ``node --test`` (static/js/tests/), fed the server's own
presets catalogue (app/rooms/settings.py), so that the create form's helpers are checked
against the defaults the server really serves. Node missing is a failure, not a skip."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from app.rooms.settings import catalogue

ROOT = Path(__file__).resolve().parents[2]
UNITS = sorted((ROOT / "static" / "js" / "tests").glob("*.test.js"))


def test_client_units_pass_under_node(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: the client's unit tests need Node.js", pytrace=False)
    assert UNITS, "no static/js/tests/*.test.js"
    presets = tmp_path / "presets.json"
    presets.write_text(json.dumps(catalogue()))
    result = subprocess.run(
        [node, "--experimental-default-type=module", "--test", *map(str, UNITS)],
        cwd=ROOT,
        env={"GAPLE_PRESETS_JSON": str(presets), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# fail 0" in result.stdout, result.stdout
