"""Klasik's ``stuck`` option, and Draw Domino (``stuck: "draw"``): scenarios, invariants, leaks."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    BOTS,
    EngineError,
    MatchState,
    Move,
    event_view,
    klasik,
    new_match,
    play,
    random_legal_move,
    replay_match,
    rules_from_settings,
    start_deal,
    stuck_alias,
    view,
)
from engine.bots import HardBot
from engine.deal import stock
from engine.events import Event
from engine.rules import RuleSet
from engine.scenario import run_scenario
from engine.tiles import FULL_MASK, NAMES, mask_pips

DRAW = Path(__file__).parent / "scenarios" / "draw"
SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DRAW / f"{name}.json").read_text())
    return data


def events_of(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    """Every event of a scenario's deal, through the same path as the runner."""
    from engine.match import begin_deal
    from engine.scenario import _boneyard, _start, scenario_match
    from engine.tiles import mask_of_names

    rules = rules_from_settings(scenario["rules"])
    hands = tuple(mask_of_names(h) for h in scenario["hands"])
    start, set_aside = _start(scenario, rules, hands)
    state = scenario_match(rules, first_deal=True, opener=scenario["opener"])
    state, out = begin_deal(
        state,
        hands,
        opener=scenario["opener"],
        start=start,
        set_aside=set_aside,
        boneyard=_boneyard(scenario),
    )
    for m in scenario["moves"]:
        state, ev = play(state, m["seat"], Move.from_dict(m))
        out += ev
    return [e.to_dict() for e in out]


# -- the option -------------------------------------------------------------------------------
def test_stuck_choices_and_the_discard_alias() -> None:
    assert klasik().stuck == "discard"
    assert klasik(stuck="pass").stuck == "pass"
    assert klasik(discard=False).stuck == "pass"
    assert rules_from_settings({"preset": "klasik", "discard": True}).stuck == "discard"
    stored = klasik(discard=False).to_dict()
    assert stored["stuck"] == "pass" and "discard" not in stored
    old = {**stored, "discard": False}
    del old["stuck"]
    assert RuleSet.from_dict(old) == klasik(stuck="pass")
    with pytest.raises(EngineError, match="contradicts"):
        rules_from_settings({"preset": "klasik", "discard": True, "stuck": "pass"})
    with pytest.raises(EngineError, match="true or false"):
        stuck_alias({"discard": 2})
    # None is "not given" for either key; both keys agreeing are one choice.
    assert stuck_alias({"discard": None, "stuck": "draw"}) == {"stuck": "draw"}
    assert stuck_alias({"discard": False, "stuck": None}) == {"stuck": "pass"}
    assert klasik(discard=None) == klasik() and klasik(discard=False, stuck="pass").stuck == "pass"
    with pytest.raises(EngineError, match="stuck must be one of"):
        klasik(stuck="sometimes")


def test_draw_is_refused_with_seven_tiles() -> None:
    with pytest.raises(EngineError) as info:
        rules_from_settings({"preset": "klasik", "seven_tiles": True, "stuck": "draw"})
    assert info.value.code == "bad_rules"
    assert "boneyard" in info.value.message and "7 tiles" in info.value.message


# -- hand-verified scenarios ----------------------------------------------------------------------
@pytest.mark.parametrize("path", sorted(DRAW.glob("*.json")), ids=lambda p: p.stem)
def test_draw_scenario_gives_its_expect(path: Path) -> None:
    scenario = json.loads(path.read_text())
    assert run_scenario(scenario) == scenario["expect"]


def test_a_seat_draws_several_tiles_then_must_place() -> None:
    ev = events_of(load("4p-draw-several"))
    k = next(j for j, e in enumerate(ev) if e["kind"] == "drew")
    drew = ev[k : k + 3]
    assert [(e["seat"], e["tile"], e["boneyard"]) for e in drew] == [
        (2, "6-6", 2),
        (2, "1-4", 1),
        (2, "0-5", 0),
    ]
    # Only the last drawn tile fits, and seat 2 plays it.
    assert ev[k + 3]["kind"] == "played" and ev[k + 3]["seat"] == 2
    assert ev[k + 3]["tile"] == "0-5"


def test_the_boneyard_runs_out_and_the_seat_passes() -> None:
    ev = events_of(load("4p-draw-runs-out-pass"))
    tail = [(e["kind"], e["seat"]) for e in ev if e["kind"] in ("drew", "passed")]
    assert tail == [("drew", 1), ("drew", 1), ("drew", 3), ("passed", 3), ("passed", 0)]


def test_a_dead_line_is_no_lock_while_the_boneyard_has_tiles() -> None:
    # Ends 4|4 with every 4 out: the next seat still draws the last tile, then it is Kandang.
    ev = events_of(load("4p-draw-lock-boneyard-drawn"))
    assert [e["kind"] for e in ev[-3:]] == ["played", "drew", "deal_ended"]
    assert ev[-2]["boneyard"] == 0 and ev[-1]["end"] == "kandang"
    assert ev[-1]["counts"][ev[-2]["seat"]] >= mask_pips(1 << NAMES.index(ev[-2]["tile"]))


