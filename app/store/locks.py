"""Transaction-scoped locks by name, on every node: writers of one thing take turns.

PostgreSQL takes an advisory lock on the name's hash; SQLite (one writer) takes its write lock.
Either is held until the transaction ends, so what is read after it cannot change before the
commit.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import text, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import Room


async def serialise(session: AsyncSession, key: str) -> None:
    """Hold, until the transaction ends, the lock that orders writers of ``key`` on every node."""
    if session.get_bind().dialect.name == "postgresql":
        number = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big", signed=True)
        await session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": number})
    else:
        # SQLite: a write statement (it changes nothing) takes the database's one write lock, so
        # what is read next cannot change before the commit. Waits in the busy timeout.
        await session.execute(update(Room).where(Room.id.is_(None)).values(quickplay=True))
