"""Tables open concurrently: a room being loaded does not hold up another room's table (a
tournament round opens dozens at once), and callers asking for the same room share its one
opening. On SQLite and PostgreSQL, with a store whose loading of one room waits on a gate."""

from __future__ import annotations

import asyncio

from app.rooms.clock import FakeClock
from app.rooms.manager import TableManager
from app.rooms.store import SqlGameStore
from app.rooms.table import Table
from app.store import players, rooms
from app.store.db import Database
from app.store.records import RoomInfo
from tests.app.live.conftest import CONFIG


class GatedStore(SqlGameStore):
    def __init__(self, db: Database, gated: str) -> None:
        super().__init__(db)
        self.gated = gated
        self.gate = asyncio.Event()
        self.loads: list[str] = []

    async def load_room(self, room_id: str) -> RoomInfo | None:
        self.loads.append(room_id)
        if room_id == self.gated:
            await self.gate.wait()
        return await super().load_room(room_id)


async def test_rooms_open_side_by_side_and_each_once(database_url: str) -> None:
    db = Database(database_url, secret_key="k")
    try:
        async with db.session() as session, session.begin():
            host = await players.create_player(session, name="Host", token_hash="h" * 64)
            slow = await rooms.create_room(session, code="SLOW23", host_id=host.id, settings={})
            quick = await rooms.create_room(session, code="QUIK23", host_id=host.id, settings={})
            slow_id, quick_id = slow.id, quick.id
        store = GatedStore(db, slow_id)
        manager = TableManager(store, clock=FakeClock(), config=CONFIG)
        first = asyncio.create_task(manager.get(slow_id))
        second = asyncio.create_task(manager.get(slow_id))
        # The slow room's loading is under way and waits: the other room opens meanwhile.
        opened = await asyncio.wait_for(manager.get(quick_id), 10)
        assert isinstance(opened, Table)
        assert not first.done() and not second.done()
        store.gate.set()
        one, other = await asyncio.wait_for(asyncio.gather(first, second), 10)
        assert isinstance(one, Table) and one is other
        assert await manager.get(slow_id) is one
        assert store.loads.count(slow_id) == 1  # one opening for both callers
        assert set(manager.tables) == {slow_id, quick_id}
        await manager.close()
        assert manager.tables == {}
    finally:
        await db.dispose()
