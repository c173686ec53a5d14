"""A node without Redis refuses to start on a database that nodes with Redis use."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import delete

from app.store.db import create_engine
from app.store.models import DeploymentMark
from tests.app.live.server import ServerProcess

pytestmark = pytest.mark.parametrize("database_url", ["postgres"], indirect=True)


async def test_a_node_without_redis_refuses_a_clustered_database(
    database_url: str, redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    clustered = ServerProcess(
        database_url,
        tmp_path / "clustered",
        GAPLE_REDIS_URL=redis_url,
        GAPLE_REDIS_PREFIX=redis_prefix,
    )
    alone = ServerProcess(database_url, tmp_path / "alone")
    await asyncio.to_thread(clustered.start)
    try:
        with pytest.raises(RuntimeError, match="exited early"):
            await asyncio.to_thread(alone.start)
    finally:
        await asyncio.to_thread(clustered.stop)
        await asyncio.to_thread(alone.stop)  # in case it did start
    assert alone.process is not None and alone.process.returncode == 1
    lines = alone.log().strip().splitlines()
    assert lines[-1] == (
        "gaple: this database is used by nodes with Redis (GAPLE_REDIS_URL, key prefix "
        f"{redis_prefix!r}); set GAPLE_REDIS_URL to their Redis, or see docs/DEPLOY.md to take "
        "the database back to nodes without Redis"
    )
    assert "Traceback" not in alone.log()
    # Once the mark is deleted (every clustered node stopped), the node starts.
    engine = create_engine(database_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(delete(DeploymentMark))
    finally:
        await engine.dispose()
    try:
        await asyncio.to_thread(alone.start)
    finally:
        await asyncio.to_thread(alone.stop)
