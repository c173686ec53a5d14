"""tiles.py and rules.py."""

from __future__ import annotations

import json

import pytest

from engine import ALL_TILES, BadRules, BadTile, RuleSet, Tile, pordi, rules_from_settings
from engine.tiles import BALAK_MASK, PIPS, WITH, bits, mask_pips


def test_the_double_six_set() -> None:
    assert len(ALL_TILES) == 28 == len(set(ALL_TILES))
    assert [t.index for t in ALL_TILES] == list(range(28))
    assert sum(t.pips for t in ALL_TILES) == 168
    assert sum(t.is_balak for t in ALL_TILES) == 7 == BALAK_MASK.bit_count()
    assert all(WITH[n].bit_count() == 7 for n in range(7))


def test_parse_and_format() -> None:
    assert Tile.parse("3-0") == Tile.parse("0-3") == Tile(3, 0)
    assert str(Tile.parse("3-0")) == "0-3"
    assert Tile.parse("6-6").is_balak and Tile.parse("6-6").pips == 12
    for bad in ["7-1", "3", "a-b", "1-2-3", "", "-1-2", " 12-1"]:
        with pytest.raises(BadTile) as exc:
            Tile.parse(bad)
        assert exc.value.code == "bad_tile"
    with pytest.raises(BadTile):
        Tile(7, 0)


@pytest.mark.parametrize(
    "text", ["\u0661-\u0664", "\uff11-\uff12", "3-\u0665", "\u00b2-1", "\u09e9-0"]
)
def test_only_ascii_digits_are_tile_numbers(text: str) -> None:
    # Arabic-Indic, full-width, superscript and Bengali digits pass str.isdigit(): refused.
    with pytest.raises(BadTile) as exc:
        Tile.parse(text)
    assert exc.value.code == "bad_tile"


def test_mask_tables() -> None:
    m = (1 << 0) | (1 << 13) | (1 << 14) | (1 << 27)
    assert bits(m) == (0, 13, 14, 27)
    assert mask_pips(m) == sum(PIPS[i] for i in (0, 13, 14, 27))
    assert bits(0) == ()


def test_pordi_defaults_and_round_trip() -> None:
    r = pordi()
    assert (r.players, r.hand_size, r.mode, r.deals_per_set, r.target_points) == (
        4, 7, "tunggal", 7, 7
    )  # fmt: skip
    d = json.loads(json.dumps(r.to_dict()))
    assert RuleSet.from_dict(d) == r
    g = rules_from_settings({"preset": "pordi", "mode": "ganda", "target_points": 11})
    assert g.teams and g.target_points == 11
    assert RuleSet.from_dict(g.to_dict()) == g
    assert hash(g) == hash(RuleSet.from_dict(g.to_dict()))


def test_rule_choices_are_single_switches() -> None:
    r = pordi(ceki_one_used_up_points=[2, 2], kandang_tie_share="lower", direction=-1)
    assert r.ceki_one_used_up_points == (2, 2)
    assert r.kandang_tie_share == "lower" and r.direction == -1
    r = pordi(kandang_tunggal={"locker_lower": 3, "tie_opponent": 1, "tie_locker": 1,
                               "locker_higher": [3, 2, 1]}, kandang_opener="locker")  # fmt: skip
    assert r.kandang_tunggal.tie_locker == 1


@pytest.mark.parametrize(
    "settings",
    [
        {"preset": "domino"},
        {"preset": "pordi", "mode": "duel"},
        {"preset": "pordi", "deals_per_set": 0},
        {"preset": "pordi", "target_points": "7"},
        {"preset": "pordi", "colour": "red"},
        {"preset": "pordi", "turn_seconds": 20},
        {"preset": "pordi", "kandang_tie_share": "middle"},
        "pordi",
    ],
)
def test_bad_rules(settings: object) -> None:
    with pytest.raises(BadRules) as exc:
        rules_from_settings(settings)
    assert exc.value.code == "bad_rules"
