"""Move choosers that see only a seat's view (``engine.views.view``): easy, normal and hard.

``easy`` (alias ``random``) plays a uniformly random legal move; ``normal`` (alias
``heuristic``) scores each move by hand-written rules; ``hard`` is a determinized Monte Carlo
player (Perfect-Information Monte Carlo): it deals the unseen tiles at random as the view
allows (``engine.determinize``), plays each legal move out through the core many times, and
keeps the move worth most on average.

A bot gets the same dict a client gets; it cannot look at hidden hands because it never has
them. What it knows of the others comes from the line, the passes and the discards: a seat that
passed or discarded on ends ``a|b`` holds no ``a`` and no ``b`` for the rest of the deal.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from engine import core
from engine.deal import Move
from engine.determinize import boneyard_of, knowledge, opening_of, rules_of, sample, value
from engine.errors import NoLegalMove
from engine.tiles import (
    BALAK_MASK,
    FULL_MASK,
    HIGH,
    LOW,
    NUMBERS,
    OTHER,
    PIPS,
    WITH,
    Tile,
    bits,
    mask_of_names,
    parse_index,
)


class Bot(Protocol):
    @property
    def name(self) -> str: ...

    def choose(self, view: dict[str, Any], rng: random.Random) -> Move: ...


def _legal(view: dict[str, Any]) -> list[dict[str, Any]]:
    legal = view.get("legal") or []
    if not legal:
        raise NoLegalMove(f"seat {view.get('viewer')} has nothing to play")
    return list(legal)


def _move(option: dict[str, Any]) -> Move:
    # A discard's end is "discard": the same two fields make every kind of move.
    return Move(Tile.parse(option["tile"]), option["end"])


@dataclass(frozen=True)
class RandomBot:
    """Uniform over the moves the view lists (placements, or the discards of a stuck seat)."""

    name: str = "random"

    def choose(self, view: dict[str, Any], rng: random.Random) -> Move:
        legal = _legal(view)
        return _move(legal[rng.randrange(len(legal))])


@dataclass(frozen=True)
class HeuristicBot:
    """Plays to win: take the best Domi, block the next opponent, dump pips, keep options.

    A seat that must discard lays down its highest-pip tile. Under count scoring (Klasik)
    every pip left counts against the seat, so dumping pips weighs more.
    """

    name: str = "heuristic"
    block_weight: float = 9.0
    partner_block_weight: float = 6.0
    pip_weight: float = 0.6
    count_pip_weight: float = 1.5  # pip_weight when deals are scored by counts
    balak_weight: float = 2.5
    control_weight: float = 2.0
    variety_weight: float = 1.0

    def choose(self, view: dict[str, Any], rng: random.Random) -> Move:
        legal = _legal(view)
        if legal[0].get("discard"):
            return _move(max(legal, key=lambda o: (PIPS[parse_index(o["tile"])], rng.random())))
        return self._place(view, legal, rng)

    def _place(self, view: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random) -> Move:
        me: int = view["viewer"]
        n: int = view["players"]
        hand = mask_of_names(view["hand"])
        board = mask_of_names([e["tile"] for e in view["line"]])
        unseen = FULL_MASK & ~board & ~hand & ~mask_of_names(view.get("discards") or [])
        lacks = [0] * n  # bit k set: that seat holds no number k
        gone = sum(1 << k for k in NUMBERS if not unseen & WITH[k])
        for p in (*view["passes"], *view.get("discarded", ())):
            lacks[p["seat"]] |= 1 << p["left"] | 1 << p["right"]
        pip_weight = (
            self.pip_weight if view.get("scoring", "fixed") == "fixed" else (self.count_pip_weight)
        )
        teams = view.get("teams")
        partner = (me + 2) % n if teams else None
        opponents = [s for s in range(n) if s != me and s != partner]
        nxt = (me + 1) % n
        ends = view["ends"]
        unseen_tiles = bits(unseen)
        avg = sum(PIPS[i] for i in unseen_tiles) / len(unseen_tiles) if unseen_tiles else 0.0
        best: tuple[float, float] | None = None
        choice = legal[0]
        for opt in legal:
            i = parse_index(opt["tile"])
            rest = hand & ~(1 << i)
            if opt["domi_points"] is not None:
                score = 1000.0 + 10 * opt["domi_points"]
            else:
                if ends is None:
                    a, b = LOW[i], HIGH[i]
                else:
                    a, b = ends["left"], ends["right"]
                    end = opt["end"] or ("left" if OTHER[i][a] >= 0 else "right")
                    if end == "left":
                        a = OTHER[i][a]
                    else:
                        b = OTHER[i][b]
                open_mask = 1 << a | 1 << b
                score = pip_weight * PIPS[i]
                if 1 << i & BALAK_MASK:
                    score += self.balak_weight
                after_board = board | 1 << i
                if a == b and WITH[a] & ~after_board == 0:
                    # This tile locks the board: good only if our pips are clearly the lowest.
                    mine = sum(PIPS[k] for k in bits(rest))
                    low = min(view["counts"][s] for s in opponents)
                    score += 40.0 if mine < 0.6 * avg * low else -40.0
                else:
                    for s in opponents:
                        if (lacks[s] | gone) & open_mask == open_mask:
                            score += self.block_weight * (1.5 if s == nxt else 1.0)
                    if partner is not None and (lacks[partner] | gone) & open_mask == open_mask:
                        score -= self.partner_block_weight
                    control = sum(1 for k in bits(rest) if OTHER[k][a] >= 0 or OTHER[k][b] >= 0)
                    score += self.control_weight * min(control, 3)
                    numbers = sum(1 for k in NUMBERS if rest & WITH[k])
                    score += self.variety_weight * numbers
            key = (score, rng.random())
            if best is None or key > best:
                best, choice = key, opt
        return _move(choice)


@dataclass(frozen=True)
class HardBot:
    """Determinized Monte Carlo: sample the hidden tiles, play every legal move out, average.

    Each round deals one world consistent with the view and plays each legal move out in it
    once, with uniformly random moves for every seat after it (``core.play_out``), so the
    moves are compared on the same worlds. It stops after ``playouts`` playouts in all, or
    when ``clock()`` passes ``budget`` seconds (the service injects a CPU clock; the engine
    has none). A move that ends the deal by Domi is scored by the view itself; a single legal
    move needs no thought.
    """

    name: str = "hard"
    playouts: int = 1200
    budget: float = 0.12
    clock: Callable[[], float] | None = None

    def choose(self, view: dict[str, Any], rng: random.Random) -> Move:
        legal = _legal(view)
        if len(legal) == 1:
            return _move(legal[0])
        rules = rules_of(view)
        k = knowledge(view)
        options = [(parse_index(o["tile"]), core.END_CODES[o["end"]]) for o in legal]
        totals = [0.0] * len(options)
        opening = opening_of(view)
        clock = self.clock
        deadline = clock() + self.budget if clock is not None else 0.0
        rounds = max(1, self.playouts // len(options))
        for _ in range(rounds):
            hands, discards = sample(k, rng)
            pile = boneyard_of(k, hands, rng) if rules.draws else None
            for j, first in enumerate(options):
                points = core.play_out(
                    rules,
                    list(hands),
                    list(discards),
                    k.left,
                    k.right,
                    k.me,
                    opening,
                    rng,
                    first,
                    None if pile is None else list(pile),
                )
                totals[j] += value(rules, k.me, points)
            if clock is not None and clock() > deadline:
                break
        best = max(range(len(options)), key=lambda j: (totals[j], rng.random()))
        return _move(legal[best])


EASY, NORMAL, HARD = RandomBot(), HeuristicBot(), HardBot()
# "random" and "heuristic": the names stored rooms use for easy and normal.
BOTS: dict[str, Bot] = {
    "easy": EASY,
    "normal": NORMAL,
    "hard": HARD,
    "random": EASY,
    "heuristic": NORMAL,
}
