"""Deployment marks (``deployment_marks``): facts about the deployment, written by the nodes.

``CLUSTERED``: a node with Redis marks the database at start; a node without Redis that finds the
mark refuses to start (app/cli.py), since it would run tables of its own beside the clustered
nodes' until a unique key pushed one of them off. To take a database back to one node without
Redis, stop every node and delete the mark (docs/DEPLOY.md).
"""

from __future__ import annotations

from sqlalchemy import delete, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from app.store.models import DeploymentMark
from app.store.types import utcnow

CLUSTERED = "clustered"


async def mark(conn: AsyncConnection, *, name: str, value: str) -> None:
    """Set the mark (replacing an older value)."""
    await conn.execute(delete(DeploymentMark).where(DeploymentMark.name == name))
    await conn.execute(insert(DeploymentMark).values(name=name, value=value, marked_at=utcnow()))


async def marked(conn: AsyncConnection, *, name: str) -> str | None:
    """The mark's value, or None when it is not set."""
    row = await conn.execute(select(DeploymentMark.value).where(DeploymentMark.name == name))
    return row.scalar_one_or_none()
