"""A Swiss round: everyone still in is seated by their points so far (docs/TOURNAMENTS.md).

``pair_round`` orders the entrants (round one: by rating, or shuffled by a seeded RNG; later:
by the standings), gives the fewest possible byes (``len % TABLE_ENTRANTS``: the fewest byes so
far first, then the lowest in the order), and seats the rest with ``grouping.seat_tables``: no
two entrants who already met sit together while that can be avoided, closest scores together.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from app.presets import Mode
from app.tournaments.formats import (
    ROUNDS_RANGE,
    TABLE_ENTRANTS,
    Bye,
    Entrant,
    Format,
    Pairing,
    Table,
    TableResult,
    TournamentError,
    check_mode,
)
from app.tournaments.grouping import choose_byes, meetings, seat_tables
from app.tournaments.standings import standings


def late_join_allowed(format: Format, *, rounds: int, started: int) -> bool:
    """Whether an entry is taken when ``started`` of ``rounds`` rounds have begun: always before
    the first; after it, only in a Swiss, and only while fewer than half the rounds have begun."""
    if started < 0 or started > rounds:
        raise TournamentError(f"{started} of {rounds} rounds cannot have started")
    if started == 0:
        return True
    return format == "swiss" and 2 * started < rounds


def bye_count(mode: Mode, entrants: int) -> int:
    """The fewest byes that let ``entrants`` fill whole tables."""
    return entrants % TABLE_ENTRANTS[check_mode(mode)]


def pair_round(
    mode: Mode,
    number: int,
    entrants: Sequence[Entrant],
    results: Sequence[TableResult] = (),
    byes: Sequence[Bye] = (),
    *,
    rng: random.Random | None = None,
) -> Pairing:
    """Round ``number``'s tables and byes for ``entrants`` (those still in) given the results
    and byes of every earlier round (withdrawn entrants' too).

    The first round orders by rating (highest first, then entrant id) unless ``rng`` is given,
    which shuffles instead; later rounds order by the standings.
    """
    size = TABLE_ENTRANTS[check_mode(mode)]
    if not ROUNDS_RANGE[0] <= number <= ROUNDS_RANGE[1]:
        raise TournamentError(f"round {number} is out of range", field="round")
    ids = [e.id for e in entrants]
    if len(set(ids)) != len(ids):
        raise TournamentError("an entrant is listed twice", field="entrants")
    if len(ids) < size:
        raise TournamentError(f"a {mode} round needs at least {size} entrants", field="entrants")
    played = [r.table.round for r in results] + [b.round for b in byes]
    if any(r >= number for r in played):
        raise TournamentError(f"round {number} is already under way or played", field="round")
    if not played:
        if rng is not None:
            order = sorted(ids)
            rng.shuffle(order)
        else:
            order = [e.id for e in sorted(entrants, key=lambda e: (-e.rating, e.id))]
    else:
        everyone = set(ids)
        everyone.update(e for r in results for e in r.table.entrants)
        everyone.update(b.entrant for b in byes)
        still_in = set(ids)
        ranked = standings(mode, sorted(everyone), results, byes)
        order = [s.entrant for s in ranked if s.entrant in still_in]
    resting = choose_byes(order, bye_count(mode, len(order)), Counter(b.entrant for b in byes))
    seated = [e for e in order if e not in resting]
    groups = seat_tables(seated, size, meetings(r.table for r in results))
    return Pairing(
        number,
        tuple(Table(number, n, group) for n, group in enumerate(groups, start=1)),
        tuple(Bye(number, e) for e in resting),
    )
