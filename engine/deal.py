"""One deal's public face: moves, results, the deal's facts and position, checked moves.

The rules themselves are ``engine.core`` (placements, next seat, outcome, on ints); this module
wraps them with validation that names the move, immutable states and events. A deal is two
immutable parts: ``DealFacts``, fixed when it is dealt (hands as dealt, opener, turn order, the
face-up start tile and the tiles set aside in Klasik), and ``Position``, what each move changes
(hands, the line, the turn, passes, discards, the result). ``DealState`` pairs them for readers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from engine import core
from engine.core import AT_LEFT, END_NAMES, FIT, NOBODY, PLACE, next_seat, piece
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
from engine.events import Event, Lazy
from engine.record import Record, mypyc_attr
from engine.rules import RuleSet
from engine.scoring import LEFT, RIGHT
from engine.tiles import (
    DRAWN,
    HIGH,
    INDEX,
    LOW,
    NAMES,
    OTHER,
    Tile,
    bits,
    mask_of_names,
    mask_pips,
    names,
    parse_index,
)

ENDS: Final = (LEFT, RIGHT)
# Move.end of a discard (Klasik): the tile goes face down, not on the line.
DISCARD: Final = "discard"
MOVE_ENDS: Final = (None, LEFT, RIGHT, DISCARD)


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
    # For the core: the tile's index and the end's code (-1: not an end at all).
    index: int = field(init=False, compare=False, repr=False)
    code: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", self.tile.index)
        object.__setattr__(self, "code", core.END_CODES.get(self.end, -1))

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


@mypyc_attr(acyclic=True)
class DealResult(Record):
    """How a deal ended and what each seat scored in it (Ganda: both partners show it)."""

    _fields = (
        "end",  # "domi" (a seat has no tiles left) | "kandang" (nobody can place: blocked)
        # PORDI: biasa, balak, ceki, ceki_habis, ceki_balak, ceki_palang, kandang.
        # Klasik: "domi" (last tile placed), "discard" (last tile discarded), "kandang".
        "result",
        "winner",
        "points",
        "pips",  # pips left in each hand
        "hands",  # what each seat still held (masks)
        "seat",  # the seat that went out or locked the board
        "tile",  # its last tile (index)
        # Klasik: what counted against each seat (hand + discards, with the 0-0 option);
        # PORDI: the pips in hand. Discards (masks) and the set-aside tiles, revealed with the
        # hands.
        "counts",
        "discards",
        "set_aside",
    )
    __slots__ = _fields

    def __init__(
        self,
        end: str,
        result: str,
        winner: int,
        points: tuple[int, ...],
        pips: tuple[int, ...],
        hands: tuple[int, ...],
        seat: int,
        tile: int,
        counts: tuple[int, ...] = (),
        discards: tuple[int, ...] = (),
        set_aside: int = 0,
    ) -> None:
        self.end = end
        self.result = result
        self.winner = winner
        self.points = points
        self.pips = pips
        self.hands = hands
        self.seat = seat
        self.tile = tile
        self.counts = counts
        self.discards = discards
        self.set_aside = set_aside

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
        hands = tuple(mask_of_names(h) for h in d["hands"])
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
            tuple(mask_of_names(h) for h in d.get("discards", [[] for _ in hands])),
            mask_of_names(d.get("set_aside", [])),
        )


@mypyc_attr(acyclic=True)
class DealFacts(Record):
    """What a deal is from its first move to its last: nothing here changes while it is played."""

    _fields = (
        "number",  # 1-based within the set
        "seed",
        "redeals",
        "first",  # first deal of the set: must open with rules.first_opening_tile
        "additional",  # a Tunggal Additional Game
        "opener",
        "dealt",  # hands as dealt (masks); kept for the record
        "order",  # order[s]: the seats in turn order after s, s last
        "set_aside",  # mask of the tiles set aside unseen (Klasik)
        "start",  # the face-up start tile as drawn (left, right), or None
        # Draw rules: the set-aside tiles in dealt order, the boneyard (drawn from the front).
        "boneyard",
        # A provably fair deal (docs/FAIRNESS.md): the secret it was dealt from (``seed`` is
        # None). Only its commitment is shown before the deal ends; ``deal_ended`` carries it.
        "secret",
        # The rules' stuck option (``RuleSet.discard`` / ``RuleSet.draws``), read once per deal
        # rather than on every move.
        "discard",
        "draws",
    )
    __slots__ = _fields

    def __init__(
        self,
        number: int,
        seed: int | None,
        redeals: int,
        first: bool,
        additional: bool,
        opener: int,
        dealt: tuple[int, ...],
        order: tuple[tuple[int, ...], ...],
        set_aside: int,
        start: tuple[int, int] | None,
        boneyard: tuple[int, ...] = (),
        secret: str | None = None,
        discard: bool = False,
        draws: bool = False,
    ) -> None:
        self.number = number
        self.seed = seed
        self.redeals = redeals
        self.first = first
        self.additional = additional
        self.opener = opener
        self.dealt = dealt
        self.order = order
        self.set_aside = set_aside
        self.start = start
        self.boneyard = boneyard
        self.secret = secret
        self.discard = discard
        self.draws = draws


@mypyc_attr(acyclic=True, free_list_len=1)
class Position(Record):
    """Where a deal stands: what every move changes."""

    _fields = (
        "hands",
        "line",  # (left number, right number, seat), left to right
        "left",  # -1 before the opening
        "right",
        "board",  # mask of the tiles on the line
        "turn",  # -1 once the deal is over
        "passes",  # (seat, left, right) at the pass: public knowledge
        "discards",  # each seat's discards (masks): the server's and its own secret
        "discard_log",  # (seat, left, right) at a discard: public
        "result",
    )
    __slots__ = _fields

    def __init__(
        self,
        hands: tuple[int, ...],
        line: tuple[tuple[int, int, int], ...],
        left: int,
        right: int,
        board: int,
        turn: int,
        passes: tuple[tuple[int, int, int], ...],
        discards: tuple[int, ...],
        discard_log: tuple[tuple[int, int, int], ...],
        result: DealResult | None,
    ) -> None:
        self.hands = hands
        self.line = line
        self.left = left
        self.right = right
        self.board = board
        self.turn = turn
        self.passes = passes
        self.discards = discards
        self.discard_log = discard_log
        self.result = result


@mypyc_attr(acyclic=True)
class DealState(Record):
    """A deal for its readers: its fixed facts and its position, each field by its old name."""

    __slots__ = ("facts", "pos")
    _fields = ("facts", "pos")

    def __init__(self, facts: DealFacts, pos: Position) -> None:
        self.facts = facts
        self.pos = pos

    @property
    def number(self) -> int:
        return self.facts.number

    @property
    def seed(self) -> int | None:
        return self.facts.seed

    @property
    def redeals(self) -> int:
        return self.facts.redeals

    @property
    def first(self) -> bool:
        return self.facts.first

    @property
    def additional(self) -> bool:
        return self.facts.additional

    @property
    def opener(self) -> int:
        return self.facts.opener

    @property
    def dealt(self) -> tuple[int, ...]:
        return self.facts.dealt

    @property
    def order(self) -> tuple[tuple[int, ...], ...]:
        return self.facts.order

    @property
    def set_aside(self) -> int:
        return self.facts.set_aside

    @property
    def hands(self) -> tuple[int, ...]:
        return self.pos.hands

    @property
    def line(self) -> tuple[tuple[int, int, int], ...]:
        return self.pos.line

    @property
    def left(self) -> int:
        return self.pos.left

    @property
    def right(self) -> int:
        return self.pos.right

    @property
    def board(self) -> int:
        return self.pos.board

    @property
    def turn(self) -> int:
        return self.pos.turn

    @property
    def passes(self) -> tuple[tuple[int, int, int], ...]:
        return self.pos.passes

    @property
    def discards(self) -> tuple[int, ...]:
        return self.pos.discards

    @property
    def discard_log(self) -> tuple[tuple[int, int, int], ...]:
        return self.pos.discard_log

    @property
    def result(self) -> DealResult | None:
        return self.pos.result


def new_deal(
    *,
    number: int,
    hands: tuple[int, ...],
    opener: int,
    first: bool,
    order: tuple[tuple[int, ...], ...],
    seed: int | None = None,
    redeals: int = 0,
    additional: bool = False,
    start: tuple[int, int] | None = None,
    set_aside: int = 0,
    boneyard: tuple[int, ...] = (),
    secret: str | None = None,
    stuck: str = "pass",
) -> tuple[DealFacts, Position]:
    """A deal before its first move. ``order``: the rules' turn order (``RuleSet.order``).
    ``start``: the face-up start tile as drawn (left, right).

    ``boneyard``: under draw rules, the set-aside tiles in drawing order. ``secret``: what a
    provably fair deal was dealt from. ``stuck``: the rules' option for a seat that cannot place
    (``RuleSet.stuck``).
    """
    players = len(order)
    facts = DealFacts(
        number,
        seed,
        redeals,
        first,
        additional,
        opener,
        hands,
        order,
        set_aside,
        start,
        boneyard,
        secret,
        stuck == "discard",
        stuck == "draw",
    )
    if start is None:
        pos = Position(hands, (), -1, -1, 0, opener, (), (0,) * players, (), None)
    else:
        left, right = start
        line = piece(left, right, NOBODY)
        board = 1 << INDEX[left][right]
        pos = Position(hands, line, left, right, board, opener, (), (0,) * players, (), None)
    return facts, pos


def stock(facts: DealFacts, pos: Position) -> list[int]:
    """The boneyard still face down (tile indices, next draw first); empty unless drawing."""
    if not facts.boneyard:
        return []
    taken = pos.board
    for h in pos.hands:
        taken |= h
    return [i for i in facts.boneyard if not taken >> i & 1]


def start_of(facts: DealFacts) -> str | None:
    """The face-up start tile as drawn (``"5-2"``), or None."""
    return None if facts.start is None else DRAWN[facts.start[0]][facts.start[1]]


def fair_facts(
    rules: RuleSet, facts: DealFacts
) -> tuple[str | None, str | None, dict[str, Any] | None]:
    """What everyone is shown of a fair deal from its start: the shuffle's version, its
    commitment and ``fairness.dealing``. All None for a deal dealt from a seed."""
    if facts.secret is None:
        return None, None, None
    shuffle, commitment, dealing = _published(rules, facts.secret, facts.redeals)
    return shuffle, commitment, dict(dealing)  # the cached dict stays unshared


@lru_cache(maxsize=64)
def _published(rules: RuleSet, secret: str, k: int) -> tuple[str, str, dict[str, Any]]:
    # Cached: every snapshot of a deal shows these, and they never change while it is played.
    # Imported here, not above: ``python -m engine.fairness`` must find it not yet imported.
    from engine import fairness

    return fairness.SHUFFLE_VERSION, fairness.commitment(secret), fairness.dealing(rules, k)


def deal_started_event(facts: DealFacts, rules: RuleSet) -> Event:
    """Its secret is not in it: ``deal_ended`` carries that, once the deal is over."""
    return Event("deal_started", Lazy(deal_started_data, facts, rules))


def deal_started_data(facts: DealFacts, rules: RuleSet) -> dict[str, Any]:
    """The ``deal_started`` event's fields: every hand as dealt (storage only)."""
    shuffle, commitment, dealing = fair_facts(rules, facts)
    return {
        "deal_number": facts.number,
        "seed": facts.seed,
        "shuffle": shuffle,
        "commitment": commitment,
        "dealing": dealing,
        "redeals": facts.redeals,
        "first": facts.first,
        "additional": facts.additional,
        "opener": facts.opener,
        "hands": [names(h) for h in facts.dealt],
        "start": start_of(facts),
        "set_aside": (
            [NAMES[i] for i in facts.boneyard] if facts.boneyard else names(facts.set_aside)
        ),
    }


