"""The moderators' part of /api/admin: the reports queue, warnings, mutes, the audit log.

Mounted with app/api/admin.py and on its terms (an operator's token, ``GAPLE_RATE_ADMIN``, a
log line per call); every role may call these. Each change writes its audit row in its own
transaction. Acting on a player (warn, mute) closes their open reports as ``actioned``. A mute
or its lifting makes the tables where the player sits reload the room, and with it who is
muted, as a block does (app/api/social.py), and every table where the player has a socket (a
spectator's too) learns of it (``LiveTables.player_muted``).
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Body, Depends, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from app import cursors
from app.api.admin import ADMIN, BAD, ROLE, AdminOnly, PlayerId, audited, current_operator
from app.api.deps import HubDep, LiveDep, SessionDep, SettingsDep
from app.api.errors import NotFound
from app.api.ratelimit import rate_limit
from app.api.reports import Category, ReportStatus, refused
from app.live import LiveTables
from app.players import fairplay, screening
from app.players.fairplay import FairPlayError, PlayerRecord
from app.presets import Mode
from app.store import fairplay as fairplay_rows
from app.store import rooms
from app.store.models import ChatKind, ChatLogLine, Report
from app.store.types import utcnow

router = APIRouter(
    prefix="/admin",
    tags=["admin"],
    dependencies=[Depends(rate_limit("admin")), Depends(current_operator)],
    responses=ADMIN,
)


class ReasonIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: Annotated[str, Field(min_length=1, max_length=fairplay.MAX_REASON_LENGTH)]


class MuteReasonIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str | None = Field(default=None, max_length=fairplay.MAX_REASON_LENGTH)


class AdminReportOut(BaseModel):
    id: int
    reporter_id: str
    player_id: str
    category: Category
    text: str
    set_id: int | None
    status: ReportStatus
    created_at: datetime
    closed_at: datetime | None
    closed_by: str | None = Field(description="The operator who closed it")


class ReportedOut(BaseModel):
    player_id: str
    name: str
    count: int
    categories: dict[str, int] = Field(description="How many reports of each category")
    latest: AdminReportOut
    report_ids: list[int] = Field(description="Oldest first")


class ReportsOut(BaseModel):
    players: list[ReportedOut] = Field(description="Latest report first")


class WarnedOut(BaseModel):
    player_id: str
    notification_id: int
    reports_actioned: int


class MuteOut(BaseModel):
    player_id: str
    muted: bool
    muted_until: datetime | None


class ChatLogOut(BaseModel):
    at: datetime
    room_id: str
    set_id: int | None
    player_id: str
    name: str | None = Field(description="As the table signed the line")
    seat: int | None = Field(description="None: said by a spectator")
    kind: ChatKind = Field(description="`chat`: free text; `phrase`: `text` is a phrase id")
    text: str


class ReportContextOut(BaseModel):
    report: AdminReportOut
    replay: str | None = Field(description="The set's replay page, when the report names a set")
    lines: list[ChatLogOut] = Field(description="Stored chat around the report, oldest first")


class PlayerRecordOut(BaseModel):
    player_id: str
    name: str
    username: str | None = Field(description="None: a guest")
    created_at: datetime
    banned: bool
    banned_at: datetime | None
    banned_reason: str | None
    reports: dict[str, int] = Field(description="Reports about the player, by status")
    warnings: int
    mutes: int = Field(description="Every mute the player had (the next one's length)")
    muted_until: datetime | None = Field(description="The running mute's end; None: not muted")


class PlayersOut(BaseModel):
    players: list[PlayerRecordOut]


class FlagOut(BaseModel):
    kind: screening.FlagKind = Field(
        description="`feeder`: a win-rate lift; `boosting`: thrown sets"
    )
    player_id: str = Field(description="The player who gained")
    partner_id: str = Field(description="The player they gained from")
    shared: int = Field(description="Rated sets where they met as opponents")
    expected_shared: float = Field(description="How many meetings chance gives")
    p_shared: float
    a_sets: int
    a_wins_with: int
    a_wins_without: int
    p_lift: float
    b_sets: int
    b_last_with: int
    b_last_without: int
    p_throw: float
    a_above_b: int
    gain_share: float = Field(
        description="Of the player's rating gains, the share won at these sets"
    )
    threshold: float
    set_ids: list[int] = Field(description="The latest shared sets (replay: /replay/{id})")


class SharedAddressOut(BaseModel):
    player_id: str
    partner_id: str
    sets: int = Field(description="Rated sets where both sat from one address")
    set_ids: list[int] = Field(description="The latest of them")


class ScreeningOut(BaseModel):
    sets: int
    players: int
    pairs_tested: int
    threshold: float = Field(description="alpha / pairs tested: a flag's p-values are under it")
    flags: list[FlagOut]
    shared_address: list[SharedAddressOut] = Field(
        description="Two accounts seated at one rated set from one address"
    )


class AuditOut(BaseModel):
    id: int
    operator: str
    action: str
    target: str
    reason: str | None
    client: str
    at: datetime


class AuditPageOut(BaseModel):
    entries: list[AuditOut] = Field(description="Newest first")
    next_cursor: str | None = Field(description="Pass as `cursor` for older entries")


def _report(row: Report) -> AdminReportOut:
    return AdminReportOut.model_validate(row, from_attributes=True)


def _line(row: ChatLogLine) -> ChatLogOut:
    return ChatLogOut.model_validate(row, from_attributes=True)


def _record(found: PlayerRecord) -> PlayerRecordOut:
    player = found.player
    return PlayerRecordOut(
        player_id=player.id,
        name=player.name,
        username=found.username,
        created_at=player.created_at,
        banned=player.banned_at is not None,
        banned_at=player.banned_at,
        banned_reason=player.banned_reason,
        reports=found.reports,
        warnings=found.warnings,
        mutes=found.mutes,
        muted_until=found.muted_until,
    )


async def _tables_of(session: SessionDep, live: LiveTables, player_id: str) -> None:
    """The tables where the player sits reload who is muted."""
    for room_id in await rooms.live_rooms_of(session, player_id=player_id):
        await live.seats_changed(room_id)


@router.get("/reports")
async def admin_list_reports(
    request: Request,
    session: SessionDep,
    status: Annotated[ReportStatus, Query()] = "open",
) -> ReportsOut:
    """Reports with ``status`` grouped by the reported player."""
    with audited(request, "list_reports", f"status {status}"):
        found = await fairplay.queue(session, status=status)
        return ReportsOut(
            players=[
                ReportedOut(
                    player_id=r.player_id,
                    name=r.name,
                    count=r.count,
                    categories=r.categories,
                    latest=_report(r.latest),
                    report_ids=r.report_ids,
                )
                for r in found
            ]
        )


@router.get("/reports/{report_id}")
async def admin_report_context(
    request: Request, report_id: Annotated[int, Path(ge=1)], session: SessionDep
) -> ReportContextOut:
    """The report with the stored chat around it and its set's replay."""
    with audited(request, "report_context", f"report {report_id}"):
        row = await fairplay_rows.get_report(session, report_id=report_id)
        if row is None:
            raise NotFound("no such report")
        lines = await fairplay.chat_around(session, report=row)
        return ReportContextOut(
            report=_report(row),
            replay=None if row.set_id is None else f"/replay/{row.set_id}",
            lines=[_line(line) for line in lines],
        )


