"""Fair play's rows: reports, mutes, the operators' audit log.

Repository functions, keyword-only, on a session the caller holds: they flush but never commit.
The rules (one open report per pair, how long a mute lasts) are app/players/fairplay.py's.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import (
    Account,
    AuditEntry,
    GameSet,
    Mute,
    Player,
    RatingChange,
    Report,
    SetPlayer,
)

OPEN = "open"


# --- reports --------------------------------------------------------------------------------------


async def open_report(session: AsyncSession, *, reporter_id: str, player_id: str) -> Report | None:
    query = select(Report).where(
        Report.reporter_id == reporter_id, Report.player_id == player_id, Report.status == OPEN
    )
    return (await session.execute(query)).scalars().first()


async def add_report(
    session: AsyncSession,
    *,
    reporter_id: str,
    player_id: str,
    category: str,
    text: str,
    set_id: int | None,
) -> Report:
    row = Report(
        reporter_id=reporter_id,
        player_id=player_id,
        category=category,
        text=text,
        set_id=set_id,
        status=OPEN,
    )
    session.add(row)
    await session.flush()
    return row


async def get_report(session: AsyncSession, *, report_id: int) -> Report | None:
    return await session.get(Report, report_id, populate_existing=True)


async def reports_with_status(session: AsyncSession, *, status: str) -> list[Report]:
    """Oldest first."""
    query = select(Report).where(Report.status == status).order_by(Report.id)
    return list((await session.execute(query)).scalars())


async def close_reports_of(
    session: AsyncSession, *, player_id: str, status: str, by: str, at: datetime
) -> int:
    """Close the player's open reports with ``status``; how many there were."""
    result = await session.execute(
        update(Report)
        .where(Report.player_id == player_id, Report.status == OPEN)
        .values(status=status, closed_by=by, closed_at=at)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0))


# --- mutes ----------------------------------------------------------------------------------------


async def count_mutes(session: AsyncSession, *, player_id: str) -> int:
    query = select(func.count()).where(Mute.player_id == player_id)
    return int(await session.scalar(query) or 0)


async def add_mute(
    session: AsyncSession,
    *,
    player_id: str,
    operator: str,
    reason: str | None,
    at: datetime,
    until: datetime,
) -> Mute:
    row = Mute(player_id=player_id, operator=operator, reason=reason, created_at=at, until=until)
    session.add(row)
    await session.flush()
    return row


async def lift_mutes(session: AsyncSession, *, player_id: str, at: datetime) -> int:
    """Lift the player's mutes still running at ``at``; how many there were."""
    result = await session.execute(
        update(Mute)
        .where(Mute.player_id == player_id, Mute.lifted_at.is_(None), Mute.until > at)
        .values(lifted_at=at)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0))


async def muted_until(
    session: AsyncSession, *, player_ids: Iterable[str], at: datetime
) -> dict[str, datetime]:
    """For each of ``player_ids`` muted at ``at``: when the last of their mutes ends."""
    ids = set(player_ids)
    if not ids:
        return {}
    rows = await session.execute(
        select(Mute.player_id, func.max(Mute.until))
        .where(Mute.player_id.in_(ids), Mute.lifted_at.is_(None), Mute.until > at)
        .group_by(Mute.player_id)
    )
    return {player_id: until for player_id, until in rows}


# --- players, as the operators look them up -------------------------------------------------------