# -- legal moves ------------------------------------------------------------------------------
def placements(
    rules: RuleSet, facts: DealFacts, pos: Position, seat: int
) -> list[tuple[int, str | None]]:
    """(tile index, end) pairs the seat may play now; a tile fitting both ends appears twice.

    A seat that must discard (it cannot place, ``rules.discard``) gets one ``(tile,
    "discard")`` pair per tile of its hand.
    """
    if pos.turn != seat or pos.result is not None:
        return []
    hand = pos.hands[seat]
    opening = core.opening_mask(rules, facts.first, hand)
    names_ = core.END_NAMES
    return [
        (i, names_[c])
        for i, c in core.placements(hand, pos.left, pos.right, opening, rules.discard)
    ]


# -- checking a move: the precise error for an illegal one -------------------------------------
def ends_text(pos: Position) -> str:
    return f"ends {pos.left}|{pos.right}"


_MUST_OPEN_WITH: Final[dict[str, type[WrongOpening]]] = {
    "6-6": MustOpenWith66,
    "0-0": MustOpenWith00,
}


def must_open_with(name: str, message: str) -> WrongOpening:
    """The error for a first deal not opened with tile ``name`` (stable code per tile)."""
    return _MUST_OPEN_WITH.get(name, WrongOpening)(message)