@router.get("/players", responses=BAD)
async def admin_find_players(
    request: Request,
    session: SessionDep,
    q: Annotated[str, Query(min_length=1, max_length=64)],
) -> PlayersOut:
    """Players whose id is ``q`` or whose name or username contains it (any case), the newest
    first (at most 20), with their reports, warnings, mutes and ban."""
    with audited(request, "find_players", f"q {q[:40]}"):
        found = await fairplay.find(session, q=q, at=utcnow())
        return PlayersOut(players=[_record(r) for r in found])


@router.get("/bans", responses={**BAD, **ROLE}, dependencies=[AdminOnly])
async def admin_list_bans(
    request: Request,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
) -> PlayersOut:
    """Banned players, the latest ban first (unban: DELETE /api/admin/players/{id}/ban)."""
    with audited(request, "list_bans", "bans"):
        found = await fairplay.banned(session, limit=limit, at=utcnow())
        return PlayersOut(players=[_record(r) for r in found])


@router.get("/fairplay", responses=BAD)
async def admin_fairplay(
    request: Request,
    session: SessionDep,
    mode: Annotated[Mode, Query()] = "tunggal",
    days: Annotated[float, Query(gt=0, le=366)] = 90.0,
) -> ScreeningOut:
    """Screen the rated sets of the last ``days`` for collusion, as ``gaple fairplay`` does
    (docs/FAIRPLAY.md). Reads only: each flag is evidence for a moderator."""
    with audited(request, "fairplay", f"{mode} {days:g} days"):
        since = utcnow() - timedelta(days=days)
        sets = await fairplay.rated_sets(session, mode=mode, since=since)
        # The statistics are plain Python: in a worker thread, the event loop keeps serving.
        found = await asyncio.to_thread(screening.screen, sets)
        return ScreeningOut.model_validate(found, from_attributes=True)