# -- invariants, replay and privacy over random sets -------------------------------------------
def where_tiles_are(state: MatchState) -> None:
    """Every tile in exactly one place: a hand, the line, the boneyard (set aside), discards."""
    deal = state.deal
    assert deal is not None
    places = [*deal.hands, deal.board, *deal.discards]
    pile = stock(deal.facts, deal.pos)
    if state.phase == "playing":
        pile_mask = sum(1 << i for i in pile)
    else:
        assert state.last_result is not None
        pile_mask = state.last_result.set_aside
        assert pile_mask == sum(1 << i for i in pile)
    places.append(pile_mask)
    total = 0
    for m in places:
        assert total & m == 0, "a tile in two places"
        total |= m
    assert total == FULL_MASK
    # The boneyard is drawn from the front: what is left is a tail of the dealt order.
    assert tuple(pile) == deal.facts.boneyard[len(deal.facts.boneyard) - len(pile) :]


def play_set(seed: int, players: int, target: int) -> tuple[MatchState, list[Event], list[Any]]:
    rules = klasik(players, stuck="draw", target_points=target)
    rng = random.Random(seed)
    state = new_match(rules)
    events: list[Event] = []
    deals: list[tuple[int, list[Move]]] = []
    for k in range(30):
        if state.phase == "set_over":
            break
        state, ev = start_deal(state, seed * 100 + k)
        events += ev
        deals.append((seed * 100 + k, []))
        where_tiles_are(state)
        while state.phase == "playing":
            move = random_legal_move(state, rng)
            deals[-1][1].append(move)
            state, ev = play(state, state.turn, move)  # type: ignore[arg-type]
            events += ev
            where_tiles_are(state)
            v = view(state, None)
            assert v["boneyard"] == len(stock(state.deal.facts, state.deal.pos))  # type: ignore[union-attr]
    return state, events, deals


@SETTINGS
@given(seed=st.integers(0, 10**6), players=st.sampled_from([4, 5]))
def test_draw_sets_keep_every_tile_in_one_place_and_replay(seed: int, players: int) -> None:
    state, events, deals = play_set(seed, players, 60)
    assert state.phase == "set_over"
    rebuilt, again = replay_match(state.rules, deals)
    assert rebuilt == state
    assert [e.to_dict() for e in again] == [e.to_dict() for e in events]


@SETTINGS
@given(seed=st.integers(0, 10**6))
def test_no_drawn_tile_reaches_another_seat_or_a_spectator(seed: int) -> None:
    _, events, _ = play_set(seed, 4, 40)
    for e in events:
        if e.kind == "drew":
            for viewer in (None, 0, 1, 2, 3):
                shown = event_view(e, viewer)
                assert shown is not None
                if viewer == e.data["seat"]:
                    assert shown["tile"] == e.data["tile"]
                else:
                    assert "tile" not in shown
                    assert json.dumps(shown).count("-") == 0  # no tile name at all
        if e.kind == "deal_started":
            for viewer in (None, 0, 1, 2, 3):
                shown = event_view(e, viewer)
                assert shown is not None
                assert shown["set_aside"] == len(e.data["set_aside"])  # a count, never tiles


def test_views_never_show_a_drawn_tile_to_others_before_the_deal_ends() -> None:
    rules = klasik(stuck="draw")
    rng = random.Random(5)
    checked = 0
    for seed in range(40):
        state, _ = start_deal(new_match(rules), seed)
        while state.phase == "playing":
            state, ev = play(state, state.turn, random_legal_move(state, rng))  # type: ignore[arg-type]
            for e in ev:
                if e.kind != "drew" or state.phase != "playing":
                    continue
                tile = e.data["tile"]
                for viewer in (None, 0, 1, 2, 3):
                    if viewer == e.data["seat"]:
                        continue
                    text = json.dumps(view(state, viewer))
                    if tile in {t["tile"] for t in view(state, None)["line"]} or (
                        viewer is not None and tile in view(state, viewer)["hand"]
                    ):
                        continue  # placed since, or (impossible) the viewer's own
                    assert f'"{tile}"' not in text
                    checked += 1
    assert checked > 0


@pytest.mark.parametrize("kind", ["easy", "normal", "hard"])
def test_bots_play_draw_sets(kind: str) -> None:
    bot = HardBot(playouts=40) if kind == "hard" else BOTS[kind]
    rules = klasik(stuck="draw", target_points=30)
    rng = random.Random(11)
    state = new_match(rules)
    for k in range(20):
        if state.phase == "set_over":
            break
        state, _ = start_deal(state, k)
        while state.phase == "playing":
            seat = state.turn
            assert seat is not None
            state, _ = play(state, seat, bot.choose(view(state, seat), rng))
    assert state.phase == "set_over"