def _wrong_opening(rules: RuleSet, facts: DealFacts, seat: int, tile: Tile) -> WrongOpening:
    if facts.first:
        name = rules.first_opening_tile or ""
        return must_open_with(
            name,
            f"seat {seat} cannot open with {tile}: the first deal of a set is opened with {name}",
        )
    return MustOpenWithBalak(
        f"seat {seat} cannot open with {tile}: the previous deal's winner leads with a balak"
    )


def can_place(pos: Position, seat: int) -> bool:
    return pos.left >= 0 and bool(pos.hands[seat] & FIT[pos.left][pos.right])


def check_move(rules: RuleSet, facts: DealFacts, pos: Position, seat: int, move: Move) -> int:
    """Validate placement ``move`` for ``seat``; return the opening's left number.

    Called for the opening tile (it returns the number that faces the left end) and for any
    move the core refused, to raise the ``IllegalMove`` that names what is wrong.
    """
    tile = move.tile
    i = tile.index
    if seat != pos.turn:
        raise NotYourTurn(f"seat {seat} cannot play {tile}: it is seat {pos.turn}'s turn")
    if not pos.hands[seat] >> i & 1:
        raise TileNotInHand(f"seat {seat} cannot play {tile}: it is not in seat {seat}'s hand")
    if move.end not in (None, LEFT, RIGHT):
        raise BadMove(f"seat {seat} cannot play {tile}: end must be 'left' or 'right'")
    left, right = pos.left, pos.right
    if left < 0:
        if not core.opening_mask(rules, facts.first, pos.hands[seat]) >> i & 1:
            raise _wrong_opening(rules, facts, seat, tile)
        first = LOW[i] if move.left is None else move.left
        if first not in (LOW[i], HIGH[i]):
            raise BadMove(f"seat {seat} cannot open with {tile} showing {first} on the left")
        return first
    fits_l, fits_r = OTHER[i][left] >= 0, OTHER[i][right] >= 0
    if not (fits_l or fits_r):
        hint = " and must discard" if rules.discard and not can_place(pos, seat) else ""
        raise TileDoesNotFit(
            f"seat {seat} cannot play {tile}: it fits no open end ({ends_text(pos)}){hint}"
        )
    end = move.end
    if end is None:
        raise EndRequired(
            f"seat {seat} must say which end for {tile}: it fits both ends ({ends_text(pos)})"
        )
    raise TileDoesNotFit(
        f"seat {seat} cannot play {tile} on the {end} end: it fits only the "
        f"{LEFT if fits_l else RIGHT} end ({ends_text(pos)})"
    )


