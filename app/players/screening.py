"""Fair-play screening: pairs of players whose rated results say more than any single report
(docs/FAIRPLAY.md has the statistics, the threshold and the measured power).

Pure: rated sets in, flags out; no I/O, no clock, no randomness (``gaple fairplay`` loads the sets
and prints the flags; bench/fairplay.py plants misbehaviour and measures). For every two players
who met as opponents at least ``min_shared`` times:

* **shared**: did they meet more often than chance? Each of A's sets has ``k - 1`` other seats;
  drawn at random from everyone else's seat-slots, B is at one of them with probability
  ``p = 1 - (1 - n_B / (T - n_A)) ** (k - 1)``; the p-value is the binomial upper tail of the
  observed meetings over A's ``n_A`` sets (the smaller of the two directions).
* **lift** (feeding, soft play): did A win more often when B was at the table than when not?
  One-sided Fisher exact test on A's wins with and without B.
* **throw** (boosting): did B finish last more often when A was at the table than when not, while
  A finished above B in most of their meetings? One-sided Fisher exact test on B's last places.

Apart from the tests: two accounts seated at one rated set from one address (the seats' address
marks, a keyed hash: app/clients.py) are listed as ``shared_address``, with the sets, whatever the
counts: a household may share a connection, a moderator judges.

A pair is flagged ``feeder`` when *shared* and *lift* both pass, ``boosting`` when *shared* and
*throw* both pass and A finished above B in at least ``BEAT_SHARE`` of their meetings. "Pass" is
a p-value under ``alpha / m``, ``m`` the ordered pairs tested (Bonferroni): the chance that any
honest pair is flagged in one screening is at most ``alpha``. Flags are evidence for a moderator
(the sets, the counts, the p-values); nothing acts on them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations
from typing import Literal

ALPHA = 0.01  # family-wise: the chance that one screening flags any honest pair
MIN_SHARED = 8  # meetings below this are too few to say anything
BEAT_SHARE = 0.8  # boosting: A finished above B in at least this share of their meetings
EVIDENCE_SETS = 20  # set ids a flag lists (the latest)

FlagKind = Literal["feeder", "boosting"]


@dataclass(frozen=True)
class SeatResult:
    player_id: str
    team: int  # players of one team (Ganda partners) are never tested as a pair
    rank: int  # 1 = best; ties share a rank
    won: bool
    gain: float = 0.0  # what the set did to the player's rating (mu after - mu before)
    client_mark: str | None = None  # a keyed hash of the seat's address (None: not known)


@dataclass(frozen=True)
class RatedSet:
    set_id: int
    seats: tuple[SeatResult, ...]


@dataclass(frozen=True)
class Flag:
    """``player_id`` (A) gained from ``partner_id`` (B): the evidence, and what it says."""

    kind: FlagKind
    player_id: str
    partner_id: str
    shared: int  # sets where they met as opponents
    expected_shared: float  # how many meetings chance gives
    p_shared: float
    a_sets: int
    a_wins_with: int
    a_wins_without: int
    p_lift: float
    b_sets: int
    b_last_with: int
    b_last_without: int
    p_throw: float
    a_above_b: int  # of the shared sets
    gain_share: float  # of A's rating gains, the share won in sets with B
    threshold: float  # alpha / pairs tested: every p-value above had to be under it
    set_ids: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class SharedAddress:
    """Two accounts seated at rated sets from one address: how many sets, and the latest ones."""

    player_id: str
    partner_id: str
    sets: int
    set_ids: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Screening:
    sets: int
    players: int
    pairs_tested: int
    threshold: float
    flags: list[Flag]
    shared_address: list[SharedAddress] = field(default_factory=list)


# --- the tests -----------------------------------------------------------------------------------


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def binomial_upper(successes: int, trials: int, p: float) -> float:
    """P(X >= successes) for X ~ Binomial(trials, p)."""
    if successes <= 0:
        return 1.0
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    total = 0.0
    for k in range(successes, trials + 1):
        total += math.exp(_log_comb(trials, k) + k * math.log(p) + (trials - k) * math.log1p(-p))
    return min(1.0, total)


def fisher_greater(a: int, b: int, c: int, d: int) -> float:
    """One-sided Fisher exact test of the table [[a, b], [c, d]]: the chance, rows and columns
    fixed, of a top-left cell at least ``a`` (the first row's rate is higher than the second's)."""
    row, col, n = a + b, a + c, a + b + c + d
    if n == 0:
        return 1.0
    hi = min(row, col)
    denominator = _log_comb(n, col)
    total = 0.0
    for x in range(a, hi + 1):
        if col - x > n - row or col - x < 0:
            continue
        total += math.exp(_log_comb(row, x) + _log_comb(n - row, col - x) - denominator)
    return min(1.0, total)


# --- the screening -------------------------------------------------------------------------------


def screen(
    sets: Iterable[RatedSet], *, alpha: float = ALPHA, min_shared: int = MIN_SHARED
) -> Screening:
    """Flag the pairs whose results the module docstring describes."""
    played: dict[str, list[int]] = defaultdict(list)  # player -> indexes of their sets
    wins: dict[str, int] = defaultdict(int)
    lasts: dict[str, int] = defaultdict(int)
    gains: dict[str, float] = defaultdict(float)
    met: dict[tuple[str, str], list[int]] = defaultdict(list)  # sorted pair -> set indexes
    one_address: dict[tuple[str, str], list[int]] = defaultdict(list)  # sorted pair -> set ids
    stored = list(sets)
    seats_per_set = 0
    for index, rated in enumerate(stored):
        seats_per_set = max(seats_per_set, len(rated.seats))
        worst = max(s.rank for s in rated.seats)
        for seat in rated.seats:
            played[seat.player_id].append(index)
            wins[seat.player_id] += seat.won
            lasts[seat.player_id] += seat.rank == worst
            gains[seat.player_id] += max(seat.gain, 0.0)
        for one, other in combinations(rated.seats, 2):
            if one.player_id == other.player_id:
                continue
            if one.team != other.team:
                met[_key(one.player_id, other.player_id)].append(index)
            if one.client_mark is not None and one.client_mark == other.client_mark:
                one_address[_key(one.player_id, other.player_id)].append(rated.set_id)
    slots = sum(len(v) for v in played.values())
    tested = [(pair, shared) for pair, shared in met.items() if len(shared) >= min_shared]
    pairs_tested = 2 * len(tested)
    threshold = alpha / pairs_tested if pairs_tested else alpha
    flags: list[Flag] = []
    for (x, y), shared in tested:
        p_shared = min(
            _p_shared(len(shared), len(played[x]), len(played[y]), slots, seats_per_set),
            _p_shared(len(shared), len(played[y]), len(played[x]), slots, seats_per_set),
        )
        if p_shared >= threshold:
            continue
        for a, b in permutations((x, y)):
            n_a, n_b = len(played[a]), len(played[b])
            chance = round(n_a * _p_seat(n_a, n_b, slots, seats_per_set), 2)
            tally = _Tally(played, wins, lasts, gains)
            flag = _judge(stored, a, b, shared, (chance, p_shared), threshold, tally)
            if flag is not None:
                flags.append(flag)
    flags.sort(key=lambda f: (min(f.p_lift, f.p_throw), f.player_id, f.partner_id))
    households = [
        SharedAddress(player_id=a, partner_id=b, sets=len(ids), set_ids=ids[-EVIDENCE_SETS:])
        for (a, b), ids in sorted(one_address.items(), key=lambda item: -len(item[1]))
    ]
    return Screening(
        sets=len(stored),
        players=len(played),
        pairs_tested=pairs_tested,
        threshold=threshold,
        flags=flags,
        shared_address=households,
    )


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def _p_seat(n_a: int, n_b: int, slots: int, k: int) -> float:
    others = slots - n_a
    if others <= 0 or k < 2:
        return 0.0
    return 1.0 - (1.0 - min(1.0, n_b / others)) ** (k - 1)


def _p_shared(shared: int, n_a: int, n_b: int, slots: int, k: int) -> float:
    return binomial_upper(shared, n_a, _p_seat(n_a, n_b, slots, k))


@dataclass(frozen=True)
class _Tally:
    played: dict[str, list[int]]
    wins: dict[str, int]
    lasts: dict[str, int]
    gains: dict[str, float]


def _judge(
    stored: Sequence[RatedSet],
    a: str,
    b: str,
    shared: list[int],
    chance: tuple[float, float],
    threshold: float,
    tally: _Tally,
) -> Flag | None:
    """Did ``a`` gain from ``b``? The flag, or None. ``chance``: the meetings chance gives, and
    the p-value of as many as they had."""
    played, wins, lasts, gains = tally.played, tally.wins, tally.lasts, tally.gains
    a_with = b_last = above = 0
    gain_with = 0.0
    for index in shared:
        seats = {s.player_id: s for s in stored[index].seats}
        worst = max(s.rank for s in stored[index].seats)
        a_seat, b_seat = seats[a], seats[b]
        a_with += a_seat.won
        b_last += b_seat.rank == worst
        above += a_seat.rank < b_seat.rank
        gain_with += max(a_seat.gain, 0.0)
    s = len(shared)
    n_a, n_b = len(played[a]), len(played[b])
    a_without = wins[a] - a_with
    b_last_without = lasts[b] - b_last
    p_lift = fisher_greater(a_with, s - a_with, a_without, n_a - s - a_without)
    p_throw = fisher_greater(b_last, s - b_last, b_last_without, n_b - s - b_last_without)
    kind: FlagKind | None = None
    if p_lift < threshold:
        kind = "feeder"
    elif p_throw < threshold and above >= BEAT_SHARE * s:
        kind = "boosting"
    if kind is None:
        return None
    return Flag(
        kind=kind,
        player_id=a,
        partner_id=b,
        shared=s,
        expected_shared=chance[0],
        p_shared=chance[1],
        a_sets=n_a,
        a_wins_with=a_with,
        a_wins_without=a_without,
        p_lift=p_lift,
        b_sets=n_b,
        b_last_with=b_last,
        b_last_without=b_last_without,
        p_throw=p_throw,
        a_above_b=above,
        gain_share=gain_with / gains[a] if gains[a] > 0 else 0.0,
        threshold=threshold,
        set_ids=[stored[i].set_id for i in shared][-EVIDENCE_SETS:],
    )
