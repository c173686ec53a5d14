"""FastAPI dependencies shared by the routers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.bus.redis import BusUnavailable
from app.live import LiveTables
from app.rooms.hub import Hub
from app.settings import Settings
from app.store.db import Database


def get_db(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


async def get_session(db: Annotated[Database, Depends(get_db)]) -> AsyncIterator[AsyncSession]:
    async with db.session() as session:
        yield session


def get_app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_live(request: Request) -> LiveTables:
    live: LiveTables = request.app.state.live
    return live


def cluster_reachable(request: Request) -> None:
    """For a call that changes a room and then tells its live table: while this node, one of
    several, cannot reach Redis (``bus.connected`` is False), the table's owner could not be
    told or settled, so the call is refused (503 ``unavailable``) before it changes anything."""
    bus = request.app.state.bus
    if bus is not None and not bus.connected:
        raise BusUnavailable()


NeedsCluster = Depends(cluster_reachable)


def get_hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


SessionDep = Annotated[AsyncSession, Depends(get_session)]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]
LiveDep = Annotated[LiveTables, Depends(get_live)]
HubDep = Annotated[Hub, Depends(get_hub)]
