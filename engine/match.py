"""A set of deals (RULES.md §1.5, §2): set goals, the Additional Game, openers, dealing.

``MatchState`` is immutable; ``start_deal`` and ``play`` return a new state and the events the
change caused, or raise an ``EngineError`` and change nothing.
"""

from __future__ import annotations

import random
from typing import Any, Final

from engine import core
from engine.core import FIT, next_float, opening_mask, pick_random
from engine.deal import (
    DISCARD,
    DealFacts,
    DealResult,
    DealState,
    Move,
    Position,
    deal_started_event,
    must_open_with,
    new_deal,
    open_turn,
    placements,
    play_tile,
)
from engine.errors import BadScenario, DealInProgress, DealOver, NoDeal, SetOver
from engine.events import Event, Lazy
from engine.record import Record, mypyc_attr
from engine.rules import RuleSet
from engine.scoring import LEFT, RIGHT
from engine.tiles import ALL_TILES, BALAK_MASK, COUNT, FULL_MASK, HIGH, LOW, Tile, bits, mask_count

PHASES: Final = ("ready", "playing", "deal_over", "set_over")
# Every Move the clock can make, prebuilt: MOVES[i] = (no end, left, right, discard).
MOVES: Final[tuple[tuple[Move, ...], ...]] = tuple(
    (Move(t), Move(t, LEFT), Move(t, RIGHT), Move(t, DISCARD)) for t in ALL_TILES
)
OPEN_MOVES: Final = tuple(Move(t) for t in ALL_TILES)


@mypyc_attr(acyclic=True, free_list_len=1)
class MatchState(Record):
    _fields = (
        "rules",
        "phase",  # ready | playing | deal_over | set_over
        "deal_number",  # 1-based; 0 before the first deal
        "scores",  # per seat; Ganda: each seat shows its team's counter
        "facts",  # the current (or last) deal's fixed facts
        "pos",  # and where it stands
        "last_winner",  # winner of the previous deal: opens the next one
        "additional_games",  # Tunggal Additional Games played or in play
        "set_result",
        "results",  # this set's finished deals
        # The seat to move while a deal is played (``pos.turn``), else None. A field rather
        # than a property: the server and every move read it.
        "turn",
    )
    __slots__ = _fields

    def __init__(
        self,
        rules: RuleSet,
        phase: str,
        deal_number: int,
        scores: tuple[int, ...],
        facts: DealFacts | None,
        pos: Position | None,
        last_winner: int | None,
        additional_games: int,
        set_result: dict[str, Any] | None,
        results: tuple[DealResult, ...],
        turn: int | None = None,
    ) -> None:
        self.rules = rules
        self.phase = phase
        self.deal_number = deal_number
        self.scores = scores
        self.facts = facts
        self.pos = pos
        self.last_winner = last_winner
        self.additional_games = additional_games
        self.set_result = set_result
        self.results = results
        self.turn = turn

    @property
    def deal(self) -> DealState | None:
        """The current (or last) deal, facts and position together, for readers."""
        if self.facts is None or self.pos is None:
            return None
        return DealState(self.facts, self.pos)

    @property
    def last_result(self) -> DealResult | None:
        return self.results[-1] if self.results else None


def new_match(rules: RuleSet) -> MatchState:
    """A fresh set: no deal yet, scores zero; its first deal is opened as the rules say."""
    return MatchState(rules, "ready", 0, (0,) * rules.players, None, None, None, 0, None, ())


# -- starting a deal ----------------------------------------------------------------------------
def _check_can_start(state: MatchState) -> None:
    if state.phase == "playing":
        raise DealInProgress(f"deal {state.deal_number} is still being played")
    if state.phase == "set_over":
        raise SetOver("the set is over; start a new match for the next set")


@mypyc_attr(acyclic=True)
class Dealt(Record):
    """What a seed deals (RULES.md §1.1, §2)."""

    _fields = (
        "hands",  # masks
        "redeals",
        "start",  # the face-up start tile as drawn (low number on the left), or None
        "set_aside",  # mask of the tiles set aside unseen
        "first_seat",  # a random seat, drawn after the last shuffle: moves first if the rules say
        "rest",  # the set-aside tiles (indices) in dealt order: the boneyard
    )
    __slots__ = _fields

    def __init__(
        self,
        hands: tuple[int, ...],
        redeals: int,
        start: tuple[int, int] | None,
        set_aside: int,
        first_seat: int,
        rest: tuple[int, ...] = (),
    ) -> None:
        self.hands = hands
        self.redeals = redeals
        self.start = start
        self.set_aside = set_aside
        self.first_seat = first_seat
        self.rest = rest


