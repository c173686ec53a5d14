"""The live tables of one node: finds or creates a room's actor, and rebuilds them after a restart.

Implements app.live.LiveTables, the lobby's way of telling live tables what changed.
"""

from __future__ import annotations

import asyncio
import logging

from app.rooms.clock import Clock
from app.rooms.connection import Connection
from app.rooms.store import GameStore
from app.rooms.table import Table, TableConfig

log = logging.getLogger(__name__)


class TableManager:
    def __init__(
        self, store: GameStore, *, clock: Clock, config: TableConfig | None = None
    ) -> None:
        self.store = store
        self.clock = clock
        self.config = config or TableConfig()
        self.tables: dict[str, Table] = {}
        self._lock = asyncio.Lock()
        self._closing = False
        self._restorer: asyncio.Task[None] | None = None

    async def get(self, room_id: str) -> Table | None:
        """The room's actor, created (and restored from storage) on first use."""
        table = self.tables.get(room_id)
        if table is not None:
            return table
        async with self._lock:
            table = self.tables.get(room_id)
            if table is not None or self._closing:
                return table
            room = await self.store.load_room(room_id)
            if room is None:
                return None
            table = Table(room, store=self.store, clock=self.clock, config=self.config)
            await table.restore()
            table.start()
            self.tables[room_id] = table
            return table

    async def start(self) -> None:
        """Restore the tables in play; if the database is down, keep trying in the background
        (the server still starts, and /api/health reports the outage)."""
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

    async def aclose(self) -> None:
        if self._restorer is not None:
            self._restorer.cancel()
        await self.close()

    async def restore_all(self) -> int:
        """Bring back every table that was in play when the server last stopped."""
        room_ids = await self.store.playing_room_ids()
        for room_id in room_ids:
            try:
                await self.get(room_id)
            except Exception:
                log.exception("could not restore room %s", room_id)
        if room_ids:
            log.info("restored %d live tables", len(room_ids))
        return len(room_ids)

    async def close(self) -> None:
        self._closing = True
        tables = list(self.tables.values())
        for table in tables:
            for conn in list(table.conns):
                conn.shutdown(1001, "server shutting down")
        for table in tables:
            await table.stop()
        for table in tables:
            for conn in list(table.conns):
                await conn.wait_closed()
        self.tables.clear()

    # --- app.live.LiveTables ----------------------------------------------------------------------

    async def room_started(self, room_id: str) -> None:
        table = await self.get(room_id)
        if table is not None:
            await table.room_changed(started=True)

    async def seats_changed(self, room_id: str) -> None:
        table = self.tables.get(room_id)
        if table is not None:
            await table.room_changed(started=False)

    def spectator_count(self, room_id: str) -> int:
        table = self.tables.get(room_id)
        return table.spectators if table is not None else 0

    def connections(self) -> list[Connection]:
        return [conn for table in self.tables.values() for conn in table.conns]
