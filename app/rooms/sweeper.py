"""The sweeper: rooms nobody attends to move on by themselves.

Every GAPLE_SWEEP_SECONDS, on every node:

* a quick-play room whose bot fill is due (``quickplay.bots_at``: GAPLE_QUICKPLAY_BOT_FILL_SECONDS
  after its last human sat down while it waits for its first set; after a set, that long after
  the first "play again") gets bots (``QUICKPLAY_BOT``) and its set starts (whether or not its
  humans are connected: if they are gone, the live tables stop the table as abandoned). A room
  ``open`` again after a set where nobody chose "play again" is never filled: its result stays,
  and nobody is put into another set without choosing it (``quickplay.waiting``);
* an ``open`` room with no seated human connected (``rooms.humans_online`` 0) and no activity for
  GAPLE_OPEN_ROOM_IDLE_SECONDS is closed (``idle``);
* a challenge still pending past its ``expires_at`` (GAPLE_CHALLENGE_SECONDS) is stored
  ``expired``, and its challenger and invitees get a ``challenge_expired`` notification
  (``challenges.expire``: under the challenge's lock, so exactly one node sends them);
* a tournament due at its ``starts_at`` starts (or is cancelled with too few entrants), and a
  round whose results are all in moves on if no node did it (app/rooms/tournament_live.py;
  each under the tournament's lock, so exactly one node acts);
* chat lines stored at rated tables longer ago than GAPLE_CHAT_RETENTION_DAYS are removed
  (app/store/chatlog.py; one ``DELETE`` on an index, whichever node gets there first).

Several nodes may sweep at once: each room is handled in its own transaction holding its row
(PostgreSQL ``FOR UPDATE SKIP LOCKED``: a room another node is handling is left to it; SQLite has
one writer), the conditions are checked again under the lock, and the lifecycle refuses a
transition that already happened. The live layer is told after the commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy import ColumnElement, and_, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.live import LiveTables
from app.logs import FailureLog
from app.rooms import challenges, lifecycle, quickplay
from app.rooms.lifecycle import LifecycleError
from app.rooms.tournament_live import TournamentRunner
from app.settings import Settings
from app.store import challenges as challenge_rows
from app.store import chatlog, rooms
from app.store.db import Database
from app.store.models import Notification, Room, Seat
from app.store.types import utcnow

log = logging.getLogger(__name__)

Action = Callable[[AsyncSession, str], Awaitable[bool]]


@dataclass
class Swept:
    """What one sweep did (room ids)."""

    closed: list[str] = field(default_factory=list)
    filled: list[str] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)  # challenge ids
    tournaments: list[int] = field(default_factory=list)  # started, cancelled or advanced
    chat_removed: int = 0  # stored chat lines past their retention


class Notifier(Protocol):
    """Where stored notifications are pushed live after the commit (app/rooms/hub.py)."""

    def notify(self, notice: Notification) -> None: ...


def _last_human_sat() -> ColumnElement[datetime]:
    return (
        select(func.max(Seat.sat_at))
        .where(Seat.room_id == Room.id, Seat.player_id.is_not(None))
        .correlate(Room)
        .scalar_subquery()
    )


def _first_ready() -> ColumnElement[datetime | None]:
    return (
        select(func.min(Seat.ready_at))
        .where(Seat.room_id == Room.id, Seat.player_id.is_not(None))
        .correlate(Room)
        .scalar_subquery()
    )


class Sweeper:
    def __init__(
        self,
        db: Database,
        live: LiveTables,
        settings: Settings,
        notifier: Notifier | None = None,
    ) -> None:
        self.db = db
        self.live = live
        self.notifier = notifier
        self.idle = timedelta(seconds=settings.open_room_idle_seconds)
        self.fill = timedelta(seconds=settings.quickplay_bot_fill_seconds)
        self.every = settings.sweep_seconds
        self.chat_retention = timedelta(days=settings.chat_retention_days)
        self._task: asyncio.Task[None] | None = None
        self.tournaments: TournamentRunner | None = None  # starts and advances tournaments

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="room-sweeper")

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        # A database outage fails every sweep: one line when it starts, one when it ends.
        failures = FailureLog(log, "sweeper", time.monotonic)
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.sweep()
            except Exception as exc:  # a bad sweep must not end the sweeping; the next one retries
                failures.failed("the room sweep", exc)
            else:
                failures.ok("the room sweep")

    async def sweep(self, now: datetime | None = None) -> Swept:
        now = now or utcnow()
        swept = Swept()
        for room_id in await self._candidates(self._fill_conditions(now)):
            if await self._in_own_transaction(
                room_id, self._fill_conditions(now), self._filler(now)
            ):
                swept.filled.append(room_id)
                await self.live.seats_changed(room_id)
                await self.live.room_started(room_id)
        for room_id in await self._candidates(self._idle_conditions(now)):
            if await self._in_own_transaction(room_id, self._idle_conditions(now), self._close):
                swept.closed.append(room_id)
                await self.live.room_closed(room_id, "idle")
        await self._expire_challenges(now, swept)
        if self.tournaments is not None:
            swept.tournaments = await self.tournaments.sweep(now)
        async with self.db.session() as session, session.begin():
            swept.chat_removed = await chatlog.remove_before(session, at=now - self.chat_retention)
        return swept

    async def _expire_challenges(self, now: datetime, swept: Swept) -> None:
        async with self.db.session() as session:
            overdue = await challenge_rows.overdue(session, now=now, limit=100)
        for challenge_id in overdue:
            async with self.db.session() as session:
                notices = await challenges.expire(session, challenge_id=challenge_id, now=now)
                await session.commit()
            if notices:
                swept.expired.append(challenge_id)
            for notice in notices:
                if self.notifier is not None:
                    self.notifier.notify(notice)

    def _idle_conditions(self, now: datetime) -> list[ColumnElement[bool]]:
        return [Room.status == "open", Room.humans_online == 0, Room.active_at < now - self.idle]

    def _fill_conditions(self, now: datetime) -> list[ColumnElement[bool]]:
        # What a due room must meet (the SQL narrows; ``_fill`` decides with quickplay.bots_at).
        since = now - self.fill
        return [
            Room.status == "open",
            Room.quickplay.is_(True),
            or_(
                and_(quickplay.never_played(), _last_human_sat() < since),
                _first_ready() < since,
            ),
        ]

    async def _candidates(self, conditions: list[ColumnElement[bool]]) -> list[str]:
        async with self.db.session() as session:
            result = await session.scalars(select(Room.id).where(and_(*conditions)).limit(100))
            return list(result)

    async def _in_own_transaction(
        self, room_id: str, conditions: list[ColumnElement[bool]], act: Action
    ) -> bool:
        """Lock the room, check ``conditions`` again, ``act``, commit; False if the room is
        no longer a candidate (another node took it, or it changed)."""
        async with self.db.session() as session:
            if session.get_bind().dialect.name == "sqlite":
                # Take SQLite's write lock before reading (see app/store/locks.serialise).
                await session.execute(update(Room).where(Room.id.is_(None)).values(quickplay=True))
            query = select(Room.id).where(Room.id == room_id, *conditions)
            locked = await session.scalar(query.with_for_update(skip_locked=True))
            if locked is None:
                return False
            try:
                acted = await act(session, room_id)
            except (LifecycleError, IntegrityError) as exc:  # changed under us: leave it
                log.info("sweeper left room %s: %s", room_id, getattr(exc, "code", exc))
                await session.rollback()
                return False
            if not acted:
                await session.rollback()
                return False
            await session.commit()
            return True

    @staticmethod
    async def _close(session: AsyncSession, room_id: str) -> bool:
        await lifecycle.close(session, room_id=room_id, reason="idle")
        return True

    def _filler(self, now: datetime) -> Action:
        async def fill(session: AsyncSession, room_id: str) -> bool:
            room = await rooms.get_room(session, room_id=room_id)
            assert room is not None  # locked just now
            due = await quickplay.due(session, room, fill=self.fill)
            if due is None or due > now:
                return False
            await quickplay.fill_and_start(session, room=room)
            return True

        return fill
