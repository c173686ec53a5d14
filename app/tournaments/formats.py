"""The records of a tournament and its scoring, written once (docs/TOURNAMENTS.md).

An entrant is an entry's id: a player in Tunggal, a pair (who sit across from each other) in
Ganda. A table seats ``TABLE_ENTRANTS[mode]`` entrants; its result gives each one a *place*
(competition ranking: ``(1, 2, 2, 4)`` when the second and third tie) and *deal points* (the
points the entrant scored in the set's deals, oriented so that more is better). Tournament points
follow from the places alone: ``PLACE_POINTS[mode]`` by place, tied places sharing the average of
the awards they span. A bye is worth ``BYE_POINTS[mode]``, the average award of a table.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, get_args

from app.errors import GapleError
from app.presets import MODES, Mode

Format = Literal["swiss", "knockout"]
FORMATS: tuple[Format, ...] = get_args(Format)
# A tournament's life, and a paired round's (the store's check constraints use these too).
Status = Literal["registering", "running", "finished", "cancelled"]
STATUSES: tuple[Status, ...] = get_args(Status)
RoundStatus = Literal["paired", "playing", "finished"]
ROUND_STATUSES: tuple[RoundStatus, ...] = get_args(RoundStatus)
# Which stage a round belongs to: a Swiss's rounds are all "swiss"; a knockout's are its pools'
# ("pool") and then its bracket's ("bracket"; all of them when the entrants fill one table).
Stage = Literal["swiss", "pool", "bracket"]

# Entrants per table: four players, or two pairs (a pair holds two seats across from each other).
TABLE_ENTRANTS: dict[Mode, int] = {"tunggal": 4, "ganda": 2}
# The award of each place at a table: Tunggal 3 / 2 / 1 / 0 by the set's rank, Ganda 2 for the
# pair that wins the set and 0 for the other.
PLACE_POINTS: dict[Mode, tuple[int, ...]] = {"tunggal": (3, 2, 1, 0), "ganda": (2, 0)}
# A bye is worth an average result: the mean award of a table (Tunggal 6/4 = 3/2, Ganda 2/2 = 1).
BYE_POINTS: dict[Mode, Fraction] = {
    mode: Fraction(sum(awards), len(awards)) for mode, awards in PLACE_POINTS.items()
}
# The order of the standings: more points, then more deal points, then a higher Buchholz (the sum
# of the points of every opponent met at a table, once per meeting), then the lower entrant id
# (the earlier entry): the last key makes every rank distinct.
TIEBREAKS: tuple[str, ...] = ("points", "deal_points", "buchholz", "entrant")
ROUNDS_RANGE = (1, 15)  # the rounds an organizer may choose for a Swiss
NAME_LENGTH = (3, 60)  # a tournament's name, in characters after trimming
# The most entrants an organizer may allow (players in Tunggal, pairs in Ganda); the fewest it
# may ask for is one table's worth, TABLE_ENTRANTS.
ENTRANTS_RANGE = (4, 1024)
# What a new tournament's form starts from (the client reads these from GET /api/presets).
DEFAULT_ROUNDS = 5
DEFAULT_MAX_ENTRANTS = 64


class TournamentError(GapleError):
    """Input the tournament logic refuses: nothing was computed from it."""

    code = "invalid"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(None, message, field=field)


@dataclass(frozen=True)
class Entrant:
    """An entry: its id, and the rating that seeds it (a pair's: its players' mean)."""

    id: int
    rating: float = 0.0


@dataclass(frozen=True)
class Table:
    """One table of a round: its entrants in seat order (Ganda: pair A, then pair B)."""

    round: int
    number: int
    entrants: tuple[int, ...]


@dataclass(frozen=True)
class Bye:
    """An entrant who sits a round out, scoring ``BYE_POINTS``."""

    round: int
    entrant: int


@dataclass(frozen=True)
class Pairing:
    """Everything of one round: its tables and its byes."""

    round: int
    tables: tuple[Table, ...]
    byes: tuple[Bye, ...]

    def entrants(self) -> tuple[int, ...]:
        """Everyone the round seats or gives a bye, tables first."""
        seated = [e for table in self.tables for e in table.entrants]
        return (*seated, *(bye.entrant for bye in self.byes))


@dataclass(frozen=True)
class TableResult:
    """The end of a table's set: each entrant's place and deal points, in the table's order."""

    table: Table
    places: tuple[int, ...]
    deal_points: tuple[int, ...]

    def __post_init__(self) -> None:
        size = len(self.table.entrants)
        if len(set(self.table.entrants)) != size:
            raise TournamentError("an entrant sits twice at one table", field="entrants")
        if len(self.places) != size or len(self.deal_points) != size:
            raise TournamentError("a result needs one place and one score per entrant")
        check_places(self.places)


def check_places(places: Sequence[int]) -> None:
    """Refuse anything but a competition ranking: each place is 1 + the number of better ones."""
    for place in places:
        if place != 1 + sum(other < place for other in places):
            raise TournamentError(f"places {tuple(places)} are not a ranking", field="places")


def check_mode(mode: str) -> Mode:
    if mode not in MODES:
        raise TournamentError(f"mode must be one of {', '.join(MODES)}", field="mode")
    return mode


def table_points(mode: Mode, places: Sequence[int]) -> tuple[Fraction, ...]:
    """The tournament points of each place at a table of ``mode``.

    Entrants sharing place ``p`` with ``c - 1`` others hold the awards of places ``p .. p+c-1``
    and each get their average: Tunggal ``(1, 2, 2, 4)`` scores 3, 3/2, 3/2, 0.
    """
    awards = PLACE_POINTS[check_mode(mode)]
    if len(places) != len(awards):
        raise TournamentError(f"a {mode} table has {len(awards)} entrants", field="places")
    check_places(places)
    points = []
    for place in places:
        shared = awards[place - 1 : place - 1 + places.count(place)]
        points.append(Fraction(sum(shared), len(shared)))
    return tuple(points)


def result_from_scores(
    table: Table,
    scores: Sequence[int],
    *,
    lowest_wins: bool = False,
    last: Collection[int] = (),
    forfeit: Collection[int] = (),
) -> TableResult:
    """A table's result from its set's final scores (one per entrant, in the table's order).

    The better score places higher (the lower one when ``lowest_wins``: a penalty set); entrants
    in ``last`` (who left the table) place below everyone else, among themselves by score, and
    entrants in ``forfeit`` (who withdrew from the tournament) below them too. Deal points are
    the scores, negated when the lowest wins, so that more is always better.
    """
    if len(scores) != len(table.entrants):
        raise TournamentError("a result needs one score per entrant", field="scores")
    if not set(last) | set(forfeit) <= set(table.entrants):
        raise TournamentError("only an entrant of the table can place last", field="last")
    deal_points = tuple(-s if lowest_wins else s for s in scores)
    keys = [(e in forfeit, e in last, -d) for e, d in zip(table.entrants, deal_points, strict=True)]
    places = tuple(1 + sum(other < key for other in keys) for key in keys)
    return TableResult(table, places, deal_points)
