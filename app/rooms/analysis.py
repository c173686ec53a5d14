"""Finished deals' analyses: computed once, in the bot worker pool, and kept.

The first request for a deal's analysis claims it (a ``deal_analyses`` row with no body) and
starts the work: the solver and the hard bot's playouts run in a worker process of the node's
``BotRunner`` (``engine.analysis.analyse_stored``), never on the event loop. Until it is stored
every request answers "computing"; once stored, the analysis is served as it is. A failed
computation releases its claim, so that a later request tries again; so does a claim left
``STALE`` (its node stopped while computing).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import Any

from app.players import history
from app.rooms.bots import BotRunner
from app.store import analyses
from app.store.db import Database
from app.store.types import utcnow

log = logging.getLogger(__name__)

DONE, COMPUTING = "done", "computing"
# A claim this old with no analysis is taken for dead (its node stopped while computing): the
# next request computes it again.
STALE = timedelta(minutes=15)
_RUNNING: set[asyncio.Task[None]] = set()  # the computations in flight (kept referenced)


async def deal_analysis(
    db: Database,
    runner: BotRunner,
    *,
    set_id: int,
    number: int,
    max_nodes: int,
    playouts: int,
) -> tuple[str, dict[str, Any] | None]:
    """(``"done"``, the analysis), (``"computing"``, None), or (``"missing"`` / ``"in_play"``,
    None) when there is no such finished deal."""
    async with db.session() as session:
        source = await history.deal_source(session, set_id=set_id, number=number)
        if isinstance(source, str):
            return source, None
        row = await analyses.get(session, deal_id=source.deal_id)
        if row is not None and row.body is not None:
            return DONE, row.body
        if row is not None:
            if utcnow() - row.started_at < STALE:
                return COMPUTING, None
            await analyses.release(session, deal_id=source.deal_id)
            await session.commit()
            session.expunge(row)  # gone: the claim below adds a new one
        if await analyses.claim(session, deal_id=source.deal_id):
            task = asyncio.create_task(_compute(db, runner, source, max_nodes, playouts))
            _RUNNING.add(task)
            task.add_done_callback(_RUNNING.discard)
    return COMPUTING, None


async def _compute(
    db: Database, runner: BotRunner, source: history.DealSource, max_nodes: int, playouts: int
) -> None:
    try:
        body = await runner.analyse(
            source.rules, source.deals, max_nodes=max_nodes, playouts=playouts
        )
    except Exception:
        log.exception("the analysis of deal %s failed", source.deal_id)
        async with db.session() as session:
            await analyses.release(session, deal_id=source.deal_id)
            await session.commit()
        return
    async with db.session() as session:
        await analyses.finish(session, deal_id=source.deal_id, body=body)
        await session.commit()


async def settle() -> None:
    """Wait for the analyses in flight (shutdown, tests)."""
    while _RUNNING:
        await asyncio.gather(*list(_RUNNING), return_exceptions=True)
