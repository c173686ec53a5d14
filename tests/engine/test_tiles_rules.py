"""tiles.py and rules.py."""

from __future__ import annotations

import json

import pytest

from engine import ALL_TILES, BadRules, BadTile, RuleSet, Tile, klasik, pordi, rules_from_settings
from engine.rules import with_options
from engine.tiles import BALAK_MASK, FULL_MASK, PIPS, WITH, bits, mask_count, mask_pips


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
    for mask in (0, m, BALAK_MASK, FULL_MASK, WITH[3], FULL_MASK & ~WITH[5]):
        assert mask_count(mask) == mask.bit_count() == len(bits(mask))


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
        {"preset": "pordi", "kandang_tie_share": "middle"},
        "pordi",
    ],
)
def test_bad_rules(settings: object) -> None:
    with pytest.raises(BadRules) as exc:
        rules_from_settings(settings)
    assert exc.value.code == "bad_rules"


def test_the_turn_clock_is_not_a_rule() -> None:
    """The clock is the server's (a room setting); rule sets stored with it still load."""
    rules = pordi("ganda")
    assert not {"turn_seconds", "turn_seconds_choices"} & set(rules.to_dict())
    stored = {**rules.to_dict(), "turn_seconds": 30, "turn_seconds_choices": [15, 30, 60]}
    assert RuleSet.from_dict(stored) == rules
    assert rules_from_settings({"preset": "klasik", "turn_seconds": 60}) == klasik()


def test_derived_fields_follow_the_options_and_are_not_options() -> None:
    r = pordi()
    assert (r.teams, r.counts, r.discard, r.draws, r.set_aside_count) == (
        False,
        False,
        False,
        False,
        0,
    )
    assert r.set_goal == "most_after_deals" and r.kandang_table == r.kandang_tunggal
    assert r.sides == (0, 1, 2, 3) and r.side_seats == ((0,), (1,), (2,), (3,))
    assert r.order == ((1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2), (0, 1, 2, 3))
    assert r.domi_award == dict(r.domi_points)
    # Derived again on every copy with other options, never carried over.
    g = with_options(r, mode="ganda", direction=-1)
    assert g.teams and g.set_goal == "first_to_target" and g.kandang_table == g.kandang_ganda
    assert g.sides == (0, 1, 0, 1) and g.side_seats == ((0, 2), (1, 3), (0, 2), (1, 3))
    assert g.order[0] == (3, 2, 1, 0) and g.order[2] == (1, 0, 3, 2)
    assert [g.team_of(s) for s in range(4)] == [0, 1, 0, 1] and g.partners(1) == (1, 3)
    k = klasik(players=5, hand_size=5, stuck="draw", scoring="penalty")
    assert k.face_up_start and (k.draws, k.counts, k.set_aside_count) == (True, True, 2)
    assert k.set_goal == "least_after_deals" and k.order[4] == (0, 1, 2, 3, 4)
    # They are not options: not written out, and refused when read back.
    for rules in (r, g, k):
        assert not {"teams", "order", "sides", "side_seats", "domi_award"} & set(rules.to_dict())
        assert RuleSet.from_dict(rules.to_dict()) == rules
    with pytest.raises(BadRules):
        RuleSet.from_dict({**r.to_dict(), "order": [[1, 2, 3, 0]] * 4})
    # An option they are derived from is checked before they are: a clear error, not a crash.
    for bad in ("1", None, 0, 2):
        with pytest.raises(BadRules, match="direction is 1"):
            pordi(direction=bad)