@router.post("/reports/{report_id}/dismiss")
async def admin_dismiss_report(
    request: Request, report_id: Annotated[int, Path(ge=1)], session: SessionDep
) -> AdminReportOut:
    """Dismiss the report (one closed already stays as it is)."""
    with audited(request, "dismiss_report", f"report {report_id}") as outcome:
        row = await fairplay.dismiss(
            session, report_id=report_id, operator=outcome.operator.name, at=utcnow()
        )
        if row is None:
            raise NotFound("no such report")
        await outcome.store(session)
        await session.commit()
        return _report(row)


@router.post("/players/{player_id}/warn", responses=BAD)
async def admin_warn_player(
    request: Request,
    player_id: PlayerId,
    body: Annotated[ReasonIn, Body()],
    session: SessionDep,
    hub: HubDep,
) -> WarnedOut:
    """Warn the player: a stored notification ``warning`` with the reason, pushed to their
    /ws/me too. Their open reports are ``actioned``."""
    with audited(request, fairplay.WARN, f"player {player_id}") as outcome:
        name = outcome.operator.name
        try:
            at = utcnow()
            closed = await fairplay_rows.close_reports_of(
                session, player_id=player_id, status=fairplay.ACTIONED, by=name, at=at
            )
            notice = await fairplay.warn(
                session, player_id=player_id, reason=body.reason, operator=name, at=at
            )
        except FairPlayError as error:
            raise refused(error) from None
        await outcome.store(session, body.reason)
        await session.commit()
        hub.notify(notice)
        return WarnedOut(player_id=player_id, notification_id=notice.id, reports_actioned=closed)


@router.post("/players/{player_id}/mute", responses=BAD)
async def admin_mute_player(
    request: Request,
    player_id: PlayerId,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
    body: Annotated[MuteReasonIn, Body()] = MuteReasonIn(),  # noqa: B008 - pydantic default
) -> MuteOut:
    """Mute the player at tables: their ``chat``, ``react`` and ``phrase`` are refused with
    ``muted``. The first mute lasts 1 day, the second 1 week, every later one 30 days
    (GAPLE_MUTE_SECONDS). Their open reports are ``actioned``."""
    with audited(request, "mute", f"player {player_id}") as outcome:
        try:
            row = await fairplay.mute(
                session,
                player_id=player_id,
                reason=body.reason,
                operator=outcome.operator.name,
                at=utcnow(),
                steps=settings.mute_seconds,
            )
        except FairPlayError as error:
            raise refused(error) from None
        outcome.text = f"ok: until {row.until.isoformat()}"
        await outcome.store(session, body.reason)
        await session.commit()
        await _tables_of(session, live, player_id)
        await live.player_muted(player_id, row.until.timestamp())
        return MuteOut(player_id=player_id, muted=True, muted_until=row.until)


@router.delete("/players/{player_id}/mute")
async def admin_unmute_player(
    request: Request, player_id: PlayerId, session: SessionDep, live: LiveDep
) -> MuteOut:
    """Lift the player's mute (no mute: nothing changes)."""
    with audited(request, "unmute", f"player {player_id}") as outcome:
        try:
            await fairplay.unmute(session, player_id=player_id, at=utcnow())
        except FairPlayError as error:
            raise refused(error) from None
        await outcome.store(session)
        await session.commit()
        await _tables_of(session, live, player_id)
        await live.player_muted(player_id, None)
        return MuteOut(player_id=player_id, muted=False, muted_until=None)


@router.get("/audit", responses=BAD)
async def admin_audit_log(
    request: Request,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
) -> AuditPageOut:
    """The operators' actions, newest first, a page at a time."""
    with audited(request, "audit_log", "audit_log"):
        before = cursors.decode(cursor, int)[0] if cursor is not None else None
        rows = await fairplay_rows.audit_page(session, limit=limit + 1, before=before)
        more = len(rows) > limit
        rows = rows[:limit]
        return AuditPageOut(
            entries=[AuditOut.model_validate(r, from_attributes=True) for r in rows],
            next_cursor=cursors.encode(rows[-1].id) if more else None,
        )
