"""Tournaments live: the rounds move on as their sets end, and watchers hear it as it happens.

* **Going on.** A tournament table's set ends (app/rooms/store.py stores its result with the
  move that ended it, then tells ``set_ended``): its watchers get ``table_finished`` (the
  tables that end while earlier ones are told are told together, from one view), and
  ``advance`` pairs the next round if every table has its result (app/rooms/tournament_play.py,
  under the tournament's lock, so of two nodes one does it). After the commit the new rooms go
  live (``LiveTables.room_started``: the node that claims a room's lease runs it), the entrants
  get their ``tournament_round`` notifications, and the watchers ``standings`` then
  ``round_started``, or ``tournament_finished``.
* **The sweeper** (every node) calls ``sweep``: a registering tournament whose ``starts_at`` has
  come starts (or is cancelled with too few entrants), and a round whose results are all in but
  which nobody advanced (its node died in between) is advanced.
* **Watchers** (``/ws/tournaments/{id}``): each frame is made once by the node where it
  happened and reaches the watching sockets of every node over the bus (``RelayTournament``);
  without a bus it goes straight to this node's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from datetime import datetime
from typing import Any

from sqlalchemy import select

from app.bus.redis import RedisBus
from app.live import LiveTables
from app.rooms import tournament_play, tournaments
from app.rooms.connection import Connection
from app.rooms.hub import Hub
from app.rooms.protocol import (
    RelayTournament,
    RoundStarted,
    ServerMessage,
    StandingsFrame,
    TableFinished,
    TournamentFinished,
    TournamentFrame,
    dumps,
    relay_dump,
)
from app.rooms.tournament_play import Progress
from app.rooms.tournaments import TournamentRefused
from app.store import tournaments as store
from app.store.db import Database
from app.store.models import Room
from app.store.types import utcnow

log = logging.getLogger(__name__)

View = dict[str, Any]
Render = Callable[[dict[str, Any]], View]  # the service's view -> its JSON body (the API's)


class TournamentRunner:
    def __init__(
        self,
        db: Database,
        live: LiveTables,
        *,
        hub: Hub | None,
        new_code: Callable[[], str],
        render: Render,
    ) -> None:
        self.db = db
        self.live = live
        self.hub = hub
        self.new_code = new_code
        self.render = render
        self.bus: RedisBus | None = None
        self._watchers: dict[int, set[Connection]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._ended: dict[int, list[str]] = {}  # tournament -> its tables ended, not yet told
        self._draining: set[int] = set()  # tournaments whose ended tables are being told

    # --- watchers -------------------------------------------------------------------------------

    async def view(self, tournament_id: int) -> View:
        """The tournament as GET /api/tournaments/{id} answers it (TournamentRefused if none)."""
        async with self.db.session() as session:
            return self.render(await tournaments.view(session, tournament_id=tournament_id))

    async def watch(self, tournament_id: int, conn: Connection) -> bool:
        """The socket watches the tournament: the ``tournament`` frame first. False: none."""
        try:
            view = await self.view(tournament_id)
        except TournamentRefused:
            return False
        self._watchers.setdefault(tournament_id, set()).add(conn)
        conn.send(dumps(TournamentFrame(type="tournament", tournament=view)))
        return True

    def unwatch(self, tournament_id: int, conn: Connection) -> None:
        watching = self._watchers.get(tournament_id)
        if watching is not None:
            watching.discard(conn)
            if not watching:
                del self._watchers[tournament_id]

    def deliver(self, tournament_id: int, text: str) -> None:
        """A frame for this node's sockets watching the tournament."""
        for conn in list(self._watchers.get(tournament_id, ())):
            conn.send(text)

    def publish(self, tournament_id: int, frame: ServerMessage) -> None:
        text = dumps(frame)
        if self.bus is not None:
            self.bus.broadcast(relay_dump(RelayTournament(tournament=tournament_id, text=text)))
        else:
            self.deliver(tournament_id, text)

    async def changed(self, tournament_id: int) -> None:
        """After the commit of an entry, a confirmation, a withdrawal or a cancel (REST): the
        watchers get the tournament as it now is (a ``tournament`` frame)."""
        try:
            view = await self.view(tournament_id)
        except TournamentRefused:
            return
        self.publish(tournament_id, TournamentFrame(type="tournament", tournament=view))

    # --- the rounds -----------------------------------------------------------------------------

    def set_ended(self, tournament_id: int, room_id: str) -> None:
        """app/rooms/store.py: a tournament table's set ended (its result stored)."""
        self._ended.setdefault(tournament_id, []).append(room_id)
        if tournament_id not in self._draining:
            self._draining.add(tournament_id)
            self._spawn(self._tables_done(tournament_id))

    async def _tables_done(self, tournament_id: int) -> None:
        """Tell the tables that ended, then advance; the tables that end meanwhile (a round's
        last ones come in a burst) are told together next, with one view for them all."""
        try:
            while room_ids := self._ended.pop(tournament_id, None):
                try:
                    await self._tell_ended(tournament_id, room_ids)
                    await self.advance(tournament_id)
                except Exception:  # the sweeper advances it later
                    log.exception("tournament %s: the round could not go on", tournament_id)
        finally:
            self._draining.discard(tournament_id)

    async def _tell_ended(self, tournament_id: int, room_ids: list[str]) -> None:
        async with self.db.session() as session:
            query = select(Room.id, Room.code, Room.round).where(Room.id.in_(room_ids))
            found = {row.id: row for row in await session.execute(query)}
        view = await self.view(tournament_id)
        for room_id in room_ids:  # in the order they ended
            if room_id not in found or found[room_id].round is None:
                continue
            code, number = found[room_id].code, found[room_id].round
            tables: list[dict[str, Any]] = next(
                (r["tables"] for r in view["rounds"] if r["number"] == number), []
            )
            table = next((t for t in tables if t["code"] == code), None)
            frame = TableFinished(
                type="table_finished",
                round=number,
                code=code,
                result=None if table is None else table["result"],
                tournament=view,
            )
            self.publish(tournament_id, frame)

    async def advance(self, tournament_id: int) -> Progress | None:
        """Pair and play the next round if it is due (one transaction), then tell."""
        async with self.db.session() as session, session.begin():
            progress = await tournament_play.advance(
                session, tournament_id=tournament_id, new_code=self.new_code
            )
        if progress is not None:
            await self.tell(progress)
        return progress

    async def tell(self, progress: Progress) -> None:
        """After the commit of a start or an advance: the rooms go live, the watchers get what
        happened, and the entrants' notifications are stored and pushed."""
        # Every table of the round at once (each node claims and deals its own concurrently).
        await asyncio.gather(*(self.live.room_started(room_id) for room_id in progress.rooms))
        # A table whose end is not told yet (it ended while the round was being paired) is
        # told first: its watchers hear of every table's end before the next round.
        ended = self._ended.pop(progress.tournament_id, None)
        if ended:
            await self._tell_ended(progress.tournament_id, ended)
        await self._frames(progress)
        try:
            async with self.db.session() as session, session.begin():
                notices = await tournament_play.notify_round(session, progress=progress)
        except Exception:  # the round is live and its watchers told: a lost notice is no more
            log.exception("tournament %s: round notifications", progress.tournament_id)
            return
        if self.hub is not None:
            for notice in notices:
                self.hub.notify(notice)

    async def _frames(self, progress: Progress) -> None:
        tid = progress.tournament_id
        view = await self.view(tid)
        if progress.finished_round is not None and not progress.finished:
            self.publish(
                tid, StandingsFrame(type="standings", standings=view["standings"], tournament=view)
            )
        if progress.finished:
            self.publish(
                tid,
                TournamentFinished(
                    type="tournament_finished", standings=view["standings"], tournament=view
                ),
            )
        for number in progress.rounds:
            tables: list[dict[str, Any]] = next(
                (r["tables"] for r in view["rounds"] if r["number"] == number), []
            )
            self.publish(
                tid,
                RoundStarted(
                    type="round_started",
                    round=number,
                    tables=[{"code": t["code"], "seats": t["seats"]} for t in tables],
                    tournament=view,
                ),
            )
        if not progress.rooms and not progress.finished and progress.finished_round is None:
            # cancelled at its start (too few entrants): the view says so
            self.publish(tid, TournamentFrame(type="tournament", tournament=view))

    async def sweep(self, now: datetime | None = None) -> list[int]:
        """Start the tournaments due, advance the rounds left waiting; the ids it acted on."""
        now = now or utcnow()
        acted: list[int] = []
        async with self.db.session() as session:
            due = await store.due_to_start(session, now=now)
            waiting = await store.waiting_to_advance(session)
        for tournament_id in due:
            try:
                async with self.db.session() as session, session.begin():
                    progress = await tournaments.start_due(
                        session, tournament_id=tournament_id, new_code=self.new_code, now=now
                    )
                if progress is not None:
                    acted.append(tournament_id)
                    await self.tell(progress)
            except Exception:  # one tournament's trouble must not hold up the others
                log.exception("tournament %s: could not start", tournament_id)
        for tournament_id in waiting:
            try:
                if await self.advance(tournament_id) is not None:
                    acted.append(tournament_id)
            except Exception:
                log.exception("tournament %s: the round could not go on", tournament_id)
        return acted

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def idle(self) -> None:
        """Return once the work started so far (a table's end told to the watchers, the next
        round) is done."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def aclose(self) -> None:
        """This node stops: its watchers reconnect elsewhere (``bye`` ``draining``)."""
        for task in list(self._tasks):
            task.cancel()
        for watching in list(self._watchers.values()):
            for conn in list(watching):
                conn.send_away("draining")
