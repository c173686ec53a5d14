"""Standings from stored results: the one ranking of a tournament (or of a knockout pool), and a
team battle's ranking of clubs from it (``club_standings``).

Each entrant's points are the sum of ``formats.table_points`` over the tables they sat at, plus
``formats.BYE_POINTS`` per bye; the order is ``formats.TIEBREAKS``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from app.presets import Mode
from app.tournaments.formats import (
    BYE_POINTS,
    TABLE_ENTRANTS,
    Bye,
    TableResult,
    TournamentError,
    check_mode,
    table_points,
)


@dataclass(frozen=True)
class Standing:
    rank: int  # 1 for the leader; every rank distinct (the last tie-break is the entrant id)
    entrant: int
    points: Fraction
    deal_points: int
    buchholz: Fraction
    played: int  # tables sat at
    byes: int

    def tiebreaks(self) -> dict[str, Any]:
        """The tie-breaks after the points, in their order, as a client is shown them."""
        return {"deal_points": self.deal_points, "buchholz": self.buchholz}


def standings(
    mode: Mode,
    entrants: Iterable[int],
    results: Iterable[TableResult],
    byes: Iterable[Bye] = (),
) -> tuple[Standing, ...]:
    """Rank ``entrants`` (everyone who entered, withdrawn ones included) by the results so far.

    Refuses (``TournamentError``) a table of the wrong size, a result or bye of someone who did
    not enter, and an entrant seated twice in one round.
    """
    size = TABLE_ENTRANTS[check_mode(mode)]
    ids = list(entrants)
    known = set(ids)
    if len(known) != len(ids):
        raise TournamentError("an entrant is listed twice", field="entrants")
    results = list(results)
    byes = list(byes)
    seen: set[tuple[int, int]] = set()

    def sit(round_: int, entrant: int) -> None:
        if entrant not in known:
            raise TournamentError(f"entrant {entrant} did not enter", field="entrants")
        if (round_, entrant) in seen:
            raise TournamentError(f"entrant {entrant} is seated twice in round {round_}")
        seen.add((round_, entrant))

    points: dict[int, Fraction] = dict.fromkeys(ids, Fraction(0))
    deal_points: dict[int, int] = dict.fromkeys(ids, 0)
    opponents: dict[int, list[int]] = defaultdict(list)
    played: dict[int, int] = dict.fromkeys(ids, 0)
    bye_count: dict[int, int] = dict.fromkeys(ids, 0)
    for result in results:
        table = result.table
        if len(table.entrants) != size:
            raise TournamentError(f"a {mode} table seats {size} entrants", field="entrants")
        awards = table_points(mode, result.places)
        for entrant, award, dealt in zip(table.entrants, awards, result.deal_points, strict=True):
            sit(table.round, entrant)
            points[entrant] += award
            deal_points[entrant] += dealt
            played[entrant] += 1
            opponents[entrant].extend(e for e in table.entrants if e != entrant)
    for bye in byes:
        sit(bye.round, bye.entrant)
        points[bye.entrant] += BYE_POINTS[mode]
        bye_count[bye.entrant] += 1
    buchholz = {e: sum((points[o] for o in opponents[e]), Fraction(0)) for e in ids}
    order = sorted(ids, key=lambda e: (-points[e], -deal_points[e], -buchholz[e], e))
    return tuple(
        Standing(rank, e, points[e], deal_points[e], buchholz[e], played[e], bye_count[e])
        for rank, e in enumerate(order, start=1)
    )


# --- a team battle: clubs ranked by their best entrants -----------------------------------------


@dataclass(frozen=True)
class ClubStanding:
    rank: int  # 1 for the leading club; every rank distinct (the last tie-break: listed order)
    club: int
    points: Fraction  # the sum of ``counted``'s points
    counted: tuple[int, ...]  # the club's best ``best`` entrants, in the standings' order


def club_standings(
    ranked: Iterable[Standing], clubs: Mapping[int, int], listed: Sequence[int], best: int
) -> tuple[ClubStanding, ...]:
    """Rank the clubs of a team battle (``listed``, in the organizer's order) from the
    entrants' standings: a club's points are the sum of the points of its ``best`` best entrants
    (``clubs``: entrant -> the club it plays for; a club with fewer counts them all). Equal
    points: the club whose best entrant ranks higher, then the club listed first.

    Refuses (``TournamentError``) an entrant's club that is not listed, and ``best`` below 1.
    """
    if best < 1:
        raise TournamentError("best is at least 1", field="best")
    order = {club: position for position, club in enumerate(listed)}
    if len(order) != len(listed):
        raise TournamentError("a club is listed twice", field="clubs")
    counted: dict[int, list[Standing]] = {club: [] for club in listed}
    for standing in sorted(ranked, key=lambda s: s.rank):
        club = clubs.get(standing.entrant)
        if club is None:
            continue  # an entrant who plays for no club counts for none
        if club not in counted:
            raise TournamentError(f"club {club} is not in the battle", field="clubs")
        if len(counted[club]) < best:
            counted[club].append(standing)
    points = {club: sum((s.points for s in found), Fraction(0)) for club, found in counted.items()}

    def first(club: int) -> int:
        found = counted[club]
        return found[0].rank if found else 1 << 31

    ordered = sorted(listed, key=lambda c: (-points[c], first(c), order[c]))
    return tuple(
        ClubStanding(rank, club, points[club], tuple(s.entrant for s in counted[club]))
        for rank, club in enumerate(ordered, start=1)
    )
