"""An exact open-hand solver: the best result of a deal from any position, all hands known.

Once a deal ends every hand is known (PORDI deals all 28 tiles; Klasik reveals the hands, the
discards, the set-aside tiles and the boneyard's order), so each position of it has an exact
value: what the best play of every seat from there gives, by the deal's own scoring.

The value of a deal to a seat ``me`` is ``engine.determinize.value`` (the one home of it, the
hard bot scores its playouts by it too): Ganda, its team's points less the other team's;
Tunggal, its points less the average of the others' (penalty scoring: the other way round).

* Ganda is a two-team zero-sum game: the seats of ``me``'s side maximise the value, the other
  side minimises it.
* Tunggal is searched *paranoid*: ``me`` maximises its value and the three others minimise it.
  The value is then what ``me`` is sure of whatever the others do, a single number defined by
  the position alone; max-n (each seat maximising its own value) depends on how the others
  break their ties and allows almost no pruning. See docs/ENGINE.md, "The solver".
* Klasik (any stuck option, any scoring): the same search, since the whole state is known
  once the deal is over (the boneyard in its drawing order, under draw rules).

The search is alpha-beta with a transposition table keyed by the position (the hands, the
discards, the open ends, the seat to move, the boneyard); moves are tried in the order the
normal bot prefers (the heavier tile, balak first), each applied only when the search reaches
it.
Every move is applied by ``engine.core`` (``placements``, ``PLACE``, ``next_seat``,
``next_drawing``, ``outcome``): the solver re-implements no rule. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from engine import core
from engine.bots import NORMAL
from engine.deal import Move, stock
from engine.determinize import value
from engine.errors import BadInput
from engine.match import MatchState
from engine.rules import RuleSet
from engine.tiles import BALAK_MASK, HIGH, LOW, PIPS, Tile

# A position: (hands, discards, left, right, seat to move, opening mask, boneyard).
# ``left`` < 0 before the opening tile; ``opening`` (the tiles that may open) is 0 after it.
Node = tuple[tuple[int, ...], tuple[int, ...], int, int, int, int, tuple[int, ...]]
# A move: (tile index, end code of engine.core).
Step = tuple[int, int]
Points = tuple[int, ...]

INF: Final = float("inf")


class SearchLimit(Exception):
    """The search visited more positions than its ``max_nodes`` allowed."""


def node_of(state: MatchState) -> Node:
    """The position of a deal in play, as the solver searches it."""
    pos, facts = state.pos, state.facts
    if pos is None or facts is None or pos.turn < 0 or state.phase != "playing":
        raise BadInput("the solver needs a deal in play")
    seat = pos.turn
    opening = core.opening_mask(state.rules, facts.first, pos.hands[seat]) if pos.left < 0 else 0
    return pos.hands, pos.discards, pos.left, pos.right, seat, opening, tuple(stock(facts, pos))


def tiles_left(node: Node) -> int:
    """How many tiles the hands still hold."""
    return sum(h.bit_count() for h in node[0])


def steps(rules: RuleSet, node: Node) -> list[Step]:
    """The legal moves of the seat to move (``core.placements``)."""
    hands, _, left, right, seat, opening, _ = node
    return core.placements(hands[seat], left, right, opening, rules.discard)


def step_move(step: Step) -> Move:
    """A solver move as the engine's ``Move``."""
    return Move(Tile.of(step[0]), core.END_NAMES[step[1]])


def move_step(move: Move) -> Step:
    """The engine's ``Move`` as a solver move (an opening's facing does not change a value)."""
    return move.index, move.code if move.code >= 0 else core.NO_END


def apply(rules: RuleSet, node: Node, step: Step) -> tuple[Node | None, Points | None]:
    """The position after ``step`` (a legal move), or the deal's points when it ends there.

    The same placements, turn order and scoring as ``play`` (``engine.core``).
    """
    hands_t, discards_t, left, right, seat, _, pile_t = node
    i, code = step
    hands = list(hands_t)
    hand = hands[seat] & ~(1 << i)
    hands[seat] = hand
    if code == core.DISCARD:
        if not hand:
            out = core.outcome(
                rules, "discard", seat, i, code, left, right, tuple(hands), discards_t
            )
            return None, out[3]
        discards = list(discards_t)
        discards[seat] |= 1 << i
        nxt = core.next_seat(hands, core.FIT[left][right], rules.order[seat], True)
        return (tuple(hands), tuple(discards), left, right, nxt, 0, pile_t), None
    if left < 0:
        new_l, new_r, code = LOW[i], HIGH[i], core.NO_END
    else:
        entry = core.place(i, code, left, right)
        if entry is None:
            raise BadInput(f"{step_move(step)} does not fit {left}|{right}")
        new_l, new_r, code = entry[0], entry[1], entry[2]
    if not hand:
        out = core.outcome(rules, "domi", seat, i, code, left, right, tuple(hands), discards_t)
        return None, out[3]
    fit = core.FIT[new_l][new_r]
    if rules.draws:
        pile = list(pile_t)
        nxt = core.next_drawing(hands, fit, rules.order[seat], pile, [])
        pile_t = tuple(pile)
    else:
        nxt = core.next_seat(hands, fit, rules.order[seat], rules.discard)
    if nxt < 0:
        out = core.outcome(rules, "kandang", seat, i, code, new_l, new_r, tuple(hands), discards_t)
        return None, out[3]
    return (tuple(hands), discards_t, new_l, new_r, nxt, 0, pile_t), None


