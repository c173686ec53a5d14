"""One deal: hands, the line, the turn; legal placements; placing a tile -> events.

Hands are 28-bit masks of tile indices (``engine.tiles``) so the hot path is integer work.
``DealState`` is immutable; every function returns a new one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from engine.errors import (
    BadMove,
    EndRequired,
    MustOpenWith66,
    NotYourTurn,
    TileDoesNotFit,
    TileNotInHand,
)
from engine.events import Event
from engine.rules import RuleSet
from engine.scoring import LEFT, RIGHT, classify_domi, score_kandang, side_points
from engine.tiles import (
    ALL_TILES,
    DRAWN,
    FULL_MASK,
    HIGH,
    LOW,
    NAMES,
    OTHER,
    WITH,
    Tile,
    bits,
    mask_pips,
    names,
    parse_index,
)

ENDS = (LEFT, RIGHT)


@dataclass(frozen=True, slots=True)
class Move:
    """A placement. ``end`` is None for the opening tile and for a tile fitting one end only.

    ``left`` (an addition to the API) is for the opening tile only: the number that faces the
    left end; by default the tile's low number. It is how a scenario's ``"5-4"`` opening keeps
    its drawing (left end 5, right end 4).
    """

    tile: Tile
    end: str | None = None
    left: int | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"tile": str(self.tile), "end": self.end}
        if self.left is not None:
            d["left"] = self.left
        return d

    @classmethod
    def from_dict(cls, d: Any) -> Move:
        if not isinstance(d, dict) or "tile" not in d:
            raise BadMove(f"a move is an object with a tile, not {d!r}")
        end = d.get("end")
        if end not in (None, LEFT, RIGHT):
            raise BadMove(f"end must be 'left' or 'right', not {end!r}")
        left = d.get("left")
        if left is not None and (isinstance(left, bool) or not isinstance(left, int)):
            raise BadMove(f"left must be a number, not {left!r}")
        return cls(Tile.parse(d["tile"]), end, left)

    def __str__(self) -> str:
        return f"{self.tile}" + (f" ({self.end})" if self.end else "")


@dataclass(frozen=True, slots=True)
class DealResult:
    """How a deal ended and what each seat scored in it (Ganda: both partners show it)."""

    end: str  # "domi" | "kandang"
    result: str  # biasa, balak, ceki, ceki_habis, ceki_balak, ceki_palang, kandang
    winner: int
    points: tuple[int, ...]
    pips: tuple[int, ...]
    hands: tuple[int, ...]  # what each seat still held (masks)
    seat: int  # the seat that went out or locked the board
    tile: int  # its last tile (index)

    def to_dict(self) -> dict[str, Any]:
        return {
            "end": self.end,
            "result": self.result,
            "winner": self.winner,
            "points": list(self.points),
            "pips": list(self.pips),
            "hands": [names(h) for h in self.hands],
            "seat": self.seat,
            "tile": NAMES[self.tile],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DealResult:
        hands = []
        for h in d["hands"]:
            m = 0
            for t in h:
                m |= 1 << parse_index(t)
            hands.append(m)
        return cls(
            d["end"],
            d["result"],
            d["winner"],
            tuple(d["points"]),
            tuple(d["pips"]),
            tuple(hands),
            d["seat"],
            parse_index(d["tile"]),
        )


class DealState(NamedTuple):
    number: int  # 1-based within the set
    seed: int | None
    redeals: int
    first: bool  # first deal of the set: must open with rules.first_opening_tile
    additional: bool  # a Tunggal Additional Game
    opener: int
    dealt: tuple[int, ...]  # hands as dealt (masks); kept for the record and replay
    hands: tuple[int, ...]
    line: tuple[tuple[int, int, int], ...]  # (left number, right number, seat), left to right
    left: int  # -1 before the opening
    right: int
    board: int  # mask of the tiles on the line
    turn: int  # -1 once the deal is over
    passes: tuple[tuple[int, int, int], ...]  # (seat, left, right) at the pass: public knowledge
    result: DealResult | None
    order: tuple[tuple[int, ...], ...]  # order[s]: the seats in turn order after s, s last


def new_deal(
    *,
    number: int,
    hands: tuple[int, ...],
    opener: int,
    first: bool,
    seed: int | None = None,
    redeals: int = 0,
    additional: bool = False,
    players: int = 4,
    direction: int = 1,
) -> DealState:
    return DealState(
        number,
        seed,
        redeals,
        first,
        additional,
        opener,
        hands,
        hands,
        (),
        -1,
        -1,
        0,
        opener,
        (),
        None,
        turn_order(players, direction),
    )


def deal_started_event(deal: DealState) -> Event:
    return Event.of(
        "deal_started",
        {
            "deal_number": deal.number,
            "seed": deal.seed,
            "redeals": deal.redeals,
            "first": deal.first,
            "additional": deal.additional,
            "opener": deal.opener,
            "hands": [names(h) for h in deal.dealt],
        },
    )


_OPENING: dict[str | None, int] = {None: -1}


def opening_index(rules: RuleSet) -> int:
    """Index of the tile that must open a set's first deal, -1 if any tile may (cached)."""
    name = rules.first_opening_tile
    i = _OPENING.get(name)
    if i is None:
        i = _OPENING[name] = parse_index(name)  # type: ignore[arg-type]
    return i


