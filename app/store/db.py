"""Engine and session setup shared by the REST API, the live tables and the tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)


def create_engine(url: str, **kwargs: Any) -> AsyncEngine:
    """An async engine; SQLite gets foreign keys and a busy timeout (it has neither by default)."""
    if url.startswith("sqlite"):
        kwargs.setdefault("connect_args", {"timeout": 30})
    engine = create_async_engine(url, **kwargs)
    if url.startswith("sqlite"):
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    # WAL lets the lobby read while a table appends moves; the embedded server has both at once.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()


class Database:
    """One engine plus a session factory.

    Sessions carry the app's secret key in ``session.info["secret_key"]`` so code that only has a
    session (``authenticate_token``) can check a token without a global.
    """

    def __init__(self, url: str, *, secret_key: str, **engine_kwargs: Any) -> None:
        self.url = url
        self.engine = create_engine(url, **engine_kwargs)
        self.sessionmaker = async_sessionmaker(
            self.engine, expire_on_commit=False, info={"secret_key": secret_key}
        )

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """``async with db.session() as s:`` — rolled back on error, closed at the end."""
        async with self.sessionmaker() as session:
            yield session

    async def ping(self) -> bool:
        try:
            async with self.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
        except Exception:
            return False
        return True

    async def dispose(self) -> None:
        await self.engine.dispose()
