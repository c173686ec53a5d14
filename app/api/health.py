"""GET /api/health: is the database reachable, and Redis if one is configured."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.api.errors import error_body
from app.api.schemas import HealthOut

router = APIRouter(tags=["health"])

PING_TIMEOUT = 2.0  # a health check that hangs is worse than one that says "error"


async def _ping(check: Any) -> str:
    try:
        ok = await asyncio.wait_for(check(), timeout=PING_TIMEOUT)
    except Exception:
        return "error"
    return "ok" if ok else "error"


@router.get(
    "/health",
    response_model=HealthOut,
    responses={503: {"description": "The database or a configured Redis is down"}},
)
async def health(request: Request) -> JSONResponse:
    database = await _ping(request.app.state.db.ping)
    redis_client = request.app.state.redis
    redis = "disabled" if redis_client is None else await _ping(redis_client.ping)
    healthy = database == "ok" and redis != "error"
    body: dict[str, Any] = {
        "status": "ok" if healthy else "error",
        "database": database,
        "redis": redis,
        "node": request.app.state.node_id,
    }
    if not healthy:
        down = [
            name for name, state in (("database", database), ("redis", redis)) if state == "error"
        ]
        body |= error_body("unavailable", f"unreachable: {', '.join(down)}")
    return JSONResponse(body, status_code=200 if healthy else 503)
