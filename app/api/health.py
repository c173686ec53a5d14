"""Health: ``/livez`` (the process runs), ``/readyz`` (it can take traffic) and ``/api/health``
(the detailed report for people).

* ``GET /livez`` never touches the database or Redis: a node that is busy, or whose database is
  down, is alive, and restarting it would not help. 200 while the event loop answers.
* ``GET /readyz``: the database and a configured Redis answer within ``READY_TIMEOUT``, the
  node's bus listens to Redis (it resubscribes after Redis restarts; until then the node cannot
  relay) and the node is not draining; else 503. Load balancers and ``depends_on`` use it.
* ``GET /api/health``: the same checks, reported one by one.

The database counts as up when it answers and its schema is at the migrations' head: an empty
or older database answers ``SELECT 1`` but fails every call (``Database.ping`` logs the cause).

The database is checked on a connection of its own (``Database.ping``), never one of the pool
the tables and the lobby queue for, so a node busy with game traffic still answers promptly.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.api.errors import error_responses
from app.api.schemas import HealthOut, ProbeOut
from app.errors import error_body

router = APIRouter(tags=["health"])
probes = APIRouter(tags=["health"])  # at the root, where orchestrators look for them

READY_TIMEOUT = 2.0  # a check that hangs is worse than one that says "error"


async def _ping(check: Any) -> str:
    try:
        ok = await asyncio.wait_for(check(), timeout=READY_TIMEOUT)
    except Exception:
        return "error"
    return "ok" if ok else "error"


async def _checks(request: Request) -> tuple[str, str]:
    redis_client = request.app.state.redis
    bus = request.app.state.bus

    async def redis() -> str:
        if redis_client is None:
            return "disabled"
        if bus is not None and not bus.connected:
            return "error"
        return await _ping(redis_client.ping)

    database, redis_state = await asyncio.gather(_ping(request.app.state.db.ping), redis())
    return database, redis_state


def _down(request: Request, database: str, redis: str) -> str | None:
    """What is down, for people: None when nothing is."""
    down = []
    if database == "error":
        problem = request.app.state.db.problem
        down.append(f"database ({problem})" if problem else "database")
    if redis == "error":
        down.append("redis")
    return f"unreachable: {', '.join(down)}" if down else None


@probes.get("/livez", response_model=ProbeOut, summary="The process runs")
async def livez(request: Request) -> ProbeOut:
    return ProbeOut(status="ok", node=request.app.state.node_id)


@probes.get(
    "/readyz",
    response_model=ProbeOut,
    responses=error_responses(503, description="Draining, or the database or Redis is down"),
    summary="The node takes traffic",
)
async def readyz(request: Request) -> JSONResponse:
    node = request.app.state.node_id
    if request.app.state.draining:
        body = {"status": "draining", "node": node}
        body |= error_body("draining", "this node is shutting down")
        return JSONResponse(body, status_code=503)
    down = _down(request, *await _checks(request))
    if down:
        body = {"status": "error", "node": node}
        body |= error_body("unavailable", down)
        return JSONResponse(body, status_code=503)
    return JSONResponse({"status": "ok", "node": node})


@router.get(
    "/health",
    response_model=HealthOut,
    responses=error_responses(503, description="The database or a configured Redis is down"),
)
async def health(request: Request) -> JSONResponse:
    database, redis = await _checks(request)
    down = _down(request, database, redis)
    body: dict[str, Any] = {
        "status": "error" if down else "ok",
        "database": database,
        "redis": redis,
        "node": request.app.state.node_id,
    }
    if down:
        body |= error_body("unavailable", down)
    return JSONResponse(body, status_code=503 if down else 200)