_TILES: Final = tuple(range(COUNT))


def _shuffle(rules: RuleSet, rng: random.Random) -> list[int]:
    """The 28 tile indices in a random order.

    Fisher-Yates driven by rng.random(): one cheap call per tile (random.shuffle's _randbelow
    costs several times more); float truncation bias is below 2**-50.
    """
    order = list(_TILES)
    rand = rng.random
    for k in range(COUNT - 1, 0, -1):
        j = int(rand() * (k + 1))
        order[k], order[j] = order[j], order[k]
    return order


def _hands(rules: RuleSet, order: list[int]) -> tuple[int, ...]:
    """Seat s gets the s-th run of ``rules.hand_size`` tiles of ``order``."""
    n = rules.hand_size
    hands = []
    for s in range(rules.players):
        mask = 0
        for k in range(s * n, s * n + n):
            mask |= 1 << order[k]
        hands.append(mask)
    return tuple(hands)


def _too_many_balak(rules: RuleSet, hands: tuple[int, ...]) -> bool:
    limit = rules.redeal_min_balak
    if limit > 0:
        for h in hands:
            if mask_count(h & BALAK_MASK) >= limit:
                return True
    return False


def start_deal(
    state: MatchState, seed: int | None = None, *, secret: str | None = None
) -> tuple[MatchState, list[Event]]:
    """Deal from exactly one of ``seed`` or ``secret``, redeal while a hand has too many balak,
    open.

    ``secret`` (64 lowercase hex characters): the provably fair shuffle of docs/FAIRNESS.md
    (``engine.fairness.deal``); ``seed``: ``random.Random(seed)``, how deals were dealt before
    it (they replay from their seed exactly as they were played).
    """
    _check_can_start(state)
    if (seed is None) == (secret is None):
        raise ValueError("start_deal takes exactly one of a seed and a secret")
    rules = state.rules
    if secret is not None:
        dealt = _fair_tiles(rules, secret)
    else:
        assert seed is not None  # exactly one of them, checked above
        dealt = deal_tiles(rules, seed)
    # The discarded hands are never recorded anywhere: not even the seat that had them.
    events = [
        Event("redeal", {"deal_number": state.deal_number + 1, "redeal": k})
        for k in range(1, dealt.redeals + 1)
    ]
    random_first = state.deal_number == 0 and rules.first_opener == "random"
    new_state, ev = begin_deal(
        state,
        dealt.hands,
        seed=seed,
        redeals=dealt.redeals,
        opener=dealt.first_seat if random_first else None,
        start=dealt.start,
        set_aside=dealt.set_aside,
        boneyard=dealt.rest,
        secret=secret,
    )
    return new_state, events + ev


def _fair_tiles(rules: RuleSet, secret: str) -> Dealt:
    """What ``secret`` deals, from the one implementation of FAIRNESS.md's shuffle."""
    # Imported here, not above: ``python -m engine.fairness`` must find it not yet imported.
    from engine import fairness

    fair = fairness.deal(secret, rules)
    return Dealt(
        fair.hand_masks,
        fair.k,
        fair.start_drawn,
        fair.set_aside_mask,
        0 if fair.first_seat is None else fair.first_seat,
        tuple(t.index for t in fair.set_aside),
    )


def deal_tiles(rules: RuleSet, seed: int) -> Dealt:
    """Everything a seed deals: hands, redeals, the start tile, the set-aside tiles, a seat.

    The hands come first off the shuffled order, then (Klasik) the start tile, then the tiles
    set aside. The random seat is drawn from the same generator after the last shuffle, so a
    PORDI deal is exactly what it was before Klasik existed.
    """
    rng = random.Random(seed)
    order = _shuffle(rules, rng)
    hands = _hands(rules, order)
    redeals = 0
    while _too_many_balak(rules, hands):
        redeals += 1
        order = _shuffle(rules, rng)
        hands = _hands(rules, order)
    rest = order[rules.players * rules.hand_size :]
    start = None
    if rules.face_up_start:
        i = rest.pop(0)
        start = (LOW[i], HIGH[i])
    first_seat = int(rng.random() * rules.players)
    set_aside = 0
    for i in rest:
        set_aside |= 1 << i
    return Dealt(hands, redeals, start, set_aside, first_seat, tuple(rest))