def pick_random(
    hand: int, left: int, right: int, opening: int, rand: Callable[[], float]
) -> tuple[int, int]:
    """A uniformly random legal placement as (tile index, 0 no end | 1 left | 2 right).

    ``opening``: before the first tile, the tile that must open (-1: any tile of the hand).
    A tile that joins two different ends counts as two placements; on ends ``n|n`` a tile's
    two placements give the same result, so it counts once and its drawn end is random.
    Shared by ``random_legal_move`` and the playout kernel so both use ``rand`` identically.
    """
    if left < 0:
        options = bits(hand) if opening < 0 else (opening,)
        return options[int(rand() * len(options))], 0
    wl, wr = WITH[left], WITH[right]
    one = bits(hand & (wl | wr))
    if left == right:
        i = one[int(rand() * len(one))]
        if wl >> i & 1 and wr >> i & 1:
            return i, 1 if rand() < 0.5 else 2
        return i, 0
    two = hand & wl & wr  # tiles joining both ends: a second placement each
    if not two:
        return one[int(rand() * len(one))], 0
    twos = bits(two)
    k = int(rand() * (len(one) + len(twos)))
    if k >= len(one):
        return twos[k - len(one)], 2
    i = one[k]
    return i, 1 if two >> i & 1 else 0


# -- legal placements -------------------------------------------------------------------------
def placements(rules: RuleSet, deal: DealState, seat: int) -> list[tuple[int, str | None]]:
    """(tile index, end) pairs the seat may play now; a tile fitting both ends appears twice."""
    if deal.turn != seat or deal.result is not None:
        return []
    hand = deal.hands[seat]
    left, right = deal.left, deal.right
    if left < 0:
        if deal.first and rules.first_opening_tile is not None:
            o = opening_index(rules)
            return [(o, None)] if hand >> o & 1 else []
        return [(i, None) for i in bits(hand)]
    out: list[tuple[int, str | None]] = []
    wl, wr = WITH[left], WITH[right]
    for i in bits(hand & (wl | wr)):
        if wl >> i & 1 and wr >> i & 1:
            out.append((i, LEFT))
            out.append((i, RIGHT))
        else:
            out.append((i, None))
    return out


def can_move(deal: DealState, seat: int) -> bool:
    return bool(deal.hands[seat] & (WITH[deal.left] | WITH[deal.right]))


# -- checking a move --------------------------------------------------------------------------
def ends_text(deal: DealState) -> str:
    return f"ends {deal.left}|{deal.right}"


def check_move(
    rules: RuleSet, deal: DealState, seat: int, move: Move
) -> tuple[int, str | None, int]:
    """Validate ``move`` for ``seat``; return (tile index, end, number left facing the end).

    For the opening tile the third value is the number that faces the left end; otherwise it is
    the number the tile leaves open at its end. Raises an ``IllegalMove`` naming the move.
    """
    tile = move.tile
    i = tile.index
    if seat != deal.turn:
        raise NotYourTurn(f"seat {seat} cannot play {tile}: it is seat {deal.turn}'s turn")
    if not deal.hands[seat] >> i & 1:
        raise TileNotInHand(f"seat {seat} cannot play {tile}: it is not in seat {seat}'s hand")
    if move.end not in (None, LEFT, RIGHT):
        raise BadMove(f"seat {seat} cannot play {tile}: end must be 'left' or 'right'")
    left, right = deal.left, deal.right
    if left < 0:
        if deal.first and rules.first_opening_tile is not None and i != opening_index(rules):
            raise MustOpenWith66(
                f"seat {seat} cannot open with {tile}: the first deal of a set is opened with "
                f"{rules.first_opening_tile}"
            )
        first = LOW[i] if move.left is None else move.left
        if first not in (LOW[i], HIGH[i]):
            raise BadMove(f"seat {seat} cannot open with {tile} showing {first} on the left")
        return i, None, first
    fits_l, fits_r = OTHER[i][left] >= 0, OTHER[i][right] >= 0
    if not (fits_l or fits_r):
        raise TileDoesNotFit(
            f"seat {seat} cannot play {tile}: it fits no open end ({ends_text(deal)})"
        )
    end = move.end
    if end is None:
        if fits_l and fits_r:
            raise EndRequired(
                f"seat {seat} must say which end for {tile}: it fits both ends ({ends_text(deal)})"
            )
        end = LEFT if fits_l else RIGHT
    elif not (fits_l if end == LEFT else fits_r):
        raise TileDoesNotFit(
            f"seat {seat} cannot play {tile} on the {end} end: it fits only the "
            f"{LEFT if fits_l else RIGHT} end ({ends_text(deal)})"
        )
    return i, end, OTHER[i][left if end == LEFT else right]


