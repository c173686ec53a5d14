"""FastAPI dependencies shared by the routers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

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


def get_hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


SessionDep = Annotated[AsyncSession, Depends(get_session)]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]
LiveDep = Annotated[LiveTables, Depends(get_live)]
HubDep = Annotated[Hub, Depends(get_hub)]
