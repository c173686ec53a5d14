"""One deal: hands, the line, the turn; legal moves; placing or discarding a tile -> events.

Hands are 28-bit masks of tile indices (``engine.tiles``) so the hot path is integer work.
``DealState`` is immutable; every function returns a new one. Klasik (RULES.md §2) adds a
face-up start tile on the line (placed by nobody: seat -1), tiles set aside unseen, and
discards: a seat that cannot place a tile discards one face down when ``rules.discard``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from engine.errors import (
    BadMove,
    DiscardNotAllowed,
    EndRequired,
    MustOpenWith00,
    MustOpenWith66,
    MustOpenWithBalak,
    MustPlace,
    NotYourTurn,
    TileDoesNotFit,
    TileNotInHand,
    WrongOpening,
)
from engine.events import Event
from engine.rules import RuleSet
from engine.scoring import (
    LEFT,
    RIGHT,
    classify_domi,
    score_counts,
    score_kandang,
    side_points,
)
from engine.tiles import (
    ALL_TILES,
    BALAK_MASK,
    DRAWN,
    FULL_MASK,
    HIGH,
    INDEX,
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
DISCARD = "discard"  # Move.end of a discard (Klasik): the tile goes face down, not on the line
MOVE_ENDS = (None, LEFT, RIGHT, DISCARD)
NOBODY = -1  # the "seat" of the face-up start tile on the line


@dataclass(frozen=True, slots=True)
class Move:
    """A placement or (Klasik) a discard.

    ``end`` is None for the opening tile and for a tile fitting one end only, ``"left"`` or
    ``"right"`` for a tile fitting both, and ``"discard"`` (``DISCARD``) when the seat lays
    the tile face down because it cannot place one. Stored as ``tile`` + ``end``, a move
    replays as ``Move(Tile.parse(tile), end)`` whatever its kind.

    ``left`` (an addition to the API) is for the opening tile only: the number that faces the
    left end; by default the tile's low number. It is how a scenario's ``"5-4"`` opening keeps
    its drawing (left end 5, right end 4).
    """

    tile: Tile
    end: str | None = None
    left: int | None = None

    @property
    def is_discard(self) -> bool:
        return self.end == DISCARD

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"tile": str(self.tile), "end": self.end}
        if self.left is not None:
            d["left"] = self.left
        return d

    @classmethod
    def from_dict(cls, d: Any) -> Move:
        """``{"tile", "end"?, "left"?}``; ``{"tile", "discard": true}`` is read as a discard."""
        if not isinstance(d, dict) or "tile" not in d:
            raise BadMove(f"a move is an object with a tile, not {d!r}")
        end = d.get("end")
        if d.get("discard") is True and end in (None, DISCARD):
            end = DISCARD
        if end not in MOVE_ENDS:
            raise BadMove(f"end must be 'left', 'right' or 'discard', not {end!r}")
        left = d.get("left")
        if left is not None and (isinstance(left, bool) or not isinstance(left, int)):
            raise BadMove(f"left must be a number, not {left!r}")
        return cls(Tile.parse(d["tile"]), end, left)

    def __str__(self) -> str:
        return f"{self.tile}" + (f" ({self.end})" if self.end else "")


@dataclass(frozen=True, slots=True)
class DealResult:
    """How a deal ended and what each seat scored in it (Ganda: both partners show it)."""

    end: str  # "domi" (a seat has no tiles left) | "kandang" (nobody can place: blocked)
    # PORDI: biasa, balak, ceki, ceki_habis, ceki_balak, ceki_palang, kandang.
    # Klasik: "domi" (last tile placed), "discard" (last tile discarded), "kandang".
    result: str
    winner: int
    points: tuple[int, ...]
    pips: tuple[int, ...]  # pips left in each hand
    hands: tuple[int, ...]  # what each seat still held (masks)
    seat: int  # the seat that went out or locked the board
    tile: int  # its last tile (index)
    # Klasik: what counted against each seat (hand + discards, with the 0-0 option); PORDI:
    # the pips in hand. Discards (masks) and the set-aside tiles, revealed with the hands.
    counts: tuple[int, ...] = ()
    discards: tuple[int, ...] = ()
    set_aside: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "end": self.end,
            "result": self.result,
            "winner": self.winner,
            "points": list(self.points),
            "pips": list(self.pips),
            "counts": list(self.counts),
            "hands": [names(h) for h in self.hands],
            "discards": [names(h) for h in self.discards],
            "set_aside": names(self.set_aside),
            "seat": self.seat,
            "tile": NAMES[self.tile],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DealResult:
        hands = tuple(_mask(h) for h in d["hands"])
        return cls(
            d["end"],
            d["result"],
            d["winner"],
            tuple(d["points"]),
            tuple(d["pips"]),
            hands,
            d["seat"],
            parse_index(d["tile"]),
            tuple(d.get("counts", d["pips"])),
            tuple(_mask(h) for h in d.get("discards", [[] for _ in hands])),
            _mask(d.get("set_aside", [])),
        )


def _mask(tiles: list[str]) -> int:
    m = 0
    for t in tiles:
        m |= 1 << parse_index(t)
    return m


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
    discards: tuple[int, ...]  # each seat's discards (masks): the server's and its own secret
    set_aside: int  # mask of the tiles set aside unseen (Klasik)
    discard_log: tuple[tuple[int, int, int], ...]  # (seat, left, right) at a discard: public


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
    start: tuple[int, int] | None = None,
    set_aside: int = 0,
) -> DealState:
    """A deal before its first move. ``start``: the face-up start tile as drawn (left, right)."""
    if start is None:
        line: tuple[tuple[int, int, int], ...] = ()
        left = right = -1
        board = 0
    else:
        left, right = start
        line = ((left, right, NOBODY),)
        board = 1 << INDEX[left][right]
    return DealState(
        number,
        seed,
        redeals,
        first,
        additional,
        opener,
        hands,
        hands,
        line,
        left,
        right,
        board,
        opener,
        (),
        None,
        turn_order(players, direction),
        (0,) * players,
        set_aside,
        (),
    )


def start_of(deal: DealState) -> str | None:
    """The face-up start tile as drawn (``"5-2"``), or None."""
    for a, b, s in deal.line:
        if s == NOBODY:
            return DRAWN[a][b]
    return None


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
            "start": start_of(deal),
            "set_aside": names(deal.set_aside),
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


def opening_mask(rules: RuleSet, deal: DealState, hand: int) -> int:
    """The tiles ``hand`` may open the empty line with in this deal.

    First deal with a ``first_opening_tile``: that tile. Later deals under ``opening_lead``
    "balak": any balak (the lead has already passed to a seat holding one; if no seat held
    one, any tile). Otherwise any tile.
    """
    if deal.first:
        o = opening_index(rules)
        return FULL_MASK if o < 0 else 1 << o
    if rules.opening_lead == "balak" and hand & BALAK_MASK:
        return BALAK_MASK
    return FULL_MASK


def pick_random(
    hand: int, left: int, right: int, opening: int, rand: Callable[[], float]
) -> tuple[int, int]:
    """A uniformly random legal placement as (tile index, 0 no end | 1 left | 2 right).

    ``opening``: before the first tile, the mask of tiles that may open (``FULL_MASK``: any
    tile of the hand). A tile that joins two different ends counts as two placements; on ends
    ``n|n`` a tile's two placements give the same result, so it counts once and its drawn end
    is random. Shared by ``random_legal_move`` and the playout kernel so both use ``rand``
    identically. The hand must hold a legal placement.
    """
    if left < 0:
        options = bits(hand & opening)
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


# -- legal moves ------------------------------------------------------------------------------
def placements(rules: RuleSet, deal: DealState, seat: int) -> list[tuple[int, str | None]]:
    """(tile index, end) pairs the seat may play now; a tile fitting both ends appears twice.

    A seat that must discard (it cannot place, ``rules.discard``) gets one ``(tile,
    "discard")`` pair per tile of its hand.
    """
    if deal.turn != seat or deal.result is not None:
        return []
    hand = deal.hands[seat]
    left, right = deal.left, deal.right
    if left < 0:
        return [(i, None) for i in bits(hand & opening_mask(rules, deal, hand))]
    out: list[tuple[int, str | None]] = []
    wl, wr = WITH[left], WITH[right]
    for i in bits(hand & (wl | wr)):
        if wl >> i & 1 and wr >> i & 1:
            out.append((i, LEFT))
            out.append((i, RIGHT))
        else:
            out.append((i, None))
    if not out and rules.discard:
        return [(i, DISCARD) for i in bits(hand)]
    return out


def can_move(deal: DealState, seat: int) -> bool:
    """The seat holds a tile that fits an open end."""
    return bool(deal.hands[seat] & (WITH[deal.left] | WITH[deal.right]))


def must_discard(rules: RuleSet, deal: DealState) -> bool:
    """The seat to move cannot place a tile and must discard one."""
    return (
        rules.discard and deal.result is None and deal.left >= 0 and not can_move(deal, deal.turn)
    )


# -- checking a move --------------------------------------------------------------------------
def ends_text(deal: DealState) -> str:
    return f"ends {deal.left}|{deal.right}"


_MUST_OPEN_WITH: dict[str, type[WrongOpening]] = {"6-6": MustOpenWith66, "0-0": MustOpenWith00}


def must_open_with(name: str, message: str) -> WrongOpening:
    """The error for a first deal not opened with tile ``name`` (stable code per tile)."""
    return _MUST_OPEN_WITH.get(name, WrongOpening)(message)


def _wrong_opening(rules: RuleSet, deal: DealState, seat: int, tile: Tile) -> WrongOpening:
    if deal.first:
        name = rules.first_opening_tile or ""
        return must_open_with(
            name,
            f"seat {seat} cannot open with {tile}: the first deal of a set is opened with {name}",
        )
    return MustOpenWithBalak(
        f"seat {seat} cannot open with {tile}: the previous deal's winner leads with a balak"
    )


def check_move(
    rules: RuleSet, deal: DealState, seat: int, move: Move
) -> tuple[int, str | None, int]:
    """Validate placement ``move`` for ``seat``; return (tile index, end, number).

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
        if not opening_mask(rules, deal, deal.hands[seat]) >> i & 1:
            raise _wrong_opening(rules, deal, seat, tile)
        first = LOW[i] if move.left is None else move.left
        if first not in (LOW[i], HIGH[i]):
            raise BadMove(f"seat {seat} cannot open with {tile} showing {first} on the left")
        return i, None, first
    fits_l, fits_r = OTHER[i][left] >= 0, OTHER[i][right] >= 0
    if not (fits_l or fits_r):
        hint = " and must discard" if rules.discard and not can_move(deal, seat) else ""
        raise TileDoesNotFit(
            f"seat {seat} cannot play {tile}: it fits no open end ({ends_text(deal)}){hint}"
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


def check_discard(rules: RuleSet, deal: DealState, seat: int, move: Move) -> int:
    """Validate discard ``move`` for ``seat``; return the tile index."""
    tile = move.tile
    i = tile.index
    if seat != deal.turn:
        raise NotYourTurn(f"seat {seat} cannot discard {tile}: it is seat {deal.turn}'s turn")
    if not rules.discard:
        raise DiscardNotAllowed(
            f"seat {seat} cannot discard {tile}: under these rules a seat that cannot play passes"
        )
    hand = deal.hands[seat]
    if not hand >> i & 1:
        raise TileNotInHand(f"seat {seat} cannot discard {tile}: it is not in seat {seat}'s hand")
    if deal.left < 0:
        raise MustPlace(f"seat {seat} cannot discard {tile}: it opens the line")
    fit = hand & (WITH[deal.left] | WITH[deal.right])
    if fit:
        raise MustPlace(
            f"seat {seat} cannot discard {tile}: it can place {NAMES[bits(fit)[0]]} "
            f"({ends_text(deal)})"
        )
    return i


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


def lay_down(deal: DealState, seat: int, i: int) -> DealState:
    """Discard tile ``i`` face down (no checks, no turn change): shared by play and replay."""
    bit = 1 << i
    hands = list(deal.hands)
    hands[seat] &= ~bit
    discards = list(deal.discards)
    discards[seat] |= bit
    return deal._replace(
        hands=tuple(hands),
        discards=tuple(discards),
        discard_log=(*deal.discard_log, (seat, deal.left, deal.right)),
    )


_AFTER: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {}


def turn_order(n: int, step: int) -> tuple[tuple[int, ...], ...]:
    """For each seat, the seats in turn order after it, ending with itself (cached)."""
    order = _AFTER.get((n, step))
    if order is None:
        order = tuple(tuple((s + step * k) % n for k in range(1, n + 1)) for s in range(n))
        _AFTER[(n, step)] = order
    return order


def next_turn(discard: bool, hands: tuple[int, ...], fit: int, after: tuple[int, ...]) -> int:
    """Who moves next, from the seats ``after`` in turn order; -1 when nobody can place.

    Pass rules: the first of them able to place (the ones before it pass). Discard rules: the
    first of them, who places or discards, as long as some seat can still place.
    """
    for s in after:
        if hands[s] & fit:
            return after[0] if discard else s
    return -1


def deal_result(
    rules: RuleSet,
    deal: DealState,
    how: str,
    seat: int,
    i: int,
    hands: tuple[int, ...],
    end: str | None,
) -> DealResult:
    """Score a deal that just ended.

    ``how``: "domi" (a last tile placed), "discard" (a last tile discarded) or "kandang"
    (nobody can place). ``deal`` is the state before the last move: its ends score a PORDI
    Domi. Count scoring (Klasik) ranks every seat by what it answers for, hand + discards.
    """
    pips = tuple(mask_pips(h) for h in hands)
    discards, set_aside = deal.discards, deal.set_aside
    if how == DISCARD:
        ds = list(discards)
        ds[seat] |= 1 << i
        discards = tuple(ds)
    if rules.counts:
        counted = score_counts(rules, [h | d for h, d in zip(hands, discards, strict=True)])
        end_kind = "kandang" if how == "kandang" else "domi"
        return DealResult(
            end_kind,
            how,
            counted.winner,
            counted.points,
            pips,
            hands,
            seat,
            i,
            counted.counts,
            discards,
            set_aside,
        )
    if how == "kandang":
        kandang = score_kandang(rules, seat, pips)
        points = tuple(side_points(rules, kandang.awards))
        return DealResult(
            "kandang",
            "kandang",
            kandang.winner,
            points,
            pips,
            hands,
            seat,
            i,
            pips,
            discards,
            set_aside,
        )
    others = 0  # a number is used up when no other seat holds it (§1.2)
    for h in hands:
        others |= h
    domi = classify_domi(rules, deal.left, deal.right, i, end, others)
    return DealResult(
        "domi",
        domi.result,
        seat,
        tuple(side_points(rules, {seat: domi.points})),
        pips,
        hands,
        seat,
        i,
        pips,
        discards,
        set_aside,
    )


_new = tuple.__new__  # builds a NamedTuple without the keyword/_replace overhead


def play_tile(
    rules: RuleSet, deal: DealState, seat: int, move: Move
) -> tuple[DealState, list[Event]]:
    """Apply one move and what follows automatically: passes, or the end of the deal.

    The deal's result (if it ended) is set on the returned state; the match adds the
    ``deal_ended`` event because it also carries the set's scores. This is the engine's hot
    path (see docs/ENGINE.md), hence the unpacking and inlined checks: anything unusual goes
    through ``check_move``, which raises the precise error.
    """
    if move.end == DISCARD:
        return discard_tile(rules, deal, seat, move)
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
        discards,
        set_aside,
        discard_log,
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
        result = deal_result(rules, deal, "domi", seat, i, hands, end)
        turn = -1
    else:
        # next_turn(), inlined: this runs on every placement.
        after = order[seat]
        fit = WITH[left] | WITH[right]
        turn = -1
        for s in after:
            if hands[s] & fit:
                turn = after[0] if rules.discard else s
                break
        if turn < 0:
            # Nobody can place: ``seat`` has locked the board (Kandang).
            result = deal_result(rules, deal, "kandang", seat, i, hands, end)
        else:
            for p in after:
                if p == turn:
                    break
                passes = (*passes, (p, left, right))
                events.append(Event("passed", (number, p, left, right)))
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
                discards,
                set_aside,
                discard_log,
            ),
        ),
        events,
    )


