"""The knockout (the PORDI format): pools drawn by rating, then a single-elimination bracket.

See docs/TOURNAMENTS.md, "Knockout". In short:

* ``draw_pools``: ``ceil(n / POOL_SIZE)`` pools (fewer if a pool would be smaller than
  ``MIN_POOL``), filled by rating in a snake (1 2 3 3 2 1 …), so their sizes differ by one at most.
  Entrants that fit one table (four players, two pairs) skip the pools: they are the final.
* ``pool_schedule``: Ganda pools play a round robin (circle method): every pair meets every other
  exactly once, in ``n - 1`` rounds (``n`` rounds with one bye each when ``n`` is odd: a pool of
  three). A Tunggal pool plays ``TUNGGAL_POOL_ROUNDS`` rounds; a pool of eight plays
  ``EIGHT_PLAYER_ROUNDS`` (every two players meet at least once, which no other three rounds of
  two tables achieve), any other size the Swiss search with all scores equal (byes rotating,
  fewest repeat meetings first).
* ``bracket_seeds``: the top two of every pool go on (a single pool sends a full final table);
  pool winners are seeds 1..P in pool order, runners-up seeds P+1..2P.
* ``bracket_round``: the round's entrants in seed order; the top seeds get byes so that the round
  after has ``k·2^m`` entrants (``k`` a table's entrants); the rest sit at tables in a snake (the
  best seed with the worst). The bracket is re-seeded every round from the original seeds.
* ``advance``: the top half of every table (Ganda: the winning pair; Tunggal: the top two) and the
  byes go on, in seed order, until a round is one table: the final.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.presets import Mode
from app.tournaments.formats import (
    TABLE_ENTRANTS,
    Bye,
    Entrant,
    Pairing,
    Table,
    TableResult,
    TournamentError,
    check_mode,
)
from app.tournaments.grouping import choose_byes, meetings, seat_tables
from app.tournaments.standings import Standing, standings

POOL_SIZE: dict[Mode, int] = {"tunggal": 8, "ganda": 4}
MIN_POOL: dict[Mode, int] = {"tunggal": 4, "ganda": 3}
QUALIFIERS_PER_POOL = 2
TUNGGAL_POOL_ROUNDS = 3
# A Tunggal pool of eight: players 0..7 (the pool in rating order) read as vectors of GF(2)^3.
# Each round splits them by one linear form (bit 0; bit 1; bit 0 xor bit 1): three planes of
# AG(3, 2) on one line of the dual Fano plane. Players x and y meet in the rounds whose form
# vanishes on x xor y: every pair once, but x and x xor 4 (0-4, 1-5, 2-6, 3-7) all three times.
EIGHT_PLAYER_ROUNDS: tuple[tuple[tuple[int, ...], ...], ...] = (
    ((0, 2, 4, 6), (1, 3, 5, 7)),
    ((0, 1, 4, 5), (2, 3, 6, 7)),
    ((0, 3, 4, 7), (1, 2, 5, 6)),
)


@dataclass(frozen=True)
class Pool:
    name: str  # "A", "B", … "Z", "AA", …
    members: tuple[int, ...]  # in rating order


@dataclass(frozen=True)
class PoolRound:
    """One round of one pool: its tables (entrants in seat order) and who sits out."""

    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...]


def pool_name(index: int) -> str:
    name = ""
    index += 1
    while index:
        index, letter = divmod(index - 1, 26)
        name = chr(ord("A") + letter) + name
    return name


def by_rating(entrants: Sequence[Entrant]) -> list[int]:
    ids = [e.id for e in entrants]
    if len(set(ids)) != len(ids):
        raise TournamentError("an entrant is listed twice", field="entrants")
    return [e.id for e in sorted(entrants, key=lambda e: (-e.rating, e.id))]


def draw_pools(mode: Mode, entrants: Sequence[Entrant]) -> tuple[Pool, ...]:
    """The pools, or none when the entrants fill just the final table."""
    size = TABLE_ENTRANTS[check_mode(mode)]
    order = by_rating(entrants)
    n = len(order)
    if n < size:
        raise TournamentError(f"a {mode} knockout needs at least {size} entrants")
    if n == size:
        return ()
    count = -(-n // POOL_SIZE[mode])
    while count > 1 and n // count < MIN_POOL[mode]:
        count -= 1
    members: list[list[int]] = [[] for _ in range(count)]
    for i, entrant in enumerate(order):
        row, col = divmod(i, count)
        members[col if row % 2 == 0 else count - 1 - col].append(entrant)
    return tuple(Pool(pool_name(i), tuple(m)) for i, m in enumerate(members))


def pool_schedule(mode: Mode, pool: Pool) -> tuple[PoolRound, ...]:
    """Every round of ``pool``, fixed before the first is played."""
    members = list(pool.members)
    if check_mode(mode) == "ganda":
        return _round_robin(members)
    if len(members) == 8:
        return tuple(
            PoolRound(tuple(tuple(members[i] for i in t) for t in tables), ())
            for tables in EIGHT_PLAYER_ROUNDS
        )
    if len(members) < TABLE_ENTRANTS["tunggal"]:
        raise TournamentError("a Tunggal pool needs at least four players")
    rounds: list[PoolRound] = []
    byes_had: Counter[int] = Counter()
    for _ in range(TUNGGAL_POOL_ROUNDS):
        met = meetings(Table(0, 0, t) for r in rounds for t in r.tables)
        resting = choose_byes(members, len(members) % TABLE_ENTRANTS["tunggal"], byes_had)
        byes_had.update(resting)
        seated = [e for e in members if e not in resting]
        tables = seat_tables(seated, TABLE_ENTRANTS["tunggal"], met)
        rounds.append(PoolRound(tuple(tables), tuple(resting)))
    return tuple(rounds)


def _round_robin(members: list[int]) -> tuple[PoolRound, ...]:
    """The circle method: the first entrant stays, the others turn one place a round."""
    circle: list[int | None] = [*members, None] if len(members) % 2 else list(members)
    n = len(circle)
    rounds = []
    for _ in range(n - 1):
        tables: list[tuple[int, ...]] = []
        byes: list[int] = []
        for i in range(n // 2):
            a, b = circle[i], circle[n - 1 - i]
            if a is None or b is None:
                byes.extend(e for e in (a, b) if e is not None)
            else:
                tables.append((a, b))
        rounds.append(PoolRound(tuple(tables), tuple(byes)))
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return tuple(rounds)


def pool_stage(mode: Mode, pools: Sequence[Pool], *, first_round: int = 1) -> tuple[Pairing, ...]:
    """The pool stage's rounds: round ``first_round + i`` holds every pool's round ``i``, tables
    numbered across the pools in pool order."""
    schedules = [pool_schedule(mode, pool) for pool in pools]
    stage = []
    for i in range(max((len(s) for s in schedules), default=0)):
        number = first_round + i
        rounds = [s[i] for s in schedules if i < len(s)]
        groups = [t for r in rounds for t in r.tables]
        stage.append(
            Pairing(
                number,
                tuple(Table(number, n, g) for n, g in enumerate(groups, start=1)),
                tuple(Bye(number, e) for r in rounds for e in r.byes),
            )
        )
    return tuple(stage)


def pool_standings(
    mode: Mode, pool: Pool, results: Sequence[TableResult], byes: Sequence[Bye] = ()
) -> tuple[Standing, ...]:
    """A pool's standings from the pool stage's results (other pools' are left out)."""
    members = set(pool.members)
    return standings(
        mode,
        pool.members,
        [r for r in results if members.issuperset(r.table.entrants)],
        [b for b in byes if b.entrant in members],
    )


def bracket_seeds(
    mode: Mode,
    entrants: Sequence[Entrant],
    pools: Sequence[Pool],
    results: Sequence[TableResult] = (),
    byes: Sequence[Bye] = (),
) -> tuple[int, ...]:
    """Who goes on to the bracket, best seed first: every pool's winner in pool order, then every
    pool's runner-up; with one pool, its top ``TABLE_ENTRANTS``; without pools, the entrants by
    rating."""
    if not pools:
        return tuple(by_rating(entrants))
    per_pool = TABLE_ENTRANTS[check_mode(mode)] if len(pools) == 1 else QUALIFIERS_PER_POOL
    ranked = [pool_standings(mode, pool, results, byes) for pool in pools]
    return tuple(pool[rank].entrant for rank in range(per_pool) for pool in ranked)


def is_final(mode: Mode, seeds: Sequence[int]) -> bool:
    return len(seeds) == TABLE_ENTRANTS[check_mode(mode)]


def bracket_round(mode: Mode, number: int, seeds: Sequence[int]) -> Pairing:
    """A bracket round for ``seeds`` (the entrants still in, best seed first)."""
    size = TABLE_ENTRANTS[check_mode(mode)]
    if len(set(seeds)) != len(seeds):
        raise TournamentError("an entrant is listed twice", field="entrants")
    goal = size
    while goal < len(seeds):
        goal *= 2
    resting = list(seeds[: goal - len(seeds)])
    playing = list(seeds[goal - len(seeds) :])
    if len(seeds) < size or len(playing) % size:
        raise TournamentError(f"{len(seeds)} entrants cannot make a {mode} bracket round")
    count = len(playing) // size
    groups: list[list[int]] = [[] for _ in range(count)]
    for i, entrant in enumerate(playing):
        row, col = divmod(i, count)
        groups[col if row % 2 == 0 else count - 1 - col].append(entrant)
    return Pairing(
        number,
        tuple(Table(number, n, tuple(g)) for n, g in enumerate(groups, start=1)),
        tuple(Bye(number, e) for e in resting),
    )


def table_order(result: TableResult, seed: Mapping[int, int]) -> list[int]:
    """A bracket table's entrants, best first: by place, then deal points, then the better seed
    (places tie only on equal set scores)."""
    rows = zip(result.table.entrants, result.places, result.deal_points, strict=True)
    return [e for e, _, _ in sorted(rows, key=lambda row: (row[1], -row[2], seed[row[0]]))]


def advance(
    mode: Mode, pairing: Pairing, results: Sequence[TableResult], seeds: Sequence[int]
) -> tuple[int, ...]:
    """Who goes on from a bracket round, in seed order: its byes and the top half of every table
    (after the final: its winning pair, or its top two players)."""
    size = TABLE_ENTRANTS[check_mode(mode)]
    seed = {e: i for i, e in enumerate(seeds)}
    if any(e not in seed for e in pairing.entrants()):
        raise TournamentError("the round seats someone who is not seeded", field="seeds")
    by_table = {(r.table.round, r.table.number): r for r in results}
    going = [bye.entrant for bye in pairing.byes]
    for table in pairing.tables:
        result = by_table.get((table.round, table.number))
        if result is None or result.table != table:
            raise TournamentError(f"table {table.number} of round {table.round} has no result")
        going.extend(table_order(result, seed)[: size // 2])
    return tuple(sorted(going, key=seed.__getitem__))