def _like(text: str) -> str:
    """``text`` as a LIKE pattern that matches it anywhere, its own wildcards taken literally."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


async def find_players(
    session: AsyncSession, *, q: str, limit: int
) -> list[tuple[Player, str | None]]:
    """Players whose id is ``q``, or whose name or username contains it (any case), with their
    username (None: a guest); the newest first."""
    pattern = _like(q.lower())
    query = (
        select(Player, Account.username)
        .outerjoin(Account, Account.player_id == Player.id)
        .where(
            or_(
                Player.id == q,
                func.lower(Player.name).like(pattern, escape="\\"),
                Account.username.like(pattern, escape="\\"),
            )
        )
        .order_by(Player.created_at.desc(), Player.id)
        .limit(limit)
    )
    return [(player, username) for player, username in await session.execute(query)]


async def banned_players(session: AsyncSession, *, limit: int) -> list[tuple[Player, str | None]]:
    """Banned players, the latest ban first, with their username (None: a guest)."""
    query = (
        select(Player, Account.username)
        .outerjoin(Account, Account.player_id == Player.id)
        .where(Player.banned_at.is_not(None))
        .order_by(Player.banned_at.desc(), Player.id)
        .limit(limit)
    )
    return [(player, username) for player, username in await session.execute(query)]


async def report_counts(
    session: AsyncSession, *, player_ids: Iterable[str]
) -> dict[str, dict[str, int]]:
    """For each player reported: how many reports about them have each status."""
    ids = set(player_ids)
    if not ids:
        return {}
    rows = await session.execute(
        select(Report.player_id, Report.status, func.count())
        .where(Report.player_id.in_(ids))
        .group_by(Report.player_id, Report.status)
    )
    found: dict[str, dict[str, int]] = {}
    for player_id, status, count in rows:
        found.setdefault(player_id, {})[status] = int(count)
    return found


async def mute_counts(session: AsyncSession, *, player_ids: Iterable[str]) -> dict[str, int]:
    ids = set(player_ids)
    if not ids:
        return {}
    rows = await session.execute(
        select(Mute.player_id, func.count()).where(Mute.player_id.in_(ids)).group_by(Mute.player_id)
    )
    return {player_id: int(count) for player_id, count in rows}


async def action_counts(
    session: AsyncSession, *, action: str, targets: Iterable[str]
) -> dict[str, int]:
    """How many audit rows of ``action`` name each target (``"player <id>"``)."""
    names = set(targets)
    if not names:
        return {}
    rows = await session.execute(
        select(AuditEntry.target, func.count())
        .where(AuditEntry.action == action, AuditEntry.target.in_(names))
        .group_by(AuditEntry.target)
    )
    return {target: int(count) for target, count in rows}


async def latest_set_together(
    session: AsyncSession, *, player_ids: tuple[str, str], since: datetime
) -> int | None:
    """The latest set both players sat in that started since ``since``."""
    first, second = player_ids
    other = select(SetPlayer.set_id).where(SetPlayer.player_id == second)
    query = (
        select(GameSet.id)
        .join(SetPlayer, SetPlayer.set_id == GameSet.id)
        .where(SetPlayer.player_id == first, GameSet.started_at >= since, GameSet.id.in_(other))
        .order_by(GameSet.started_at.desc(), GameSet.id.desc())
        .limit(1)
    )
    return await session.scalar(query)


# --- rated results, for the screening -----------------------------------------------------------


async def rated_results(
    session: AsyncSession, *, mode: str, since: datetime
) -> list[tuple[int, int, str, int, bool, float | None, str | None]]:
    """Every ranked seat of the rated sets of ``mode`` that ended since ``since``, by set and
    seat: (set id, seat, player id, rank, won, mu after - mu before or None, address mark)."""
    query = (
        select(
            SetPlayer.set_id,
            SetPlayer.seat,
            SetPlayer.player_id,
            SetPlayer.rank,
            SetPlayer.won,
            RatingChange.mu_after - RatingChange.mu_before,
            SetPlayer.client_mark,
        )
        .join(GameSet, GameSet.id == SetPlayer.set_id)
        .outerjoin(
            RatingChange,
            (RatingChange.set_id == SetPlayer.set_id)
            & (RatingChange.player_id == SetPlayer.player_id),
        )
        .where(
            SetPlayer.rated.is_(True),
            SetPlayer.mode == mode,
            SetPlayer.rank.is_not(None),
            GameSet.ended_at >= since,
        )
        .order_by(SetPlayer.set_id, SetPlayer.seat)
    )
    return [
        (set_id, seat, player_id, int(rank or 0), bool(won), gain, mark)
        for set_id, seat, player_id, rank, won, gain, mark in await session.execute(query)
    ]


# --- the audit log --------------------------------------------------------------------------------


async def add_audit(
    session: AsyncSession,
    *,
    operator: str,
    action: str,
    target: str,
    reason: str | None,
    client: str,
) -> AuditEntry:
    row = AuditEntry(operator=operator, action=action, target=target, reason=reason, client=client)
    session.add(row)
    await session.flush()
    return row


async def audit_page(session: AsyncSession, *, limit: int, before: int | None) -> list[AuditEntry]:
    """Newest first: at most ``limit`` entries older than entry ``before`` (None: the newest)."""
    query = select(AuditEntry).order_by(AuditEntry.id.desc()).limit(limit)
    if before is not None:
        query = query.where(AuditEntry.id < before)
    return list((await session.execute(query)).scalars())