# -- placing a tile -----------------------------------------------------------------------------
def place(deal: DealState, seat: int, i: int, end: str | None, number: int) -> DealState:
    """Put tile ``i`` on the line (no checks, no turn change): shared by play and replay."""
    hands = list(deal.hands)
    hands[seat] &= ~(1 << i)
    if end is None:  # opening: ``number`` faces the left end
        other = HIGH[i] if number == LOW[i] else LOW[i]
        line: tuple[tuple[int, int, int], ...] = ((number, other, seat),)
        left, right = number, other
    elif end == LEFT:
        line = ((number, deal.left, seat), *deal.line)
        left, right = number, deal.right
    else:
        line = (*deal.line, (deal.right, number, seat))
        left, right = deal.left, number
    return deal._replace(
        hands=tuple(hands), line=line, left=left, right=right, board=deal.board | 1 << i
    )


_AFTER: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {}


def turn_order(n: int, step: int) -> tuple[tuple[int, ...], ...]:
    """For each seat, the seats in turn order after it, ending with itself (cached)."""
    order = _AFTER.get((n, step))
    if order is None:
        order = tuple(tuple((s + step * k) % n for k in range(1, n + 1)) for s in range(n))
        _AFTER[(n, step)] = order
    return order


_new = tuple.__new__  # builds a NamedTuple without the keyword/_replace overhead


def play_tile(
    rules: RuleSet, deal: DealState, seat: int, move: Move
) -> tuple[DealState, list[Event]]:
    """Apply one placement and what follows automatically: passes, or the end of the deal.

    The deal's result (if it ended) is set on the returned state; the match adds the
    ``deal_ended`` event because it also carries the set's scores. This is the engine's hot
    path (see docs/ENGINE.md), hence the unpacking and inlined checks: anything unusual goes
    through ``check_move``, which raises the precise error.
    """
    (
        number,
        seed,
        redeals,
        first,
        additional,
        opener,
        dealt,
        hands,
        line,
        left,
        right,
        board,
        turn,
        passes,
        result,
        order,
    ) = deal
    i = move.tile.index
    end = move.end
    if seat == turn and left >= 0 and hands[seat] >> i & 1:
        other = OTHER[i]
        ol, orr = other[left], other[right]
        if end is None and (ol < 0) != (orr < 0):
            end = LEFT if ol >= 0 else RIGHT
        elif not ((end == LEFT and ol >= 0) or (end == RIGHT and orr >= 0)):
            check_move(rules, deal, seat, move)
        if end == LEFT:
            line = ((ol, left, seat), *line)
            placed = DRAWN[ol][left]
            left = ol
        else:
            line = (*line, (right, orr, seat))
            placed = DRAWN[right][orr]
            right = orr
    else:
        i, end, facing = check_move(rules, deal, seat, move)  # the opening, or an error
        left, right = facing, HIGH[i] if facing == LOW[i] else LOW[i]
        line = ((left, right, seat),)
        placed = DRAWN[left][right]
    hand = hands[seat] & ~(1 << i)
    as_list = list(hands)
    as_list[seat] = hand
    hands = tuple(as_list)
    board |= 1 << i
    events = [Event("played", (number, seat, NAMES[i], end, placed, left, right))]
    if not hand:
        domi = classify_domi(rules, deal.left, deal.right, i, end, FULL_MASK & ~board)
        result = DealResult(
            "domi",
            domi.result,
            seat,
            tuple(side_points(rules, {seat: domi.points})),
            tuple(mask_pips(h) for h in hands),
            hands,
            seat,
            i,
        )
        turn = -1
    else:
        fit = WITH[left] | WITH[right]
        turn = -1
        after = order[seat]
        for s in after:
            if hands[s] & fit:
                turn = s
                for p in after:
                    if p == s:
                        break
                    passes = (*passes, (p, left, right))
                    events.append(Event("passed", (number, p, left, right)))
                break
        if turn < 0:
            # Nobody can move: ``seat`` has locked the board (Kandang).
            pips = tuple(mask_pips(h) for h in hands)
            kandang = score_kandang(rules, seat, pips)
            points = tuple(side_points(rules, kandang.awards))
            result = DealResult("kandang", "kandang", kandang.winner, points, pips, hands, seat, i)
    return (
        _new(
            DealState,
            (
                number,
                seed,
                redeals,
                first,
                additional,
                opener,
                dealt,
                hands,
                line,
                left,
                right,
                board,
                turn,
                passes,
                result,
                order,
            ),
        ),
        events,
    )


def hand_tiles(deal: DealState, seat: int) -> list[Tile]:
    return [ALL_TILES[i] for i in bits(deal.hands[seat])]