def _boneyard(rules: RuleSet, set_aside: int, order: tuple[int, ...] | None) -> tuple[int, ...]:
    if not rules.draws:
        return ()
    if order is None:
        return tuple(bits(set_aside))
    if sum(1 << i for i in order) != set_aside or len(set(order)) != len(order):
        raise BadScenario("the boneyard must be the set-aside tiles, each once")
    return tuple(order)


def deal_hands(rules: RuleSet, seed: int) -> tuple[tuple[int, ...], int]:
    """The hands (masks) a seed deals, and how many redeals it took (§1.1.2)."""
    dealt = deal_tiles(rules, seed)
    return dealt.hands, dealt.redeals


def begin_deal(
    state: MatchState,
    hands: tuple[int, ...],
    *,
    seed: int | None = None,
    redeals: int = 0,
    opener: int | None = None,
    start: tuple[int, int] | None = None,
    set_aside: int = 0,
    boneyard: tuple[int, ...] | None = None,
    secret: str | None = None,
) -> tuple[MatchState, list[Event]]:
    """Start a deal with the given hands (masks); shared by ``start_deal``, replay, scenarios.

    ``boneyard``: draw rules only, the set-aside tiles in drawing order (default: canonical).

    ``opener``: on a first deal opened by a tile's holder it must be that holder (or None); on
    a first deal opened by a random seat it is that seat (required); on a later deal it is the
    seat the lead goes to (default the previous deal's winner), which the rules may pass on
    to the next seat holding a balak. ``start``: the face-up start tile as drawn (left, right).
    """
    _check_can_start(state)
    rules = state.rules
    first = state.deal_number == 0
    if first and rules.first_opening_tile is not None:
        o = core.opening_index(rules)
        holder = next(s for s, h in enumerate(hands) if h >> o & 1)
        if opener is not None and opener != holder:
            raise must_open_with(
                rules.first_opening_tile,
                f"seat {opener} cannot open: the first deal of a set is opened by the holder of "
                f"{rules.first_opening_tile} (seat {holder})",
            )
        opener = holder
    elif first and rules.first_opener == "random":
        if opener is None:
            raise BadScenario("the first deal is opened by a random seat: name the opener")
    elif opener is None:
        opener = state.last_winner if state.last_winner is not None else 0
    if not first and start is None and rules.opening_lead == "balak":
        # The leader must lead a balak; without one the lead passes on in turn (§2).
        seats = core.seats_from(rules.order, opener)
        opener = next((s for s in seats if hands[s] & BALAK_MASK), opener)
    number = state.deal_number + 1
    additional = _goal_reached(state)  # the set is only still on because first place is tied
    facts, pos = new_deal(
        number=number,
        hands=hands,
        opener=opener,
        first=first,
        seed=seed,
        redeals=redeals,
        additional=additional,
        order=rules.order,
        start=start,
        set_aside=set_aside,
        boneyard=_boneyard(rules, set_aside, boneyard),
        secret=secret,
        stuck=rules.stuck,
    )
    pos, passes = open_turn(rules, facts, pos)
    s = state
    new_state = MatchState(
        rules,
        "playing",
        number,
        s.scores,
        facts,
        pos,
        s.last_winner,
        s.additional_games + additional,
        s.set_result,
        s.results,
        pos.turn,
    )
    return new_state, [deal_started_event(facts, rules), *passes]


# -- playing --------------------------------------------------------------------------------------
def _check_playing(state: MatchState) -> tuple[DealFacts, Position]:
    if state.phase == "ready" or state.facts is None or state.pos is None:
        raise NoDeal("no deal is being played: start one first")
    if state.phase == "set_over":
        raise SetOver("the set is over")
    if state.phase == "deal_over":
        raise DealOver(f"deal {state.deal_number} is over")
    return state.facts, state.pos


def play(state: MatchState, seat: int, move: Move) -> tuple[MatchState, list[Event]]:
    """Apply one placement and everything that follows from it automatically."""
    facts = state.facts
    pos = state.pos
    if state.phase != "playing" or facts is None or pos is None:
        facts, pos = _check_playing(state)
    rules = state.rules
    pos, events = play_tile(rules, facts, pos, seat, move)
    if pos.result is None:
        return MatchState(
            rules,
            "playing",
            state.deal_number,
            state.scores,
            facts,
            pos,
            state.last_winner,
            state.additional_games,
            state.set_result,
            state.results,
            pos.turn,
        ), events
    new_state, more = finish_deal(state, pos)
    events.extend(more)
    return new_state, events


