"""Ratings: OpenSkill's Plackett-Luce model, one rating per player per mode.

A set counts when its room is rated and every seat had a human when it started. Tunggal is an
N-way ranking by the final scores; Ganda a two-team result. A player whose seat went to a bot
during the set ranks last (in Ganda: their team does). docs/API.md shows the formula.

The three hooks run inside the store's own transactions (app/store/games.py), so a set's
lineup, its result and the rating changes it caused commit together with the move that caused
them: ``record_lineups`` when a set is created, ``mark_left`` when a seat goes to a bot,
``rate_set`` when the set's result is booked. They use SQLAlchemy Core on whatever connection
or session they are given.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import Table, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.sql.dml import Insert

import engine
from app.store.models import RATED_MODES, Base

log = logging.getLogger("gaple.ratings")

MODEL = PlackettLuce()  # openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300

# The displayed rating: the conservative ordinal (mu - 3 sigma, about 0 for a new player) on an
# Elo-like scale. 50 points per unit of mu puts one beta (25/6) at about 200 points, the gap
# that wins about three games in four in Elo, and a new player at 1500.
DISPLAY_BASE = 1500
DISPLAY_SCALE = 50
MIN_LEADERBOARD_SETS = 5

SET_PLAYERS = Base.metadata.tables["set_players"]
RATINGS = Base.metadata.tables["ratings"]
CHANGES = Base.metadata.tables["rating_changes"]
SETS = Base.metadata.tables["game_sets"]
ROOMS = Base.metadata.tables["rooms"]
SEATS = Base.metadata.tables["seats"]

Executor = AsyncConnection | AsyncSession


def ordinal(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def displayed(mu: float, sigma: float) -> int:
    return round(DISPLAY_BASE + DISPLAY_SCALE * ordinal(mu, sigma))


def is_rated_room(settings: Mapping[str, Any]) -> bool:
    return bool(settings.get("rated", False))


# --- the result of a set, as ranks (pure) -------------------------------------------------------


def seat_ranks(rules: engine.RuleSet, scores: Sequence[int], left: set[int]) -> list[int]:
    """Each seat's rank, 1 = best, ties sharing a rank (1, 2, 2, 4). Seats in ``left`` (their
    human went and a bot took over) share the last place; in Ganda a team ranks by its shared
    score, and last if one of its players left."""
    lower_wins = rules.set_goal == "least_after_deals"

    def key(seat: int) -> tuple[bool, int]:
        if any(s in left for s in rules.partners(seat)):
            return True, 0  # everyone who left shares the last place
        return False, scores[seat] if lower_wins else -scores[seat]

    sides = {rules.team_of(seat): key(seat) for seat in range(rules.players)}
    return [
        1 + sum(other < sides[rules.team_of(seat)] for other in sides.values())
        for seat in range(rules.players)
    ]


@dataclass(frozen=True)
class Change:
    player_id: str
    seat: int
    rank: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float


def rate(
    rules: engine.RuleSet,
    players: Mapping[int, str],
    ranks: Sequence[int],
    before: Mapping[str, tuple[float, float]],
) -> list[Change]:
    """New ratings for the players in ``players`` (seat -> player id): one team per seat in
    Tunggal, one per pair in Ganda, ranked by ``ranks``."""
    sides: dict[int, list[int]] = {}
    for seat in sorted(players):
        sides.setdefault(rules.team_of(seat), []).append(seat)
    order = sorted(sides)
    teams = [
        [MODEL.rating(mu=before[players[s]][0], sigma=before[players[s]][1]) for s in sides[t]]
        for t in order
    ]
    rated = MODEL.rate(teams, ranks=[ranks[sides[t][0]] for t in order])
    changes = []
    for team, new in zip(order, rated, strict=True):
        for seat, rating in zip(sides[team], new, strict=True):
            mu, sigma = before[players[seat]]
            changes.append(
                Change(players[seat], seat, ranks[seat], mu, sigma, rating.mu, rating.sigma)
            )
    return changes


# --- the hooks (inside the store's transactions) -------------------------------------------------


async def record_lineups(
    conn: Executor, *, lineups: Sequence[tuple[int, str, Mapping[str, Any]]]
) -> list[bool]:
    """Note who sits where as each set starts, (set, room, rules) each; whether each set is
    rated. A statement per kind of row, however many sets start together (a tournament
    round's tables)."""
    room_ids = list({room_id for _, room_id, _ in lineups})
    query = select(ROOMS.c.id, ROOMS.c.settings).where(ROOMS.c.id.in_(room_ids))
    settings = {room_id: value for room_id, value in await conn.execute(query)}
    seated: dict[str, list[Any]] = {room_id: [] for room_id in room_ids}
    query = select(SEATS.c.room_id, SEATS.c.seat, SEATS.c.player_id, SEATS.c.client_mark).where(
        SEATS.c.room_id.in_(room_ids)
    )
    for row in await conn.execute(query):
        seated[row.room_id].append(row)
    lines: list[dict[str, Any]] = []
    first: dict[tuple[str, str], dict[str, Any]] = {}
    outcomes = []
    for set_id, room_id, rules in lineups:
        humans = {row.seat: row.player_id for row in seated[room_id] if row.player_id is not None}
        marks = {row.seat: row.client_mark for row in seated[room_id]}
        ruleset = engine.RuleSet.from_dict(dict(rules))
        mode = ruleset.mode
        rated = (
            is_rated_room(settings.get(room_id) or {})
            and mode in RATED_MODES
            and sorted(humans) == list(range(ruleset.players))
        )
        outcomes.append(rated)
        lines += [
            {
                "set_id": set_id,
                "seat": seat,
                "player_id": player,
                "mode": mode,
                "rated": rated,
                "client_mark": marks.get(seat),
            }
            for seat, player in sorted(humans.items())
        ]
        if rated:
            # A first rated set: start from the model's prior. Rows made here (not when rating)
            # keep the result's transaction to plain updates of rows it has locked.
            for player in sorted(humans.values()):
                first[(player, mode)] = {
                    "player_id": player,
                    "mode": mode,
                    "mu": MODEL.mu,
                    "sigma": MODEL.sigma,
                    "ordinal": ordinal(MODEL.mu, MODEL.sigma),
                    "sets": 0,
                }
    if lines:
        await conn.execute(SET_PLAYERS.insert(), lines)
    if first:
        await conn.execute(_insert_ignore(conn, RATINGS), [first[k] for k in sorted(first)])
    return outcomes


async def mark_left(conn: Executor, *, room_id: str, seat: int) -> None:
    """The human in ``seat`` gave it up to a bot while a set runs: they rank last in it."""
    running = (
        select(SETS.c.id)
        .where(SETS.c.room_id == room_id, SETS.c.ended_at.is_(None))
        .order_by(SETS.c.number.desc())
        .limit(1)
        .scalar_subquery()
    )
    await conn.execute(
        update(SET_PLAYERS)
        .where(SET_PLAYERS.c.set_id == running, SET_PLAYERS.c.seat == seat)
        .values(left=True)
    )


async def rate_set(
    conn: Executor, *, set_id: int, result: Mapping[str, Any], at: datetime
) -> list[Change]:
    """Book a finished set for its players: rank and won on every set_players row, and, for a
    rated set, the new ratings and one rating_changes row per player. Returns the changes."""
    lineup = (await conn.execute(select(SET_PLAYERS).where(SET_PLAYERS.c.set_id == set_id))).all()
    scores = result.get("scores")
    if not lineup or scores is None or result.get("abandoned"):
        return []
    room_id, rules_data = (
        await conn.execute(select(SETS.c.room_id, SETS.c.rules).where(SETS.c.id == set_id))
    ).one()
    rules = engine.RuleSet.from_dict(dict(rules_data))
    now_seated = dict(
        (
            await conn.execute(
                select(SEATS.c.seat, SEATS.c.player_id).where(SEATS.c.room_id == room_id)
            )
        ).all()
    )
    # Gone: marked when the seat went to a bot, or someone (or something) else holds it now.
    left = {row.seat for row in lineup if row.left or now_seated.get(row.seat) != row.player_id}
    ranks = seat_ranks(rules, list(scores), left)
    for row in lineup:
        await conn.execute(
            update(SET_PLAYERS)
            .where(SET_PLAYERS.c.set_id == set_id, SET_PLAYERS.c.seat == row.seat)
            .values(
                left=row.seat in left,
                rank=ranks[row.seat],
                won=ranks[row.seat] == 1 and row.seat not in left,
            )
        )
    if not all(row.rated for row in lineup):
        return []
    players = {row.seat: row.player_id for row in lineup}
    changes = rate(rules, players, ranks, await _lock_ratings(conn, players, rules.mode))
    for change in changes:
        await conn.execute(
            update(RATINGS)
            .where(RATINGS.c.player_id == change.player_id, RATINGS.c.mode == rules.mode)
            .values(
                mu=change.mu_after,
                sigma=change.sigma_after,
                ordinal=ordinal(change.mu_after, change.sigma_after),
                sets=RATINGS.c.sets + 1,
                updated_at=at,
            )
        )
    await conn.execute(
        CHANGES.insert(),
        [
            {
                "set_id": set_id,
                "player_id": c.player_id,
                "mode": rules.mode,
                "rank": c.rank,
                "mu_before": c.mu_before,
                "sigma_before": c.sigma_before,
                "mu_after": c.mu_after,
                "sigma_after": c.sigma_after,
                "at": at,
            }
            for c in changes
        ],
    )
    log.info("set %s rated (%s): ranks %s", set_id, rules.mode, ranks)
    return changes


async def _lock_ratings(
    conn: Executor, players: Mapping[int, str], mode: str
) -> dict[str, tuple[float, float]]:
    """The players' current ratings, locked until the transaction ends (PostgreSQL; SQLite has
    one writer anyway), in player-id order so that two sets ending at once cannot deadlock."""
    rows = (
        await conn.execute(
            select(RATINGS.c.player_id, RATINGS.c.mu, RATINGS.c.sigma)
            .where(RATINGS.c.player_id.in_(sorted(players.values())), RATINGS.c.mode == mode)
            .order_by(RATINGS.c.player_id)
            .with_for_update()
        )
    ).all()
    found = {row.player_id: (row.mu, row.sigma) for row in rows}
    # A row can only be missing if the set predates its lineup's rating rows: start it now.
    for player in players.values():
        if player not in found:
            await conn.execute(
                _insert_ignore(conn, RATINGS).values(
                    player_id=player,
                    mode=mode,
                    mu=MODEL.mu,
                    sigma=MODEL.sigma,
                    ordinal=ordinal(MODEL.mu, MODEL.sigma),
                    sets=0,
                )
            )
            found[player] = (MODEL.mu, MODEL.sigma)
    return found


def _insert_ignore(conn: Executor, table: Table) -> Insert:
    """INSERT ... ON CONFLICT DO NOTHING, on either backend."""
    bind = conn.get_bind() if isinstance(conn, AsyncSession) else conn
    if bind.dialect.name == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing()
    return sqlite.insert(table).on_conflict_do_nothing()
