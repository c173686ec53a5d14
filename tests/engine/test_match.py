"""deal.py and match.py: dealing, opening, placements, errors, the set."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine import (
    EngineError,
    Event,
    MatchState,
    Move,
    Tile,
    legal_moves,
    new_match,
    play,
    pordi,
    random_legal_move,
    start_deal,
)
from engine.match import begin_deal, deal_hands, scenario_match
from engine.tiles import BALAK_MASK, INDEX, names
from tests.engine.conftest import play_random_deal, play_random_set

T = pordi()


def hands_of(*rows: str) -> tuple[int, ...]:
    out = []
    for row in rows:
        m = 0
        for t in row.split():
            m |= 1 << Tile.parse(t).index
        out.append(m)
    return tuple(out)


# seat 0 holds 6-6; ends after 6-6 then 6-5: 6|5 and so on.
HANDS = hands_of(
    "6-6 6-5 5-5 4-1 3-2 2-0 1-1",
    "6-4 5-4 0-0 0-1 0-3 1-3 2-2",
    "6-3 6-2 6-1 6-0 5-3 5-2 5-1",
    "5-0 4-4 4-3 4-2 4-0 3-3 2-1",
)


def started(
    hands: tuple[int, ...] = HANDS, opener: int | None = None, first: bool = True
) -> tuple[MatchState, list[Event]]:
    state = scenario_match(T, first_deal=first, opener=opener)
    state, events = begin_deal(state, hands, opener=opener)
    return state, events


def code_of(fn: Callable[..., object], *args: object) -> str:
    with pytest.raises(EngineError) as exc:
        fn(*args)
    return exc.value.code


def test_seeded_deal_is_deterministic_and_complete() -> None:
    a, ev_a = start_deal(new_match(T), 42)
    b, ev_b = start_deal(new_match(T), 42)
    assert a == b and ev_a == ev_b
    assert a.deal is not None
    assert sorted(h.bit_count() for h in a.deal.hands) == [7, 7, 7, 7]
    assert a.phase == "playing" and a.deal_number == 1
    six = INDEX[6][6]
    assert a.turn is not None
    assert a.deal.hands[a.turn] >> six & 1  # the 6-6 holder opens
    assert start_deal(new_match(T), 43)[0] != a


def test_redeal_is_an_event_without_hands() -> None:
    seed = next(s for s in range(20000) if deal_hands(T, s)[1] > 0)
    state, events = start_deal(new_match(T), seed)
    redeals = [e for e in events if e.kind == "redeal"]
    assert len(redeals) == deal_hands(T, seed)[1] >= 1
    assert all(set(e.to_dict()) == {"kind", "deal_number", "redeal"} for e in redeals)
    assert state.deal is not None
    assert all((h & BALAK_MASK).bit_count() < 5 for h in state.deal.hands)
    never = pordi(redeal_min_balak=0)
    assert deal_hands(never, seed)[1] == 0


def test_first_deal_opens_with_6_6() -> None:
    state, _ = started()
    assert state.turn == 0
    assert legal_moves(state, 0) == [Move(Tile(6, 6))]
    assert legal_moves(state, 1) == []
    assert code_of(play, state, 0, Move(Tile(5, 5))) == "must_open_with_6_6"
    assert code_of(play, state, 1, Move(Tile(6, 4))) == "not_your_turn"


def test_later_deal_opener_plays_any_tile() -> None:
    state, _ = started(opener=2, first=False)
    assert state.turn == 2
    assert len(legal_moves(state, 2)) == 7
    state, events = play(state, 2, Move(Tile(5, 3), left=5))
    assert state.deal is not None and (state.deal.left, state.deal.right) == (5, 3)
    assert events[0].data["placed"] == "5-3"


def test_placements_errors_and_end_choice() -> None:
    state, _ = started()
    state, _ = play(state, 0, Move(Tile(6, 6)))
    assert state.turn == 1
    # 6-4 fits both ends 6|6: listed once per end; end required.
    assert legal_moves(state, 1) == [Move(Tile(4, 6), "left"), Move(Tile(4, 6), "right")]
    assert code_of(play, state, 1, Move(Tile(4, 6))) == "end_required"
    assert code_of(play, state, 1, Move(Tile(0, 0))) == "tile_does_not_fit"
    assert code_of(play, state, 1, Move(Tile(6, 3))) == "tile_not_in_hand"
    with pytest.raises(EngineError) as exc:
        play(state, 1, Move(Tile(0, 0)))
    assert str(exc.value) == (
        "tile_does_not_fit: seat 1 cannot play 0-0: it fits no open end (ends 6|6)"
    )
    state2, _ = play(state, 1, Move(Tile(4, 6), "right"))
    assert state2.deal is not None and (state2.deal.left, state2.deal.right) == (6, 4)
    # Seat 2 plays 6-x on the left; seat 3 then plays 4-x on the right.
    state3, _ = play(state2, 2, Move(Tile(6, 3)))
    assert state3.deal is not None and (state3.deal.left, state3.deal.right) == (3, 4)
    assert code_of(play, state3, 3, Move(Tile(4, 3))) == "end_required"
    assert code_of(play, state3, 3, Move(Tile(5, 0))) == "tile_does_not_fit"


def test_automatic_passes_and_immutability() -> None:
    state, _ = started()
    state, _ = play(state, 0, Move(Tile(6, 6)))
    before = state
    # 1 plays 6-4 left -> ends 4|6; seat 2 can play, so no pass.
    state, events = play(state, 1, Move(Tile(4, 6), "left"))
    assert before.turn == 1 and before.deal is not None and before.deal.left == 6
    assert [e.kind for e in events] == ["played"]
    rng = random.Random(3)
    while state.phase == "playing":
        turn = state.turn
        assert turn is not None
        state, events = play(state, turn, random_legal_move(state, rng))
        for e in events:
            if e.kind == "passed":
                assert e.data["seat"] != turn


def test_phase_errors() -> None:
    fresh = new_match(T)
    assert code_of(play, fresh, 0, Move(Tile(6, 6))) == "no_deal"
    assert code_of(random_legal_move, fresh, random.Random(1)) == "no_deal"
    state, _ = start_deal(fresh, 1)
    assert code_of(start_deal, state, 2) == "deal_in_progress"
    state, _ = play_random_deal(fresh, 1, random.Random(1))
    assert state.phase == "deal_over" and state.turn is None
    assert code_of(play, state, 0, Move(Tile(6, 6))) == "deal_over"
    assert legal_moves(state, 0) == []


def test_random_legal_move_is_uniform_over_distinct_placements() -> None:
    # ends 6|4 after 6-6 and 4-6; seat 2 holds 6-3 6-2 6-1 6-0 (left only) and no 4s.
    state, _ = started()
    state, _ = play(state, 0, Move(Tile(6, 6)))
    state, _ = play(state, 1, Move(Tile(4, 6), "right"))
    state, _ = play(state, 2, Move(Tile(6, 2)))  # ends 2|4
    # seat 3 holds 4-2 (joins both ends: two placements), 4-4 4-3 4-0 (right), 2-1 (left).
    counts: dict[Move, int] = {}
    rng = random.Random(7)
    for _ in range(6000):
        m = random_legal_move(state, rng)
        counts[m] = counts.get(m, 0) + 1
    assert set(counts) == set(legal_moves(state, 3))
    assert len(counts) == 6 and all(800 < c < 1200 for c in counts.values())


def test_mirror_placements_on_equal_ends_count_once() -> None:
    state, _ = started()
    state, _ = play(state, 0, Move(Tile(6, 6)))  # ends 6|6; seat 1 holds only 6-4 for 6
    rng = random.Random(1)
    seen = {random_legal_move(state, rng) for _ in range(200)}
    assert seen == {Move(Tile(4, 6), "left"), Move(Tile(4, 6), "right")}


def test_tunggal_set_and_additional_game() -> None:
    rules = pordi(deals_per_set=1)
    found = False
    for seed in range(400):
        rng = random.Random(seed)
        state, _ = play_random_deal(new_match(rules), seed, rng)
        top = max(state.scores)
        if state.scores.count(top) == 1:
            assert state.phase == "set_over"
            assert state.set_result is not None and state.set_result[
                "winner"
            ] == state.scores.index(top)
            continue
        found = True
        assert state.phase == "deal_over" and state.set_result is None
        winner = state.last_winner
        state, _ = start_deal(state, seed + 1)
        assert state.deal is not None and state.deal.additional and state.turn == winner
        assert state.additional_games == 1
        break
    assert found, "no tied Tunggal deal found"


def test_ganda_counter_and_target() -> None:
    rules = pordi("ganda", target_points=3)
    state, _ = play_random_set(rules, 5)
    assert state.phase == "set_over"
    s = state.scores
    assert s[0] == s[2] and s[1] == s[3] and max(s) >= 3
    assert state.set_result is not None and state.set_result["team"] in (0, 1)
    assert code_of(start_deal, state, 9) == "set_over"


def test_later_deals_opened_by_previous_winner() -> None:
    rng = random.Random(11)
    state = new_match(T)
    for k in range(5):
        prev = state.last_winner
        state, _ = start_deal(state, 100 + k)
        assert state.deal is not None
        if prev is None:
            assert state.deal.first
        else:
            assert state.turn == prev and not state.deal.first
        while state.phase == "playing":
            assert state.turn is not None
            state, _ = play(state, state.turn, random_legal_move(state, rng))


def test_payloads_built_when_read_are_the_dicts_they_stand_for() -> None:
    state, events = play_random_deal(new_match(T), 7, random.Random(7))
    once = {e.kind: e for e in events if e.kind in ("deal_started", "deal_ended")}
    assert set(once) == {"deal_started", "deal_ended"}
    started_, ended = once["deal_started"], once["deal_ended"]
    assert state.deal is not None and state.deal.result is not None
    assert started_.data["hands"] == [names(h) for h in state.deal.dealt]
    assert ended.data["hands"] == [names(h) for h in state.deal.result.hands]
    assert ended.data["scores"] == list(state.scores) and ended.data["deal_number"] == 1
    for e in (started_, ended):
        # A reader's copy is its own: changing it changes neither the event nor the next read.
        data = e.data
        data["hands"][0].append("x")
        data["deal_number"] = 99
        assert e.data != data and e.data["deal_number"] == 1
        # Read back from its JSON form, the event equals the one the engine made, both ways.
        stored = Event.from_dict(e.to_dict())
        assert stored == e and e == stored