def finish_deal(state: MatchState, pos: Position) -> tuple[MatchState, list[Event]]:
    """Book a finished deal (``pos`` carries its result): scores, winner, the set's end."""
    result = pos.result
    facts = state.facts
    assert result is not None and facts is not None
    points = result.points
    scores = tuple([total + points[s] for s, total in enumerate(state.scores)])
    ended = MatchState(
        state.rules,
        "deal_over",
        state.deal_number,
        scores,
        facts,
        pos,
        result.winner,
        state.additional_games,
        state.set_result,
        (*state.results, result),
        None,
    )
    events = [
        Event("deal_ended", Lazy(deal_ended_data, result, facts.number, scores, facts.secret))
    ]
    set_result = _set_result(ended)
    if set_result is not None:
        ended = ended._replace(phase="set_over", set_result=set_result)
        events.append(Event("set_ended", dict(set_result)))
    return ended, events


def deal_ended_data(
    result: DealResult, number: int, scores: tuple[int, ...], secret: str | None
) -> dict[str, Any]:
    """The ``deal_ended`` event's fields: the result, every hand revealed, the set's scores and,
    for a fair deal, its secret (revealed now, to be checked against its commitment)."""
    data = result.to_dict()
    data["deal_number"] = number
    data["scores"] = list(scores)
    if secret is not None:
        data["secret"] = secret
    return data


def _goal_reached(state: MatchState) -> bool:
    """The set has played its deals (or someone reached the target): it ends unless tied."""
    rules = state.rules
    if rules.set_goal == "first_to_target":
        return state.deal_number > 0 and max(state.scores) >= rules.target_points
    return state.deal_number >= rules.deals_per_set


def _set_result(state: MatchState) -> dict[str, Any] | None:
    rules = state.rules
    if not _goal_reached(state):
        return None
    scores = state.scores
    # Penalty scoring: the lowest total wins; otherwise the highest.
    best = min(scores) if rules.set_goal == "least_after_deals" else max(scores)
    leaders = [s for s in range(rules.players) if scores[s] == best]
    if rules.teams:
        team = rules.sides[leaders[0]]
        winner: int | None = None
    else:
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
    """The seat's legal moves now; empty when it is not that seat's turn.

    Placements; or, for a seat that cannot place under discard rules, one discard
    (``Move(tile, "discard")``) per tile of its hand.
    """
    if state.phase != "playing" or state.facts is None or state.pos is None:
        return []
    return [
        Move(ALL_TILES[i], end) for i, end in placements(state.rules, state.facts, state.pos, seat)
    ]


def random_legal_move(state: MatchState, rng: random.Random) -> Move:
    """A uniformly random legal move for the seat to move (RULES.md §1.6, §2).

    A tile fitting both ends with different results counts as two placements; on ends ``n|n``
    its two placements give the same result, so they count as one and the drawn end is random.
    A seat that must discard discards a uniformly random tile of its hand.
    """
    pos = state.pos
    if state.phase != "playing" or pos is None:
        _, pos = _check_playing(state)
    hand = pos.hands[pos.turn]
    left = pos.left
    right = pos.right
    if left < 0:
        facts = state.facts
        assert facts is not None  # a deal is being played
        opening = opening_mask(state.rules, facts.first, hand)
    else:
        opening = FULL_MASK
        if not hand & FIT[left][right]:
            tiles = bits(hand)  # only reached under discard rules: else the seat would pass
            return MOVES[tiles[int(next_float(rng) * len(tiles))]][3]
    i, code = pick_random(hand, left, right, opening, rng)
    return MOVES[i][code]


def scenario_match(rules: RuleSet, *, first_deal: bool, opener: int | None) -> MatchState:
    """A match positioned before a single deal, for scenario files (RULES.md §3).

    A later deal is the second of its set, its lead given to ``opener`` (the previous winner).
    """
    state = new_match(rules)
    if first_deal:
        return state
    if opener is None:
        raise BadScenario("a scenario that is not a first deal must name its opener")
    return state._replace(phase="deal_over", deal_number=1, last_winner=opener)


def hand_of(state: MatchState, seat: int) -> list[Tile]:
    """The seat's current hand (for the server's own use; views decide what clients see)."""
    if state.pos is None:
        return []
    h = state.pos.hands[seat]
    return [ALL_TILES[i] for i in range(COUNT) if h >> i & 1]


__all__ = [
    "Dealt",
    "MatchState",
    "begin_deal",
    "deal_hands",
    "deal_tiles",
    "finish_deal",
    "hand_of",
    "legal_moves",
    "new_match",
    "play",
    "random_legal_move",
    "scenario_match",
    "start_deal",
]
