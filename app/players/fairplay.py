"""Fair play's rules: players' reports, operators' warnings and mutes (docs/API.md "Fair play").

* A report names a player, a category, a text (at most 500 characters) and maybe a set (none
  named: the latest set the two started together in the last ``CONTEXT_WINDOW``, if any). A
  reporter has at most one open report about a player (``already_reported``); the reported
  player is never told.
* Acting on a player (a warning, a mute, a ban) closes their open reports as ``actioned``; a
  report dismissed is ``dismissed``.
* A mute lasts by how many the player had before (``GAPLE_MUTE_SECONDS``: 1 day, 1 week, then
  30 days for every later one); lifting it ends every mute still running.
* A report shows the stored chat around it (``chat_around``): up to ``CONTEXT_BEFORE`` lines
  said before it and ``CONTEXT_AFTER`` after, in the set it names, else at the tables where the
  reported player spoke in the ``CONTEXT_WINDOW`` before it. Chat is stored at rated tables only
  (app/rooms/chat.py ``keeps_chat``) and removed after ``GAPLE_CHAT_RETENTION_DAYS``.

Functions take the session first, then keyword-only args; they flush but never commit. A
refusal is a ``FairPlayError`` with a stable code; the API maps codes to HTTP statuses.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import GapleError
from app.players.screening import RatedSet, SeatResult
from app.players.social import KEEP_NOTIFICATIONS, NO_SUCH_PLAYER, WARNING
from app.store import chatlog, fairplay, players, social
from app.store.locks import serialise
from app.store.models import (
    REPORT_CATEGORIES,
    ChatLogLine,
    GameSet,
    Mute,
    Notification,
    Player,
    Report,
)
from app.store.types import utcnow

MAX_REPORT_TEXT = 500
MAX_REASON_LENGTH = 200
CONTEXT_BEFORE, CONTEXT_AFTER = 20, 5  # chat lines shown around a report
CONTEXT_WINDOW = timedelta(
    hours=2
)  # no set named: the tables where the player spoke this long before
MAX_FOUND = 20  # players one search returns
WARN = "warn"  # the audit log's action for a warning: how many a player had is counted there
ACTIONED, DISMISSED, OPEN = "actioned", "dismissed", "open"

__all__ = ["REPORT_CATEGORIES"]


class FairPlayError(GapleError):
    """codes: player_not_found, not_yourself, already_reported, not_found (a set or report)."""


async def report(
    session: AsyncSession,
    *,
    reporter: Player,
    player_id: str,
    category: str,
    text: str,
    set_id: int | None,
) -> Report:
    """File ``reporter``'s report about ``player_id``."""
    if player_id == reporter.id:
        raise FairPlayError("not_yourself", "you cannot report yourself", field="player_id")
    if await players.get_player(session, player_id=player_id) is None:
        raise FairPlayError("player_not_found", NO_SUCH_PLAYER, field="player_id")
    if set_id is not None and await session.get(GameSet, set_id) is None:
        raise FairPlayError("not_found", "no such set", field="set_id")
    # Two reports sent at once about the same player meet here, one after the other.
    await serialise(session, f"report:{reporter.id}:{player_id}")
    if await fairplay.open_report(session, reporter_id=reporter.id, player_id=player_id):
        raise FairPlayError(
            "already_reported", "your report about this player is still open", field="player_id"
        )
    if set_id is None:
        # Reported from a table (a seat's menu): the set they play together, if one is recent.
        set_id = await fairplay.latest_set_together(
            session, player_ids=(reporter.id, player_id), since=utcnow() - CONTEXT_WINDOW
        )
    return await fairplay.add_report(
        session,
        reporter_id=reporter.id,
        player_id=player_id,
        category=category,
        text=text,
        set_id=set_id,
    )


@dataclass(frozen=True)
class Reported:
    """One player's reports with one status, as the moderators' queue shows them."""

    player_id: str
    name: str
    count: int
    categories: dict[str, int]
    latest: Report
    report_ids: list[int]


async def queue(session: AsyncSession, *, status: str) -> list[Reported]:
    """The reports with ``status`` grouped by the reported player, the latest report first."""
    rows = await fairplay.reports_with_status(session, status=status)
    by_player: dict[str, list[Report]] = {}
    for row in rows:
        by_player.setdefault(row.player_id, []).append(row)
    names = await players.get_player_names(session, player_ids=list(by_player))
    found = []
    for player_id, reports in by_player.items():
        categories: dict[str, int] = {}
        for row in reports:
            categories[row.category] = categories.get(row.category, 0) + 1
        found.append(
            Reported(
                player_id=player_id,
                name=names.get(player_id, ""),
                count=len(reports),
                categories=categories,
                latest=reports[-1],
                report_ids=[row.id for row in reports],
            )
        )
    return sorted(found, key=lambda r: r.latest.id, reverse=True)


async def dismiss(
    session: AsyncSession, *, report_id: int, operator: str, at: datetime
) -> Report | None:
    """Dismiss the report (one that is closed already stays as it is). None: no such report."""
    row = await fairplay.get_report(session, report_id=report_id)
    if row is None:
        return None
    if row.status == OPEN:
        row.status, row.closed_by, row.closed_at = DISMISSED, operator, at
        await session.flush()
    return row


