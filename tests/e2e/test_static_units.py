"""The client's pure modules under ``node --test`` (static/js/tests/), fed the server's own
presets catalogue (app/presets.py), so that the create form's helpers are checked
against the defaults the server really serves, whole deals played by the engine (each viewer's
view after every move, the events, and where the opening tile lies), so that the snapshot reader
and the end choice are checked against views the server really sends, and the Python engine's
deals of a few secrets (engine/fairness.py), so that the client's shuffle is checked against the
server's. Node missing is a failure, not a skip."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, get_args

import pytest

import engine
from app.players import history
from app.presets import catalogue
from app.store.models import Deal, Move
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
DEAL_SEEDS = (3, 11, 29)
AT = datetime(2026, 1, 1, tzinfo=UTC)


def played_deals() -> list[dict[str, Any]]:
    """A few seeded deals (PORDI, Klasik with discards, Draw Domino), played with random legal
    moves. Each step is one batch: the events as a seat and as a spectator are told them, the
    views after it, and the index of the deal's opening tile in the line. `set` is the deal as
    the history API serves it (GET /api/sets/{id}), shaped by app/players/history.py from the
    stored moves."""
    presets = (
        ("pordi", engine.pordi()),
        ("klasik", engine.klasik(stuck="discard")),
        ("draw", engine.klasik(stuck="draw")),
    )
    deals = []
    for name, rules in presets:
        for seed in DEAL_SEEDS:
            state, events = engine.start_deal(engine.new_match(rules), seed)
            rng = random.Random(seed)
            opening = 0
            steps = []
            stored = []
            while True:
                viewers = [None, *range(rules.players)]
                steps.append(
                    {
                        "events": {
                            str(v): [e for e in (engine.event_view(x, v) for x in events) if e]
                            for v in viewers
                        },
                        "views": {str(v): engine.view(state, v) for v in viewers},
                        "opening": opening,
                    }
                )
                if state.phase != "playing":
                    break
                move = engine.random_legal_move(state, rng)
                stored.append(
                    Move(
                        seq=len(stored) + 1,
                        seat=state.turn,
                        tile=str(move.tile),
                        end=move.end,
                        auto=False,
                        created_at=AT,
                    )
                )
                state, events = engine.play(state, state.turn, move)
                if events[0].kind == "played" and events[0].data["end"] == "left":
                    opening += 1
            row = Deal(
                number=1,
                seed=seed,
                opener=steps[0]["views"]["None"]["opener"],
                started_at=AT,
                ended_at=AT,
            )
            replayed = history._replay(rules, [history._StoredDeal(row, stored)])
            served = {
                "preset": rules.preset,
                "mode": rules.mode,
                "players": rules.players,
                "rules": rules.to_dict(),
                "deals": replayed,
            }
            deals.append({"preset": name, "seed": seed, "steps": steps, "set": served})
    return deals


def social_words() -> dict[str, list[str]]:
    """The notification kinds /ws/me may send, and the refusal codes of the social calls (the
    challenges' and parties' table holds them all) and of the clubs: the client says each in
    words."""
    from app.api.challenges import STATUS
    from app.players.clubs import REFUSALS
    from app.rooms.protocol import NotificationKind

    kinds = [k for arg in get_args(NotificationKind) for k in get_args(arg) or (arg,)]
    codes = (set(STATUS) | set(REFUSALS)) - {"invalid"}
    return {"kinds": sorted(set(kinds)), "codes": sorted(codes)}


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
    deals = tmp_path / "deals.json"
    deals.write_text(json.dumps(played_deals(), default=str))
    social = tmp_path / "social.json"
    social.write_text(json.dumps(social_words()))
    result = subprocess.run(
        [node, "--experimental-default-type=module", "--test", *map(str, UNITS)],
        cwd=ROOT,
        env={
            "GAPLE_PRESETS_JSON": str(presets),
            "GAPLE_FAIRNESS_JSON": str(vectors),
            "GAPLE_DEALS_JSON": str(deals),
            "GAPLE_SOCIAL_JSON": str(social),
            "PATH": "/usr/bin:/bin",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# fail 0" in result.stdout, result.stdout
