"""The client's pure modules under ``node --test`` (static/js/tests/), fed the server's own
presets catalogue (app/rooms/settings.py), so that the create form's helpers are checked
against the defaults the server really serves, and the Python engine's deals of a few secrets
(engine/fairness.py), so that the client's shuffle is checked against the server's. Node missing
is a failure, not a skip."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from app.rooms.settings import catalogue
from engine import fairness
from engine.rules import rules_from_settings

# The rule sets a fair deal is dealt under, and secrets that deal them (FAIRNESS.md's vectors
# come first: the second and third force PORDI redeals).
FAIR_RULES = [
    {"preset": "pordi"},
    {"preset": "klasik", "players": 4},
    {"preset": "klasik", "players": 5},
    {"preset": "klasik", "seven_tiles": True},
    {"preset": "klasik", "players": 4, "stuck": "draw"},
]
FAIR_SECRETS = [
    "0123456789abcdef" * 4,
    "940c97401ed91d03ee2ba56eb63696640946eb6786fae2e73e5c893fff4c378a",
    "86c1fbf8d7588d62ea944cbeed11b943b3dd06cda7d911572dffd2be51f0ac28",
    *(f"{n:064x}" for n in range(1, 6)),
]


def fair_vectors() -> list[dict[str, object]]:
    """What the engine deals: the client's shuffle must agree, deal for deal."""
    out = []
    for settings in FAIR_RULES:
        rules = rules_from_settings(settings)
        for secret in FAIR_SECRETS:
            dealt = fairness.deal(secret, rules)
            out.append(
                {
                    "secret": secret,
                    "commitment": fairness.commitment(secret),
                    "dealing": fairness.dealing(rules, dealt.k),
                    "order": [str(t) for t in dealt.order],
                    **dealt.to_dict(),
                    "first_seat": fairness.random_seat(secret, rules.players),
                }
            )
    return out


ROOT = Path(__file__).resolve().parents[2]
UNITS = sorted((ROOT / "static" / "js" / "tests").glob("*.test.js"))


def test_client_units_pass_under_node(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: the client's unit tests need Node.js", pytrace=False)
    assert UNITS, "no static/js/tests/*.test.js"
    presets = tmp_path / "presets.json"
    presets.write_text(json.dumps(catalogue()))
    vectors = tmp_path / "fairness.json"
    vectors.write_text(json.dumps(fair_vectors()))
    result = subprocess.run(
        [node, "--experimental-default-type=module", "--test", *map(str, UNITS)],
        cwd=ROOT,
        env={
            "GAPLE_PRESETS_JSON": str(presets),
            "GAPLE_FAIRNESS_JSON": str(vectors),
            "PATH": "/usr/bin:/bin",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# fail 0" in result.stdout, result.stdout
