"""The live tables of one node: finds or creates a room's actor, and rebuilds them after a restart.

Implements app.live.LiveTables, the lobby's way of telling live tables what changed. Without Redis
every table lives here. With Redis a table lives on the node holding its lease (``cluster``, an
app.rooms.placement.Placement), and ``get`` returns a relay to that node when it is not this one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Literal

from app.live import TableSummary
from app.logs import FailureLog
from app.metrics import Metrics
from app.rooms.clock import Clock
from app.rooms.connection import Connection
from app.rooms.placement import Placement, Relay
from app.rooms.state import TableConfig
from app.rooms.store import GameStore
from app.rooms.table import Notices, Table

log = logging.getLogger(__name__)


class TableManager:
    def __init__(
        self,
        store: GameStore,
        *,
        clock: Clock,
        config: TableConfig,
        cluster: Placement | None = None,
        metrics: Metrics | None = None,
        notices: Notices | None = None,
    ) -> None:
        self.store = store
        self.notices = notices  # presence and turn notices (app/rooms/hub.py)
        self.clock = clock
        self.config = config
        self.cluster = cluster
        self.tables: dict[str, Table] = {}
        # Rooms being opened (loaded, claimed, restored): each once, many at a time.
        self._opening: dict[str, asyncio.Task[Table | Relay | None]] = {}
        self._closing = False
        self._restorer: asyncio.Task[None] | None = None
        self.metrics = metrics or Metrics(process=False)
        self._lag_monitor: asyncio.Task[None] | None = None
        # The cluster's watch retries restores every second: one line per room and outage.
        self._restore_failures = FailureLog(log, "tables", time.monotonic)
        self._releasing: set[asyncio.Task[None]] = set()  # leases of retired tables

    async def get(self, room_id: str) -> Table | Relay | None:
        """The room's table: its actor here (created and restored from storage on first use), or,
        when another node owns it, a relay to that node. None for an unknown room."""
        table = self.tables.get(room_id)
        if table is not None or self._closing:
            return table
        # A tournament round's tables open together: rooms do not wait for each other's loading,
        # and callers asking for the same room share its one opening.
        opening = self._opening.get(room_id)
        if opening is None:
            opening = asyncio.get_running_loop().create_task(self._open(room_id))
            self._opening[room_id] = opening
            opening.add_done_callback(lambda _: self._opened(room_id, opening))
        return await asyncio.shield(opening)

    def _opened(self, room_id: str, opening: asyncio.Task[Table | Relay | None]) -> None:
        if self._opening.get(room_id) is opening:
            del self._opening[room_id]
        if not opening.cancelled():
            opening.exception()  # its callers got it; a caller gone meanwhile is no loss

    async def _open(self, room_id: str) -> Table | Relay | None:
        table = self.tables.get(room_id)
        if table is not None or self._closing:
            return table
        room = await self.store.load_room(room_id)
        if room is None:
            return None
        if self.cluster is not None:
            owner = await self.cluster.claim(room_id)
            if owner is not None:
                return self.cluster.relay(room_id, owner)
        table = Table(
            room,
            store=self.store,
            clock=self.clock,
            config=self.config,
            on_lost=self._forget,
            on_retired=self._retired,
            metrics=self.metrics,
            notices=self.notices,
        )
        try:
            await table.restore()
        except Exception:
            if self.cluster is not None:
                await self.cluster.hand_over(room_id)
            raise
        table.start()
        self.tables[room_id] = table
        self.metrics.table_opened()
        if self.cluster is not None:
            self.cluster.took_over(room_id)
            if room.status == "playing":
                self.metrics.record_lease_takeover()
        return table

    def _forget(self, table: Table) -> None:
        if self.tables.get(table.room.id) is table:
            del self.tables[table.room.id]
            self.metrics.table_closed()

    def _retired(self, table: Table) -> None:
        """A closed or abandoned table whose last socket is gone: forget it and give up its
        lease, so that neither memory nor the lease outlives the room."""
        if self.tables.get(table.room.id) is not table:
            return
        self._forget(table)
        log.info("table %s: over, and nobody is left; freed", table.room.code)
        if self.cluster is not None:
            task = asyncio.get_running_loop().create_task(self.cluster.hand_over(table.room.id))
            self._releasing.add(task)
            task.add_done_callback(self._releasing.discard)

    async def drop(self, room_id: str, *, lost: bool) -> None:
        """Stop running a table here (``lost``: another node has it; send our clients there)."""
        table = self.tables.pop(room_id, None)
        if table is not None:
            self.metrics.table_closed()
            await table.stop(lost=lost)

    async def start(self) -> None:
        """Restore the tables in play; if the database is down, keep trying in the background
        (the server still starts, and /api/health reports the outage)."""
        self._lag_monitor = self.metrics.start_loop_lag_monitor()
        if self.cluster is not None:
            await self.cluster.start()
        try:
            await self.restore_all()
        except Exception:
            log.exception("could not restore live tables; retrying in the background")
            self._restorer = asyncio.get_running_loop().create_task(self._keep_restoring())

    async def _keep_restoring(self) -> None:
        delay = 1.0
        while not self._closing:
            await asyncio.sleep(delay)
            try:
                await self.restore_all()
                return
            except Exception:
                log.warning("still cannot restore live tables", exc_info=True)
                delay = min(delay * 2, 30.0)

    async def restore_all(self) -> int:
        """Bring back every table in play that no node is running (after a restart, or after
        the node that ran it died)."""
        room_ids = [r for r in await self.store.playing_room_ids() if r not in self.tables]
        if self.cluster is not None and room_ids:
            room_ids = await self.cluster.unowned(room_ids)
        restored = 0
        for room_id in room_ids:
            try:
                if isinstance(await self.get(room_id), Table):
                    restored += 1
            except Exception as exc:
                self._restore_failures.failed(f"restoring room {room_id}", exc)
            else:
                self._restore_failures.ok(f"restoring room {room_id}")
        if restored:
            log.info("restored %d live tables", restored)
        return restored

    async def aclose(self) -> None:
        for task in (self._restorer, self._lag_monitor):
            if task is not None:
                task.cancel()
        await self.close()

    async def close(self) -> None:
        """Stop taking tables, store what is in flight, hand every table over, and send the
        clients away to reconnect (to another node, or to this one once it is back)."""
        self._closing = True
        # Rooms being opened finish first, so that their tables are stopped with the others.
        await asyncio.gather(*list(self._opening.values()), return_exceptions=True)
        tables = list(self.tables.items())
        self.tables.clear()
        for _ in tables:
            self.metrics.table_closed()
        for room_id, table in tables:
            await table.stop()
            if self.cluster is not None:
                await self.cluster.hand_over(room_id)
        for _, table in tables:
            for conn in list(table.conns.values()):
                conn.send_away("draining")
        if self.cluster is not None:
            await self.cluster.close()
        for _, table in tables:
            for conn in list(table.conns.values()):
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.wait_closed(), 2)

    # --- app.live.LiveTables ----------------------------------------------------------------------

    async def room_started(self, room_id: str) -> None:
        await self._room_changed(room_id, started=True, create=True)

    async def seats_changed(self, room_id: str) -> None:
        await self._room_changed(room_id, started=False, create=False)

    async def _room_changed(self, room_id: str, *, started: bool, create: bool) -> None:
        table: Table | Relay | None = self.tables.get(room_id)
        if table is None and self.cluster is not None:
            table = await self.cluster.find_relay(room_id)
        if table is None and create:
            # Opened by this call, the table read the room after the change was committed: that
            # reading serves (an opening already under way may have read it before).
            fresh = room_id not in self._opening
            table = await self.get(room_id)
            if fresh and isinstance(table, Table):
                await table.room_changed(started=started, read=table.room)
                return
        if table is not None:
            await table.room_changed(started=started)

    async def room_closed(self, room_id: str, reason: str) -> None:
        """The room is closed (committed): every socket, here or relayed from another node, gets
        ``bye`` ``room_closed``; the table stops playing. No table anywhere: nothing to do."""
        log.info("room %s closed (%s)", room_id, reason)
        table: Table | Relay | None = self.tables.get(room_id)
        if table is None and self.cluster is not None:
            table = await self.cluster.find_relay(room_id)
        if table is not None:
            await table.room_closed()

    async def player_removed(self, room_id: str, player_id: str) -> None:
        """An operator took the player off the room (stored): their sockets at its table, here
        or on the owner node, get ``bye`` ``removed``; the table reloads the room."""
        log.info("room %s: player %s removed", room_id, player_id)
        table: Table | Relay | None = self.tables.get(room_id)
        if table is None and self.cluster is not None:
            table = await self.cluster.find_relay(room_id)
        if table is not None:
            await table.send_player_away(player_id, "removed")

    async def player_banned(self, player_id: str) -> None:
        """An operator banned the player (stored): every socket of theirs, at any table on any
        node, gets ``bye`` ``banned``. New sockets are refused at ``hello`` (app/ws/endpoint.py)."""
        await self.send_player_away_here(player_id, "banned")
        if self.cluster is not None:
            self.cluster.player_banned(player_id)

    async def player_muted(self, player_id: str, until: float | None) -> None:
        """An operator muted the player or lifted it (stored): every table where the player has a
        socket, on any node, knows at once (a spectator's too; a seat's room carries it as well)."""
        await self.mute_changed_here(player_id, until)
        if self.cluster is not None:
            self.cluster.player_muted(player_id, until)

    async def mute_changed_here(self, player_id: str, until: float | None) -> None:
        for table in list(self.tables.values()):
            if table.has_player(player_id):
                await table.mute_changed(player_id, until)

    async def send_player_away_here(
        self, player_id: str, reason: Literal["removed", "banned"]
    ) -> None:
        """The player's sockets at the tables this node runs (relayed ones included)."""
        for table in list(self.tables.values()):
            if table.has_player(player_id):
                await table.send_player_away(player_id, reason)

    async def spectator_counts(self, room_ids: list[str]) -> dict[str, int]:
        counts = {r: self.tables[r].spectators for r in room_ids if r in self.tables}
        elsewhere = [r for r in room_ids if r not in counts]
        if elsewhere and self.cluster is not None:
            counts.update(await self.cluster.spectators(elsewhere))
        return counts

    def tables_here(self) -> list[TableSummary]:
        return [table.summary() for table in list(self.tables.values())]

    def connections(self) -> list[Connection]:
        return [conn for table in self.tables.values() for conn in table.conns.values()]