def check_discard(rules: RuleSet, pos: Position, seat: int, move: Move) -> int:
    """Validate discard ``move`` for ``seat``; return the tile index."""
    tile = move.tile
    i = tile.index
    if seat != pos.turn:
        raise NotYourTurn(f"seat {seat} cannot discard {tile}: it is seat {pos.turn}'s turn")
    if not rules.discard:
        raise DiscardNotAllowed(
            f"seat {seat} cannot discard {tile}: under these rules a seat that cannot play passes"
        )
    hand = pos.hands[seat]
    if not hand >> i & 1:
        raise TileNotInHand(f"seat {seat} cannot discard {tile}: it is not in seat {seat}'s hand")
    if pos.left < 0:
        raise MustPlace(f"seat {seat} cannot discard {tile}: it opens the line")
    fit = hand & FIT[pos.left][pos.right]
    if fit:
        raise MustPlace(
            f"seat {seat} cannot discard {tile}: it can place {NAMES[bits(fit)[0]]} "
            f"({ends_text(pos)})"
        )
    return i


# -- playing ------------------------------------------------------------------------------------
def deal_result(
    rules: RuleSet,
    facts: DealFacts,
    pos: Position,
    how: str,
    seat: int,
    i: int,
    code: int,
    hands: tuple[int, ...],
) -> DealResult:
    """Score a deal that just ended (``core.outcome``); ``pos`` is the position before the move."""
    end, result, winner, points, counts, discards = core.outcome(
        rules, how, seat, i, code, pos.left, pos.right, hands, pos.discards
    )
    pips = counts if not rules.counts else tuple([mask_pips(h) for h in hands])
    left_over = facts.set_aside
    if facts.boneyard:  # what nobody drew: neither in a hand nor on the line
        left_over &= ~(pos.board | 1 << i)
        for h in hands:
            left_over &= ~h
    return DealResult(
        end, result, winner, points, pips, hands, seat, i, counts, discards, left_over
    )