# The normal bot's own weights order the moves: a heavy tile (and a balak) first.
_ORDER: Final[tuple[float, ...]] = tuple(
    NORMAL.pip_weight * PIPS[i] + (NORMAL.balak_weight if BALAK_MASK >> i & 1 else 0.0)
    for i in range(28)
)


def _weight(step: Step) -> float:
    return -_ORDER[step[0]]


def ordered(rules: RuleSet, node: Node) -> list[Step]:
    """The legal moves in search order: the heavier tile (and a balak) first.

    Ordered before any is applied, so that a cut-off after the first moves spares applying the
    rest (applying is most of a position's cost). A seat with one tile left ends the deal with
    any move, so its moves need no order."""
    out = steps(rules, node)
    if len(out) > 1 and node[0][node[4]].bit_count() > 1:
        out.sort(key=_weight)
    return out


class Solver:
    """Solves positions of deals under one ``RuleSet``; keeps one table per side it solved for.

    ``max_nodes``: the search raises ``SearchLimit`` after visiting that many positions in all
    (0: no limit). ``nodes`` counts the positions visited so far.
    """

    def __init__(self, rules: RuleSet, max_nodes: int = 0) -> None:
        self.rules = rules
        self.max_nodes = max_nodes
        self.nodes = 0
        self._tables: dict[int, dict[Node, tuple[float, float]]] = {}

    def value(self, node: Node, me: int | None = None) -> float:
        """The exact value of ``node`` to seat ``me`` (default: the seat to move)."""
        me = node[4] if me is None else me
        if self.rules.teams and self.rules.sides[me]:
            # Two teams, zero-sum: one table (team 0's) answers for both.
            return -self.value(node, (me + 1) % self.rules.players)
        table = self._tables.setdefault(self.rules.sides[me], {})
        return self._search(node, me, -INF, INF, table)

    def values(self, node: Node, me: int | None = None) -> list[tuple[Step, float]]:
        """Every legal move of the seat to move with its exact value to ``me`` (default: it)."""
        me = node[4] if me is None else me
        if self.rules.teams and self.rules.sides[me]:
            other = (me + 1) % self.rules.players
            return [(s, -v) for s, v in self.values(node, other)]
        table = self._tables.setdefault(self.rules.sides[me], {})
        out = []
        for s in ordered(self.rules, node):
            child, points = apply(self.rules, node, s)
            if points is not None:
                v = value(self.rules, me, points)
            else:
                assert child is not None
                v = self._search(child, me, -INF, INF, table)
            out.append((s, v))
        return out

    def best(self, node: Node) -> tuple[list[Step], float]:
        """The best moves of the seat to move (all that reach the best value) and that value."""
        vals = self.values(node)
        top = max(v for _, v in vals)
        return [s for s, v in vals if v == top], top

    def _search(
        self, node: Node, me: int, alpha: float, beta: float, table: dict[Node, tuple[float, float]]
    ) -> float:
        self.nodes += 1
        if self.max_nodes and self.nodes > self.max_nodes:
            raise SearchLimit(f"more than {self.max_nodes} positions")
        lo, hi = table.get(node, (-INF, INF))
        if lo == hi or lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        alpha, beta = max(alpha, lo), min(beta, hi)
        a0, b0 = alpha, beta
        rules = self.rules
        maximizing = rules.sides[node[4]] == rules.sides[me]
        best = -INF if maximizing else INF
        for s in ordered(rules, node):
            child, points = apply(rules, node, s)
            if points is not None:
                v = value(rules, me, points)
            else:
                assert child is not None
                v = self._search(child, me, alpha, beta, table)
            if maximizing:
                if v > best:
                    best = v
                    alpha = max(alpha, v)
            elif v < best:
                best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        if best <= a0:
            table[node] = (lo, best)  # fail low: an upper bound
        elif best >= b0:
            table[node] = (best, hi)  # fail high: a lower bound
        else:
            table[node] = (best, best)
        return best


def solve(rules: RuleSet, node: Node, me: int | None = None) -> float:
    """The exact value of ``node`` to ``me`` (default: the seat to move), with a fresh table."""
    return Solver(rules).value(node, me)


def brute_force(rules: RuleSet, node: Node, me: int | None = None) -> float:
    """The same value by a full tree search: no pruning, no table (for tests: slow)."""
    me = node[4] if me is None else me
    return _full(rules, node, me)


def _full(rules: RuleSet, node: Node, me: int) -> float:
    pick: Callable[[list[float]], float] = max if rules.sides[node[4]] == rules.sides[me] else min
    vals = []
    for s in steps(rules, node):
        child, points = apply(rules, node, s)
        if points is not None:
            vals.append(value(rules, me, points))
        else:
            assert child is not None
            vals.append(_full(rules, child, me))
    return pick(vals)