def discard_tile(
    rules: RuleSet, deal: DealState, seat: int, move: Move
) -> tuple[DealState, list[Event]]:
    """A seat that cannot place lays a tile face down (Klasik). It counts against the seat.

    The deal ends when that was its last tile. Otherwise the next seat moves: a discard takes
    no tile off the open ends' numbers, so some seat can still place (else the deal would
    have ended blocked before this turn).
    """
    i = check_discard(rules, deal, seat, move)
    left, right = deal.left, deal.right
    events = [Event("discarded", (deal.number, seat, NAMES[i], left, right))]
    after = lay_down(deal, seat, i)
    if not after.hands[seat]:
        result = deal_result(rules, deal, DISCARD, seat, i, after.hands, None)
        return after._replace(turn=-1, result=result), events
    turn = next_turn(rules.discard, after.hands, WITH[left] | WITH[right], deal.order[seat])
    assert turn >= 0, "a discard cannot block the line"
    return after._replace(turn=turn), events


def open_turn(rules: RuleSet, deal: DealState) -> tuple[DealState, list[Event]]:
    """With a face-up start tile: the opener moves first, or (pass rules) the next seat that can.

    RuleSet validation keeps at most five tiles set aside, so some seat always holds a tile
    that fits the start tile (each number is on six other tiles).
    """
    if deal.left < 0:
        return deal, []
    n = len(deal.hands)
    before = deal.order[deal.opener][n - 2] if n > 1 else deal.opener
    after = deal.order[before]
    turn = next_turn(rules.discard, deal.hands, WITH[deal.left] | WITH[deal.right], after)
    assert turn >= 0, "some seat can always play on the start tile"
    passes = []
    events = []
    for p in after:
        if p == turn:
            break
        passes.append((p, deal.left, deal.right))
        events.append(Event("passed", (deal.number, p, deal.left, deal.right)))
    return deal._replace(turn=turn, passes=tuple(passes)), events


def hand_tiles(deal: DealState, seat: int) -> list[Tile]:
    return [ALL_TILES[i] for i in bits(deal.hands[seat])]
