"""The Gaple record: a whole set as text (docs/NOTATION.md), written, parsed and checked.

``write(record)`` gives the text, ``parse(text)`` reads it back (``parse(write(r)) == r``; a
record that does not follow the grammar raises ``BadRecord`` naming the line and column), and
``check(text)`` replays it through the engine: every move must be legal and every recorded
result the engine's. ``python -m engine.notation check FILE`` does that for a file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from engine.deal import Move
from engine.errors import EngineError
from engine.events import Event
from engine.match import new_match, play
from engine.replay import Source, fold, replay_match
from engine.rules import RuleSet
from engine.tiles import Tile

MAGIC: Final = "gaple-record 1"
_HEX64: Final = re.compile(r"[0-9a-f]{64}\Z")
_INT: Final = re.compile(r"-?[0-9]+\Z")
_TILE: Final = re.compile(r"[0-6]-[0-6]\Z")
ENDS: Final = ("left", "right", "discard")


class BadRecord(EngineError):
    """A record that does not follow the grammar, or does not replay as recorded."""

    code = "bad_record"

    def __init__(self, line: int, column: int, message: str) -> None:
        self.line, self.column = line, column
        super().__init__(None, f"line {line}, column {column}: {message}")


@dataclass(frozen=True)
class RecordedMove:
    seat: int
    tile: str  # canonical, low-high
    end: str | None  # "left", "right", "discard" or None


@dataclass(frozen=True)
class RecordedDeal:
    number: int
    source: Source  # a fair deal's secret (64 hex) or a seed
    moves: tuple[RecordedMove, ...]
    points: tuple[int, ...]


@dataclass(frozen=True)
class Record:
    rules: dict[str, Any]  # RuleSet.to_dict()
    seats: tuple[str, ...]  # a name per seat
    deals: tuple[RecordedDeal, ...]
    scores: tuple[int, ...] | None = field(default=None)  # the set's totals, once it ended


def record_of(
    rules: RuleSet, seats: Sequence[str], deals: Sequence[tuple[Source, Sequence[Move]]]
) -> Record:
    """The record of a set played from ``deals`` (each deal's secret or seed and its moves)."""
    state, events = replay_match(rules, list(deals))
    return _from_events(rules, seats, events, state.set_result)


def _from_events(
    rules: RuleSet, seats: Sequence[str], events: Sequence[Event], set_result: Any
) -> Record:
    out: list[RecordedDeal] = []
    source: Source = 0
    moves: list[RecordedMove] = []
    for e in events:
        d = e.data
        if e.kind == "deal_started":
            source = d["seed"] if d["seed"] is not None else ""
            moves = []
        elif e.kind == "played":
            moves.append(RecordedMove(d["seat"], d["tile"], d["end"]))
        elif e.kind == "discarded":
            moves.append(RecordedMove(d["seat"], d["tile"], "discard"))
        elif e.kind == "deal_ended":
            if source == "":
                source = d["secret"]
            out.append(RecordedDeal(d["deal_number"], source, tuple(moves), tuple(d["points"])))
    scores = tuple(set_result["scores"]) if set_result else None
    return Record(rules.to_dict(), tuple(seats), tuple(out), scores)


def _name(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def write(record: Record) -> str:
    """The record's text (docs/NOTATION.md)."""
    lines = [MAGIC, "rules " + json.dumps(record.rules, sort_keys=True, separators=(",", ":"))]
    lines += [f"seat {i} {_name(n)}" for i, n in enumerate(record.seats)]
    for deal in record.deals:
        kind = "secret" if isinstance(deal.source, str) else "seed"
        lines.append(f"deal {deal.number} {kind} {deal.source}")
        for m in deal.moves:
            lines.append(f"  {m.seat} {m.tile}" + (f" {m.end}" if m.end else ""))
        lines.append("points " + " ".join(str(p) for p in deal.points))
    if record.scores is not None:
        lines.append("set " + " ".join(str(p) for p in record.scores))
    return "\n".join(lines) + "\n"


def _ints(words: list[tuple[int, str]], line: int) -> tuple[int, ...]:
    for col, w in words:
        if not _INT.match(w):
            raise BadRecord(line, col, f"a number, not {w!r}")
    if not words:
        raise BadRecord(line, 1, "numbers expected")
    return tuple(int(w) for _, w in words)


def _words(text: str) -> list[tuple[int, str]]:
    return [(m.start() + 1, m.group()) for m in re.finditer(r"\S+", text)]


def parse(text: str) -> Record:
    """A record's text read back; ``BadRecord`` names the line and column of the first error."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0] != MAGIC:
        raise BadRecord(1, 1, f"a record starts with {MAGIC!r}")
    if len(lines) < 2 or not lines[1].startswith("rules "):
        raise BadRecord(2, 1, "the second line is 'rules' and the rules as JSON")
    try:
        rules = json.loads(lines[1][6:])
        RuleSet.from_dict(rules)
    except (ValueError, EngineError) as err:
        raise BadRecord(2, 7, f"bad rules: {err}") from None
    if not isinstance(rules, dict):
        raise BadRecord(2, 7, "the rules are a JSON object")
    seats: list[str] = []
    deals: list[RecordedDeal] = []
    scores: tuple[int, ...] | None = None
    current: tuple[int, Source] | None = None
    moves: list[RecordedMove] = []
    for k, raw in enumerate(lines[2:], start=3):
        words = _words(raw)
        if not words:
            raise BadRecord(k, 1, "an empty line")
        if scores is not None:
            raise BadRecord(k, 1, "nothing follows the 'set' line")
        col, head = words[0]
        if raw.startswith("  ") and current is not None:
            if len(words) not in (2, 3) or not _INT.match(head):
                raise BadRecord(k, col, "a move is: seat tile [left|right|discard]")
            tcol, tile = words[1]
            if not _TILE.match(tile):
                raise BadRecord(k, tcol, f"a tile is a-b with numbers 0-6, not {tile!r}")
            end = words[2][1] if len(words) == 3 else None
            if end is not None and end not in ENDS:
                raise BadRecord(k, words[2][0], f"an end is left, right or discard, not {end!r}")
            moves.append(RecordedMove(int(head), str(Tile.parse(tile)), end))
        elif head == "seat" and not deals and current is None:
            if len(words) < 3 or words[1][1] != str(len(seats)):
                raise BadRecord(k, col, f"expected 'seat {len(seats)} \"name\"'")
            start = words[2][0] - 1
            try:
                name = json.loads(raw[start:])
            except ValueError:
                raise BadRecord(k, start + 1, "a seat's name is a JSON string") from None
            if not isinstance(name, str):
                raise BadRecord(k, start + 1, "a seat's name is a JSON string")
            seats.append(name)
        elif head == "deal" and current is None:
            if len(words) != 4 or words[2][1] not in ("seed", "secret"):
                raise BadRecord(k, col, "a deal is: deal N seed S | deal N secret HEX")
            number = _ints([words[1]], k)[0]
            if number != len(deals) + 1:
                raise BadRecord(k, words[1][0], f"deal {len(deals) + 1} expected")
            vcol, value = words[3]
            if words[2][1] == "secret":
                if not _HEX64.match(value):
                    raise BadRecord(k, vcol, "a secret is 64 lowercase hex digits")
                current = (number, value)
            else:
                current = (number, _ints([words[3]], k)[0])
            moves = []
        elif head == "points" and current is not None:
            deals.append(RecordedDeal(current[0], current[1], tuple(moves), _ints(words[1:], k)))
            current = None
        elif head == "set" and current is None:
            scores = _ints(words[1:], k)
        else:
            raise BadRecord(k, col, f"unexpected {head!r}")
    if current is not None:
        raise BadRecord(len(lines) + 1, 1, f"deal {current[0]} has no 'points' line")
    return Record(rules, tuple(seats), tuple(deals), scores)


def check(text: str) -> Record:
    """Parse a record and replay it through the rules: every move legal, by the seat recorded,
    every deal's points and the set's totals as recorded. Raises ``BadRecord`` (the line of the
    first move or result that does not replay) or returns the record.

    One pass: each move is played once, on the state the move before it left (linear in the
    record's length)."""
    record = parse(text)
    rules = RuleSet.from_dict(record.rules)
    lines = text.split("\n")
    starts: list[int] = []  # deal index -> its 'deal' line
    where: list[list[int]] = []  # deal index -> the line of each of its moves
    results: list[int] = []  # deal index -> its 'points' line
    for k, raw in enumerate(lines, start=1):
        if raw.startswith("deal "):
            starts.append(k)
            where.append([])
        elif raw.startswith("  "):
            where[-1].append(k)
        elif raw.startswith("points "):
            results.append(k)
    state = new_match(rules)
    for i, deal in enumerate(record.deals):
        try:
            state, _ = fold(rules, deal.source, (), state)
        except EngineError as err:
            raise BadRecord(starts[i], 1, str(err)) from None
        for j, mv in enumerate(deal.moves):
            if state.turn is None:
                raise BadRecord(where[i][j], 3, f"deal {deal.number} is over before this move")
            if state.turn != mv.seat:
                raise BadRecord(where[i][j], 3, f"seat {state.turn} is to move")
            try:
                state, _ = play(state, mv.seat, Move(Tile.parse(mv.tile), mv.end))
            except EngineError as err:
                raise BadRecord(where[i][j], 3, str(err)) from None
        if state.phase not in ("deal_over", "set_over") or state.last_result is None:
            raise BadRecord(results[i], 1, f"deal {deal.number} is not over")
        if tuple(state.last_result.points) != deal.points:
            raise BadRecord(results[i], 8, f"the points are {list(state.last_result.points)}")
    if record.scores is not None:
        final = state.set_result
        if final is None or tuple(final["scores"]) != record.scores:
            raise BadRecord(len(lines) - 1, 5, "the set's totals do not replay as recorded")
    return record


if __name__ == "__main__":  # python -m engine.notation check FILE
    import sys

    if len(sys.argv) != 3 or sys.argv[1] != "check":
        sys.exit("usage: python -m engine.notation check FILE")
    with open(sys.argv[2], encoding="utf-8") as f:
        try:
            checked = check(f.read())
        except BadRecord as err:
            sys.exit(f"{sys.argv[2]}: {err.message}")
    print(f"{sys.argv[2]}: {len(checked.deals)} deals, every move legal, every result right")
