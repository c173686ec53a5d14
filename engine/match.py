"""A set of deals (RULES.md §1.5): Tunggal / Ganda progress, the Additional Game, openers.

``MatchState`` is immutable; ``start_deal`` and ``play`` return a new state and the events the
change caused, or raise an ``EngineError`` and change nothing.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from engine.deal import (
    DealResult,
    DealState,
    Move,
    deal_started_event,
    new_deal,
    opening_index,
    pick_random,
    placements,
    play_tile,
)
from engine.errors import BadScenario, DealOver, EngineError, MustOpenWith66, NoDeal, SetOver
from engine.events import Event
from engine.rules import RuleSet
from engine.scoring import LEFT, RIGHT
from engine.tiles import ALL_TILES, BALAK_MASK, COUNT, Tile

PHASES = ("ready", "playing", "deal_over", "set_over")
_new = tuple.__new__
# Every Move the clock can make, prebuilt: MOVES[i] = (no end, left, right); OPEN_MOVES[i].
MOVES = tuple((Move(t), Move(t, LEFT), Move(t, RIGHT)) for t in ALL_TILES)
OPEN_MOVES = tuple(Move(t) for t in ALL_TILES)


class MatchState(NamedTuple):
    rules: RuleSet
    phase: str  # ready | playing | deal_over | set_over
    deal_number: int  # 1-based; 0 before the first deal
    scores: tuple[int, ...]  # per seat; Ganda: each seat shows its team's counter
    deal: DealState | None
    last_winner: int | None  # winner of the previous deal: opens the next one
    additional_games: int  # Tunggal Additional Games played or in play
    set_result: dict[str, Any] | None
    results: tuple[DealResult, ...]  # this set's finished deals

    @property
    def turn(self) -> int | None:
        if self.phase != "playing" or self.deal is None:
            return None
        return self.deal.turn

    @property
    def last_result(self) -> DealResult | None:
        return self.results[-1] if self.results else None


def new_match(rules: RuleSet) -> MatchState:
    """A fresh set: no deal yet, scores zero; its first deal is opened with 6-6."""
    return MatchState(rules, "ready", 0, (0,) * rules.players, None, None, 0, None, ())


# -- starting a deal ----------------------------------------------------------------------------
def _check_can_start(state: MatchState) -> None:
    if state.phase == "playing":
        raise EngineError("deal_in_progress", f"deal {state.deal_number} is still being played")
    if state.phase == "set_over":
        raise SetOver("the set is over; start a new match for the next set")


def _shuffle(rules: RuleSet, rng: random.Random) -> tuple[int, ...]:
    # Fisher-Yates driven by rng.random(): one cheap call per tile (random.shuffle's
    # _randbelow costs several times more); float truncation bias is below 2**-50.
    order = [1 << i for i in range(COUNT)]
    rand = rng.random
    for k in range(COUNT - 1, 0, -1):
        j = int(rand() * (k + 1))
        order[k], order[j] = order[j], order[k]
    n = rules.hand_size
    return tuple(sum(order[s * n : s * n + n]) for s in range(rules.players))


def _too_many_balak(rules: RuleSet, hands: tuple[int, ...]) -> bool:
    limit = rules.redeal_min_balak
    return limit > 0 and any((h & BALAK_MASK).bit_count() >= limit for h in hands)


def start_deal(state: MatchState, seed: int) -> tuple[MatchState, list[Event]]:
    """Shuffle with ``random.Random(seed)``, redeal while a hand has too many balak, open."""
    _check_can_start(state)
    hands, redeals = deal_hands(state.rules, seed)
    # The discarded hands are never recorded anywhere: not even the seat that had them.
    events = [
        Event("redeal", {"deal_number": state.deal_number + 1, "redeal": k})
        for k in range(1, redeals + 1)
    ]
    new_state, ev = begin_deal(state, hands, seed=seed, redeals=redeals)
    return new_state, events + ev


def deal_hands(rules: RuleSet, seed: int) -> tuple[tuple[int, ...], int]:
    """The hands (masks) a seed deals, and how many redeals it took (§1.1.2)."""
    rng = random.Random(seed)
    hands = _shuffle(rules, rng)
    redeals = 0
    while _too_many_balak(rules, hands):
        redeals += 1
        hands = _shuffle(rules, rng)
    return hands, redeals


def begin_deal(
    state: MatchState,
    hands: tuple[int, ...],
    *,
    seed: int | None = None,
    redeals: int = 0,
    opener: int | None = None,
) -> tuple[MatchState, list[Event]]:
    """Start a deal with the given hands (masks); shared by ``start_deal``, replay, scenarios."""
    _check_can_start(state)
    rules = state.rules
    first = state.deal_number == 0
    if first and rules.first_opening_tile is not None:
        o = opening_index(rules)
        holder = next(s for s, h in enumerate(hands) if h >> o & 1)
        if opener is not None and opener != holder:
            raise MustOpenWith66(
                f"seat {opener} cannot open: the first deal of a set is opened by the holder of "
                f"{rules.first_opening_tile} (seat {holder})"
            )
        opener = holder
    elif opener is None:
        opener = state.last_winner if state.last_winner is not None else 0
    number = state.deal_number + 1
    additional = not rules.teams and number > rules.deals_per_set
    deal = new_deal(
        number=number,
        hands=hands,
        opener=opener,
        first=first,
        seed=seed,
        redeals=redeals,
        additional=additional,
        players=rules.players,
        direction=rules.direction,
    )
    s = state
    new_state = _new(
        MatchState,
        (
            rules,
            "playing",
            number,
            s.scores,
            deal,
            s.last_winner,
            s.additional_games + additional,
            s.set_result,
            s.results,
        ),
    )
    return new_state, [deal_started_event(deal)]


# -- playing --------------------------------------------------------------------------------------
def _check_playing(state: MatchState) -> DealState:
    if state.phase == "ready" or state.deal is None:
        raise NoDeal("no deal is being played: start one first")
    if state.phase == "set_over":
        raise SetOver("the set is over")
    if state.phase == "deal_over":
        raise DealOver(f"deal {state.deal_number} is over")
    return state.deal


def play(state: MatchState, seat: int, move: Move) -> tuple[MatchState, list[Event]]:
    """Apply one placement and everything that follows from it automatically."""
    rules, phase, number, scores, deal, last_winner, additional, set_result, results = state
    if phase != "playing" or deal is None:
        deal = _check_playing(state)
    deal, events = play_tile(rules, deal, seat, move)
    if deal.result is None:
        return _new(
            MatchState,
            (rules, phase, number, scores, deal, last_winner, additional, set_result, results),
        ), events
    new_state, more = finish_deal(state, deal)
    events.extend(more)
    return new_state, events


def finish_deal(state: MatchState, deal: DealState) -> tuple[MatchState, list[Event]]:
    """Book a finished deal: scores, winner, and the end of the set if it is reached."""
    result = deal.result
    assert result is not None
    scores = tuple(a + b for a, b in zip(state.scores, result.points, strict=True))
    ended = state._replace(
        phase="deal_over",
        deal=deal,
        scores=scores,
        last_winner=result.winner,
        results=(*state.results, result),
    )
    data = result.to_dict()
    data["deal_number"] = deal.number
    data["scores"] = list(scores)
    events = [Event("deal_ended", data)]
    set_result = _set_result(ended)
    if set_result is not None:
        ended = ended._replace(phase="set_over", set_result=set_result)
        events.append(Event("set_ended", dict(set_result)))
    return ended, events


def _set_result(state: MatchState) -> dict[str, Any] | None:
    rules = state.rules
    scores = state.scores
    top = max(scores)
    leaders = [s for s in range(rules.players) if scores[s] == top]
    if rules.teams:
        if top < rules.target_points:
            return None
        team = rules.team_of(leaders[0])
        winner: int | None = None
    else:
        if state.deal_number < rules.deals_per_set:
            return None
        if len(leaders) > 1 and rules.additional_game_on_tie:
            return None  # an Additional Game follows
        team = None
        winner = leaders[0] if len(leaders) == 1 else None
    return {
        "mode": rules.mode,
        "winner": winner,
        "winners": leaders,
        "team": team,
        "scores": list(scores),
        "deals": state.deal_number,
        "additional_games": state.additional_games,
    }


# -- questions --------------------------------------------------------------------------------
def legal_moves(state: MatchState, seat: int) -> list[Move]:
    """The seat's legal placements now; empty when it is not that seat's turn."""
    if state.phase != "playing" or state.deal is None:
        return []
    return [Move(ALL_TILES[i], end) for i, end in placements(state.rules, state.deal, seat)]


def random_legal_move(state: MatchState, rng: random.Random) -> Move:
    """A uniformly random legal placement for the seat to move (RULES.md §1.6).

    A tile fitting both ends with different results counts as two placements; on ends ``n|n``
    its two placements give the same result, so they count as one and the drawn end is random.
    """
    deal = _check_playing(state) if state.phase != "playing" else state.deal
    assert deal is not None
    opening = opening_index(state.rules) if deal.first else -1
    i, code = pick_random(deal.hands[deal.turn], deal.left, deal.right, opening, rng.random)
    return MOVES[i][code]


def scenario_match(rules: RuleSet, *, first_deal: bool, opener: int | None) -> MatchState:
    """A match positioned before a single deal, for scenario files (RULES.md §3)."""
    state = new_match(rules)
    if first_deal:
        return state
    if opener is None:
        raise BadScenario("a scenario that is not a first deal must name its opener")
    return state._replace(phase="deal_over", deal_number=1, last_winner=opener)


def hand_of(state: MatchState, seat: int) -> list[Tile]:
    """The seat's current hand (for the server's own use; views decide what clients see)."""
    if state.deal is None:
        return []
    h = state.deal.hands[seat]
    return [ALL_TILES[i] for i in range(COUNT) if h >> i & 1]


__all__ = [
    "MatchState",
    "begin_deal",
    "finish_deal",
    "hand_of",
    "legal_moves",
    "new_match",
    "play",
    "random_legal_move",
    "scenario_match",
    "start_deal",
]
