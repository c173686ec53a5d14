"""Deals dealt from a secret: ``start_deal(state, secret=S)`` deals what ``fairness.deal`` says,
shows the commitment from the start and the secret only in ``deal_ended``, and replays."""

from __future__ import annotations

import json
import random

import pytest

import engine
from engine import fairness
from engine.match import start_deal
from engine.replay import fold, replay_match
from engine.rules import rules_from_settings
from engine.tiles import names
from tests.engine.test_fairness import CASES, doc_vectors

RULES = {name: rules_from_settings(settings) for name, settings in CASES.items()}
SECRETS = [random.Random(n).randbytes(32).hex() for n in range(12)]


def play_out(state: engine.MatchState, rng: random.Random) -> tuple[engine.MatchState, list]:
    events = []
    while state.phase == "playing":
        state, more = engine.play(state, state.turn, engine.random_legal_move(state, rng))
        events.extend(more)
    return state, events


@pytest.mark.parametrize("name", sorted(RULES))
@pytest.mark.parametrize("secret", SECRETS[:4])
def test_start_deal_deals_what_the_secret_deals(name: str, secret: str) -> None:
    rules = RULES[name]
    state, events = start_deal(engine.new_match(rules), secret=secret)
    dealt = fairness.deal(secret, rules)
    facts = state.facts
    assert facts is not None and facts.seed is None and facts.secret == secret
    assert facts.dealt == dealt.hand_masks
    assert facts.redeals == dealt.k
    assert facts.start == dealt.start_drawn
    assert facts.set_aside == dealt.set_aside_mask
    assert [e.kind for e in events[: dealt.k]] == ["redeal"] * dealt.k
    if rules.first_opener == "random":
        assert facts.opener == dealt.first_seat
    else:
        assert facts.opener == fairness.first_deal_opener(rules, dealt)[0]
    if rules.draws:
        assert facts.boneyard == tuple(t.index for t in dealt.set_aside)


def test_the_documented_vectors_deal_at_the_table() -> None:
    for vector in doc_vectors():
        for case in vector["deals"]:
            rules = rules_from_settings(case["rules"])
            state, _ = start_deal(engine.new_match(rules), secret=vector["secret"])
            assert [names(h) for h in state.facts.dealt] == case["hands"]
            assert state.facts.redeals == case["k"]
            if case["first_seat"] is not None:
                assert state.facts.opener == case["first_seat"]


def test_draw_rules_draw_the_set_aside_tiles_in_shuffled_order() -> None:
    rules = rules_from_settings({"preset": "klasik", "players": 4, "stuck": "draw"})
    secret = SECRETS[5]
    _, events = start_deal(engine.new_match(rules), secret=secret)
    started = next(e for e in events if e.kind == "deal_started")
    order = [str(t) for t in fairness.deal(secret, rules).set_aside]
    assert started.data["set_aside"] == order


def test_exactly_one_of_a_seed_and_a_secret() -> None:
    state = engine.new_match(RULES["pordi"])
    with pytest.raises(ValueError):
        start_deal(state)
    with pytest.raises(ValueError):
        start_deal(state, 7, secret=SECRETS[0])
    with pytest.raises(fairness.BadSecret):
        start_deal(state, secret=SECRETS[0].upper())


@pytest.mark.parametrize("name", sorted(RULES))
def test_the_commitment_shows_from_the_start_and_the_secret_only_at_the_end(name: str) -> None:
    rules = RULES[name]
    rng = random.Random(3)
    state = engine.new_match(rules)
    for secret in SECRETS[:3]:
        if state.phase == "set_over":
            break
        commitment = fairness.commitment(secret)
        state, events = start_deal(state, secret=secret)
        viewers = [*range(rules.players), None]
        seen_before = [engine.event_view(e, v) for e in events for v in viewers]
        started = [v for v in seen_before if v and v["kind"] == "deal_started"]
        assert {v["commitment"] for v in started} == {commitment}
        assert {v["shuffle"] for v in started} == {fairness.SHUFFLE_VERSION}
        assert all(v["dealing"] == fairness.dealing(rules, state.facts.redeals) for v in started)
        while state.phase == "playing":
            for v in viewers:
                shown = engine.view(state, v)
                assert shown["commitment"] == commitment and shown["secret"] is None
                seen_before.append(shown)
            state, more = engine.play(state, state.turn, engine.random_legal_move(state, rng))
            ended = [e for e in more if e.kind == "deal_ended"]
            seen_before += [engine.event_view(e, v) for e in more if not ended for v in viewers]
        assert secret not in json.dumps(seen_before)
        assert ended[0].data["secret"] == secret
        assert all(engine.event_view(ended[0], v)["secret"] == secret for v in viewers)
        assert engine.view(state, None)["secret"] == secret
        assert engine.view(state, 0)["commitment"] == commitment


def test_a_seeded_deal_shows_no_commitment_and_carries_no_secret() -> None:
    state, events = start_deal(engine.new_match(RULES["pordi"]), 11)
    started = next(e for e in events if e.kind == "deal_started")
    shown = engine.event_view(started, 0)
    assert shown["commitment"] is None and shown["shuffle"] is None
    assert engine.view(state, 0)["commitment"] is None
    state, events = play_out(state, random.Random(1))
    ended = next(e for e in events if e.kind == "deal_ended")
    assert "secret" not in ended.data
    assert engine.view(state, None)["secret"] is None


def test_a_set_of_fair_and_seeded_deals_replays_exactly() -> None:
    rules = RULES["klasik5"]
    rng = random.Random(8)
    state = engine.new_match(rules)
    stored: list[tuple[engine.replay.Source, list[engine.Move]]] = []
    live: list[engine.Event] = []
    sources = [SECRETS[0], 42, SECRETS[1], SECRETS[2], 43, SECRETS[3]]
    for source in sources:
        if state.phase == "set_over":
            break
        moves: list[engine.Move] = []
        state, events = fold(rules, source, [], state)
        live += events
        while state.phase == "playing":
            move = engine.random_legal_move(state, rng)
            moves.append(move)
            state, more = engine.play(state, state.turn, move)
            live += more
        stored.append((source, moves))
    replayed, events = replay_match(rules, stored)
    assert replayed == state
    assert [e.to_dict() for e in events] == [e.to_dict() for e in live]