async def acted_on(session: AsyncSession, *, player_id: str, operator: str, at: datetime) -> int:
    """An operator acted on the player: their open reports are ``actioned``; how many."""
    return await fairplay.close_reports_of(
        session, player_id=player_id, status=ACTIONED, by=operator, at=at
    )


async def _player(session: AsyncSession, player_id: str) -> Player:
    player = await players.get_player(session, player_id=player_id)
    if player is None:
        raise FairPlayError("not_found", "no such player", field="player_id")
    return player


async def warn(
    session: AsyncSession, *, player_id: str, reason: str, operator: str, at: datetime
) -> Notification:
    """Leave the player a ``warning`` notification (the caller pushes it live)."""
    await _player(session, player_id)
    await acted_on(session, player_id=player_id, operator=operator, at=at)
    payload: dict[str, Any] = {"reason": reason}
    return await social.add_notification(
        session, player_id=player_id, kind=WARNING, payload=payload, keep=KEEP_NOTIFICATIONS
    )


async def mute(
    session: AsyncSession,
    *,
    player_id: str,
    reason: str | None,
    operator: str,
    at: datetime,
    steps: tuple[int, ...],
) -> Mute:
    """Mute the player from ``at``: the n-th mute lasts ``steps[n-1]`` seconds (the last step
    for every later one)."""
    await _player(session, player_id)
    await serialise(session, f"mute:{player_id}")
    before = await fairplay.count_mutes(session, player_id=player_id)
    seconds = steps[min(before, len(steps) - 1)]
    await acted_on(session, player_id=player_id, operator=operator, at=at)
    return await fairplay.add_mute(
        session,
        player_id=player_id,
        operator=operator,
        reason=reason,
        at=at,
        until=at + timedelta(seconds=seconds),
    )


async def unmute(session: AsyncSession, *, player_id: str, at: datetime) -> int:
    """End the player's running mutes; how many there were."""
    await _player(session, player_id)
    return await fairplay.lift_mutes(session, player_id=player_id, at=at)


async def muted_until(session: AsyncSession, *, player_id: str, at: datetime) -> datetime | None:
    found = await fairplay.muted_until(session, player_ids=[player_id], at=at)
    return found.get(player_id)


async def rated_sets(session: AsyncSession, *, mode: str, since: datetime) -> list[RatedSet]:
    """The rated sets of ``mode`` ended since ``since``, as the screening reads them (a Ganda
    seat's team is its seat's parity: partners are never tested as a pair)."""
    by_set: dict[int, list[SeatResult]] = {}
    for set_id, seat, player_id, rank, won, gain, mark in await fairplay.rated_results(
        session, mode=mode, since=since
    ):
        team = seat % 2 if mode == "ganda" else seat
        by_set.setdefault(set_id, []).append(
            SeatResult(
                player_id=player_id,
                team=team,
                rank=rank,
                won=won,
                gain=gain or 0.0,
                client_mark=mark,
            )
        )
    return [RatedSet(set_id=set_id, seats=tuple(seats)) for set_id, seats in by_set.items()]


async def chat_around(session: AsyncSession, *, report: Report) -> list[ChatLogLine]:
    """The stored chat lines around the report, oldest first (none: nothing was kept)."""
    room_ids: list[str] = []
    if report.set_id is None:
        room_ids = await chatlog.rooms_spoken_in(
            session,
            player_id=report.player_id,
            since=report.created_at - CONTEXT_WINDOW,
            until=report.created_at,
        )
        if not room_ids:
            return []
    return await chatlog.lines_around(
        session,
        room_ids=room_ids,
        set_id=report.set_id,
        at=report.created_at,
        before=CONTEXT_BEFORE,
        after=CONTEXT_AFTER,
    )


@dataclass(frozen=True)
class PlayerRecord:
    """A player as the operators look them up: who, and what fair play knows of them."""

    player: Player
    username: str | None
    reports: dict[str, int]  # by status
    warnings: int
    mutes: int
    muted_until: datetime | None


async def records(
    session: AsyncSession, *, found: list[tuple[Player, str | None]], at: datetime
) -> list[PlayerRecord]:
    ids = [player.id for player, _ in found]
    reports = await fairplay.report_counts(session, player_ids=ids)
    mutes = await fairplay.mute_counts(session, player_ids=ids)
    muted = await fairplay.muted_until(session, player_ids=ids, at=at)
    warnings = await fairplay.action_counts(
        session, action=WARN, targets=[f"player {i}" for i in ids]
    )
    return [
        PlayerRecord(
            player=player,
            username=username,
            reports=reports.get(player.id, {}),
            warnings=warnings.get(f"player {player.id}", 0),
            mutes=mutes.get(player.id, 0),
            muted_until=muted.get(player.id),
        )
        for player, username in found
    ]


async def find(session: AsyncSession, *, q: str, at: datetime) -> list[PlayerRecord]:
    """Players whose id is ``q`` or whose name or username contains it, newest first."""
    found = await fairplay.find_players(session, q=q.strip(), limit=MAX_FOUND)
    return await records(session, found=found, at=at)


async def banned(session: AsyncSession, *, limit: int, at: datetime) -> list[PlayerRecord]:
    """Banned players, the latest ban first."""
    return await records(session, found=await fairplay.banned_players(session, limit=limit), at=at)
