"""What anyone may see of a player: record, ratings and their history, and the leaderboard.

Read-only queries; every response shape is documented in docs/API.md.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app import cursors
from app.players import clubs
from app.players.accounts import usernames
from app.players.ratings import MIN_LEADERBOARD_SETS, MODEL, displayed
from app.store.models import (
    RATED_MODES,
    Deal,
    GameSet,
    Player,
    Rating,
    RatingChange,
    Room,
    SetPlayer,
)

HISTORY_LENGTH = 20  # rating changes shown per mode on a profile


def change_view(change: RatingChange) -> dict[str, Any]:
    before = displayed(change.mu_before, change.sigma_before)
    after = displayed(change.mu_after, change.sigma_after)
    return {
        "set_id": change.set_id,
        "at": change.at,
        "rank": change.rank,
        "before": before,
        "after": after,
        "change": after - before,
    }


async def profile(session: AsyncSession, *, player_id: str) -> dict[str, Any] | None:
    player = await session.get(Player, player_id)
    if player is None:
        return None
    names = await usernames(session, player_ids=[player_id])
    return {
        "player_id": player.id,
        "name": player.name,
        "username": names.get(player_id),
        "joined": player.created_at,
        "modes": {mode: await _mode_record(session, player_id, mode) for mode in RATED_MODES},
        "clubs": await clubs.clubs_of(session, player_id=player_id),
    }


async def _mode_record(session: AsyncSession, player_id: str, mode: str) -> dict[str, Any]:
    mine = and_(SetPlayer.player_id == player_id, SetPlayer.mode == mode)
    wins = func.coalesce(func.sum(case((SetPlayer.won.is_(True), 1), else_=0)), 0)
    played, won = (
        await session.execute(select(func.count(), wins).where(mine, SetPlayer.won.is_not(None)))
    ).one()
    rating = await session.get(Rating, (player_id, mode))
    mu, sigma = (rating.mu, rating.sigma) if rating else (MODEL.mu, MODEL.sigma)
    recent = list(
        await session.scalars(
            select(RatingChange)
            .where(RatingChange.player_id == player_id, RatingChange.mode == mode)
            .order_by(RatingChange.at.desc(), RatingChange.set_id.desc())
            .limit(HISTORY_LENGTH)
        )
    )
    return {
        "sets_played": int(played),
        "sets_won": int(won),
        "win_rate": round(int(won) / int(played), 4) if played else None,
        "rated_sets": rating.sets if rating else 0,
        "rating": displayed(mu, sigma),
        "mu": mu,
        "sigma": sigma,
        "on_leaderboard": bool(rating and rating.sets >= MIN_LEADERBOARD_SETS),
        "history": [change_view(c) for c in reversed(recent)],
        "deals_won": await _deals_won(session, player_id, mode),
    }


async def _deals_won(session: AsyncSession, player_id: str, mode: str) -> dict[str, int]:
    """Deals the player won themselves (went out, or won the blocked count), by how they ended:
    PORDI biasa, balak, ceki, ceki_habis, ceki_balak, ceki_palang, kandang; Klasik domi, discard,
    kandang. Not counted: sets they left (a bot played on in their seat)."""
    kind = Deal.result["result"].as_string()
    rows = await session.execute(
        select(kind, func.count())
        .join(SetPlayer, SetPlayer.set_id == Deal.set_id)
        .where(
            SetPlayer.player_id == player_id,
            SetPlayer.mode == mode,
            SetPlayer.left.is_(False),
            Deal.result.is_not(None),
            Deal.result["winner"].as_integer() == SetPlayer.seat,
        )
        .group_by(kind)
    )
    return {str(name): int(count) for name, count in rows if name is not None}


# --- the leaderboard ----------------------------------------------------------------------------


async def leaderboard(
    session: AsyncSession, *, mode: str, limit: int, cursor: str | None
) -> dict[str, Any]:
    """Players with at least MIN_LEADERBOARD_SETS rated sets, best first; ties by player id."""
    ranked = and_(Rating.mode == mode, Rating.sets >= MIN_LEADERBOARD_SETS)
    query = select(Rating, Player.name).join(Player, Player.id == Rating.player_id).where(ranked)
    position = 0
    if cursor is not None:
        after_ordinal, after_id = cursors.decode(cursor, float, str)
        before_or_at = or_(
            Rating.ordinal > after_ordinal,
            and_(Rating.ordinal == after_ordinal, Rating.player_id <= after_id),
        )
        position = int(await session.scalar(select(func.count()).where(ranked, before_or_at)) or 0)
        query = query.where(
            or_(
                Rating.ordinal < after_ordinal,
                and_(Rating.ordinal == after_ordinal, Rating.player_id > after_id),
            )
        )
    rows = (
        await session.execute(
            query.order_by(Rating.ordinal.desc(), Rating.player_id).limit(limit + 1)
        )
    ).all()
    page = rows[:limit]
    names = await usernames(session, player_ids=[r.Rating.player_id for r in page])
    entries = [
        {
            "position": position + index + 1,
            "player_id": row.Rating.player_id,
            "name": row.name,
            "username": names.get(row.Rating.player_id),
            "rating": displayed(row.Rating.mu, row.Rating.sigma),
            "rated_sets": row.Rating.sets,
        }
        for index, row in enumerate(page)
    ]
    last = page[-1].Rating if page else None
    more = len(rows) > limit and last is not None
    return {
        "mode": mode,
        "min_rated_sets": MIN_LEADERBOARD_SETS,
        "players": entries,
        "next_cursor": cursors.encode(last.ordinal, last.player_id) if more and last else None,
    }


# --- a set's rating changes (the result screen) -------------------------------------------------


async def set_changes(session: AsyncSession, *, code: str, number: int) -> dict[str, Any] | None:
    """What a room's set number ``number`` did to its players' ratings; None: no such set."""
    found = (
        await session.execute(
            select(GameSet.id, GameSet.ended_at)
            .join(Room, Room.id == GameSet.room_id)
            .where(Room.code == code, GameSet.number == number)
        )
    ).first()
    if found is None:
        return None
    set_id, ended_at = found
    lineup = list(
        await session.scalars(
            select(SetPlayer).where(SetPlayer.set_id == set_id).order_by(SetPlayer.seat)
        )
    )
    changes = {
        c.player_id: c
        for c in await session.scalars(select(RatingChange).where(RatingChange.set_id == set_id))
    }
    players = {p.id: p.name for p in await _players(session, [s.player_id for s in lineup])}
    rated = bool(lineup) and all(s.rated for s in lineup)
    return {
        "set_id": set_id,
        "number": number,
        "rated": rated,
        "ended": ended_at is not None,
        "mode": lineup[0].mode if lineup else None,
        "players": [
            {
                "seat": s.seat,
                "player_id": s.player_id,
                "name": players.get(s.player_id),
                "left": s.left,
                "rank": s.rank,
                **(
                    {k: change_view(changes[s.player_id])[k] for k in ("before", "after", "change")}
                    if s.player_id in changes
                    else {"before": None, "after": None, "change": None}
                ),
            }
            for s in lineup
        ],
    }


async def _players(session: AsyncSession, ids: list[str]) -> list[Player]:
    if not ids:
        return []
    return list(await session.scalars(select(Player).where(Player.id.in_(ids))))