def play_tile(
    rules: RuleSet, facts: DealFacts, pos: Position, seat: int, move: Move
) -> tuple[Position, list[Event]]:
    """Apply one move and what follows automatically: passes, or the end of the deal.

    The deal's result (if it ended) is set on the returned position; the match adds the
    ``deal_ended`` event because it also carries the set's scores. The core's placement table
    decides every legal placement; only a move it refuses, or the opening, is looked at by
    ``check_move``, which raises the precise error.
    """
    i = move.index
    code = move.code
    if code == 3:  # core.DISCARD
        return discard_tile(rules, facts, pos, seat, move)
    hands = pos.hands
    left = pos.left
    right = pos.right
    hand = hands[seat]
    entry = None
    if seat == pos.turn and left >= 0 and hand >> i & 1 and code >= 0:
        entry = PLACE[((i * 7 + left) * 7 + right) * 3 + code]
    if entry is not None:
        left, right, code, placed = entry
        if code == AT_LEFT:  # tuple + tuple: one copy, cheaper than unpacking into a new one
            line = piece(left, pos.left, seat) + pos.line
        else:
            line = pos.line + piece(pos.right, right, seat)
    else:
        facing = check_move(rules, facts, pos, seat, move)  # the opening, or an error
        left, right = core.open_with(i, facing)
        line = piece(left, right, seat)
        placed = DRAWN[left][right]
    hand &= ~(1 << i)
    as_list = list(hands)
    as_list[seat] = hand
    hands = tuple(as_list)  # ``as_list`` stays for ``next_seat``
    board = pos.board | 1 << i
    passes = pos.passes
    result = None
    events = [Event("played", (facts.number, seat, NAMES[i], END_NAMES[code], placed, left, right))]
    if not hand:
        result = deal_result(rules, facts, pos, "domi", seat, i, code, hands)
        turn = -1
    elif facts.draws:
        hands, turn, passes, more = draw_to_turn(
            facts, pos, hands, board, left, right, seat, passes
        )
        events.extend(more)
        if turn < 0:
            result = deal_result(rules, facts, pos, "kandang", seat, i, code, hands)
    else:
        after = facts.order[seat]
        turn = next_seat(as_list, FIT[left][right], after, facts.discard)
        if turn < 0:  # nobody can place: ``seat`` has locked the board (Kandang)
            result = deal_result(rules, facts, pos, "kandang", seat, i, code, hands)
        elif turn != after[0]:
            passes = _passes(facts.number, after, turn, left, right, passes, events)
    return (
        Position(
            hands, line, left, right, board, turn, passes, pos.discards, pos.discard_log, result
        ),
        events,
    )


def draw_to_turn(
    facts: DealFacts,
    pos: Position,
    hands: tuple[int, ...],
    board: int,
    left: int,
    right: int,
    seat: int,
    passes: tuple[tuple[int, int, int], ...],
) -> tuple[tuple[int, ...], int, tuple[tuple[int, int, int], ...], list[Event]]:
    """Draw rules, after ``seat`` moved: stuck seats draw (``core.next_drawing``) or pass.

    Returns the hands, the seat to move (-1: locked, the boneyard empty), the passes and the
    ``drew``/``passed`` events in the order they happen. ``pos`` is the position before the
    move (for the boneyard: the board and hands then, which hold no boneyard tile either).
    """
    pile = stock(facts, pos._replace(hands=hands, board=board))
    as_list = list(hands)
    draws: list[int] = []
    after = facts.order[seat]
    turn = core.next_drawing(as_list, FIT[left][right], after, pile, draws)
    left_in = len(pile) + len(draws)
    events: list[Event] = []
    for d in draws:
        left_in -= 1
        events.append(Event("drew", (facts.number, d >> 5, NAMES[d & 31], left_in)))
    more: list[tuple[int, int, int]] = []
    if turn >= 0:  # the seats before it pass, each after its draws (a lock has no passes)
        k = 0
        out: list[Event] = []
        for s in after:
            while k < len(draws) and draws[k] >> 5 == s:
                out.append(events[k])
                k += 1
            if s == turn:
                break
            more.append((s, left, right))
            out.append(Event("passed", (facts.number, s, left, right)))
        events = out
    return tuple(as_list), turn, (*passes, *more), events


def _passes(
    number: int,
    after: tuple[int, ...],
    turn: int,
    left: int,
    right: int,
    passes: tuple[tuple[int, int, int], ...],
    events: list[Event],
) -> tuple[tuple[int, int, int], ...]:
    """The seats in ``after`` before ``turn`` pass on ends ``left|right``: their ``passed``
    events are appended to ``events``; returns ``passes`` with theirs added."""
    more = list(passes)
    for p in after:
        if p == turn:
            break
        more.append((p, left, right))
        events.append(Event("passed", (number, p, left, right)))
    return tuple(more)


def discard_tile(
    rules: RuleSet, facts: DealFacts, pos: Position, seat: int, move: Move
) -> tuple[Position, list[Event]]:
    """A seat that cannot place lays a tile face down (Klasik). It counts against the seat.

    The deal ends when that was its last tile. Otherwise the next seat moves: a discard takes
    no tile off the open ends' numbers, so some seat can still place (else the deal would
    have ended blocked before this turn).
    """
    i = check_discard(rules, pos, seat, move)
    left, right = pos.left, pos.right
    events = [Event("discarded", (facts.number, seat, NAMES[i], left, right))]
    bit = 1 << i
    hands = list(pos.hands)
    hands[seat] &= ~bit
    discards = list(pos.discards)
    discards[seat] |= bit
    after = pos._replace(
        hands=tuple(hands),
        discards=tuple(discards),
        discard_log=(*pos.discard_log, (seat, left, right)),
    )
    if not hands[seat]:
        result = deal_result(rules, facts, pos, "discard", seat, i, core.DISCARD, after.hands)
        return after._replace(turn=-1, result=result), events
    turn = core.next_seat(hands, FIT[left][right], facts.order[seat], facts.discard)
    assert turn >= 0, "a discard cannot block the line"
    return after._replace(turn=turn), events


def open_turn(rules: RuleSet, facts: DealFacts, pos: Position) -> tuple[Position, list[Event]]:
    """With a face-up start tile: the opener moves first, or (pass rules) the next seat that can.

    RuleSet validation keeps at most five tiles set aside, so some seat always holds a tile
    that fits the start tile (each number is on six other tiles).
    """
    if pos.left < 0:
        return pos, []
    before = facts.order[facts.opener][-2] if len(pos.hands) > 1 else facts.opener
    if facts.draws:
        hands, turn, passes, events = draw_to_turn(
            facts, pos, pos.hands, pos.board, pos.left, pos.right, before, ()
        )
        assert turn >= 0, "some seat can always play on the start tile"
        return pos._replace(hands=hands, turn=turn, passes=passes), events
    after = facts.order[before]
    turn = core.next_seat(list(pos.hands), FIT[pos.left][pos.right], after, facts.discard)
    assert turn >= 0, "some seat can always play on the start tile"
    passed: list[Event] = []
    passes = _passes(facts.number, after, turn, pos.left, pos.right, (), passed)
    return pos._replace(turn=turn, passes=passes), passed
