"""Abuse limits per client address: rate limits on the REST calls that create or move things,
and the cap on WebSockets held at once.

* ``client_address(conn)`` (app/clients.py) is the one answer to "who is this": the socket cap
  and every rate limit count against it.
* ``Depends(rate_limit("guests"))`` on a route spends one unit of the caller's budget for that
  name (the setting ``GAPLE_RATE_GUESTS``), or answers 429 ``rate_limited`` with Retry-After.
* ``await limiter_of(request).hit("login_user", rate, key)`` is the same for any key (e.g. a
  user name) with any rate.

The counting is done by the ``limits`` package (moving window): in this process's memory on
one node, in Redis (under ``GAPLE_REDIS_PREFIX``) when ``GAPLE_REDIS_URL`` is set, so that every
node spends from the same budget.

When that Redis cannot be reached, a limited call is refused ``503`` ``unavailable`` (with
Retry-After) before it changes anything: the budget is shared, so no node can tell on its own
whether the caller has spent it, and letting every call through for as long as Redis is down
would make an outage a window for floods. Reads are never limited, so they keep working —
but for the lookup of a player by username, which would otherwise list every account.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any

from fastapi import FastAPI, Request
from fastapi.routing import APIRoute
from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError
from starlette.requests import HTTPConnection
from starlette.routing import BaseRoute

from app.api.errors import ERROR_SCHEMA, ApiError, Unavailable
from app.clients import client_address
from app.logs import FailureLog
from app.settings import Settings

log = logging.getLogger(__name__)


class RateLimited(ApiError):
    status, code = 429, "rate_limited"


@lru_cache(maxsize=64)
def parse_rate(text: str) -> tuple[RateLimitItem, ...]:
    """``"100/hour;10/minute"`` -> its parts, every one of which must hold."""
    return tuple(parse_many(text))


class Limiter:
    """Counts hits per (name, key) in a ``limits`` storage."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._strategy = MovingWindowRateLimiter(storage)
        # An outage fails every limited call: one line when it starts, one when it ends.
        self._failures = FailureLog(log, "rate limits", time.monotonic)

    @classmethod
    def for_settings(cls, settings: Settings, *, redis: Any = None) -> Limiter:
        """In memory, or in Redis over ``redis``'s connection pool (the app's own client,
        closed by the app) when the app runs with Redis."""
        if redis is None or settings.redis_url is None:
            return cls(MemoryStorage())
        storage = RedisStorage(
            "async+" + settings.redis_url,
            implementation="redispy",
            key_prefix=f"{settings.redis_prefix}ratelimit",
            connection_pool=redis.connection_pool,
            wrap_exceptions=True,  # Redis' errors as limits' StorageError: see hit()
        )
        return cls(storage)

    async def hit(self, name: str, rate: str, key: str) -> None:
        """Spend one unit of ``key``'s budget for ``name``; raises RateLimited (with the seconds
        until a unit comes back) when any part of ``rate`` is used up. A refused call spends
        nothing of the part that refused it. Raises Unavailable when the storage (Redis) cannot
        be reached."""
        try:
            retry = await self._refused(name, rate, key)
        except StorageError as exc:
            self._failures.failed("counting", exc.storage_error)
            raise Unavailable(
                "the rate limits cannot be counted (Redis is unreachable); try again in a moment"
            ) from exc
        self._failures.ok("counting")
        if retry is not None:
            raise RateLimited(
                f"too many requests; try again in {retry} s", headers={"Retry-After": str(retry)}
            )

    async def _refused(self, name: str, rate: str, key: str) -> int | None:
        """Spend a unit of every part of ``rate`` up to the first that refuses; the seconds
        until that one gives a unit back, or None when none refused."""
        for item in parse_rate(rate):
            if not await self._strategy.hit(item, name, key):
                stats = await self._strategy.get_window_stats(item, name, key)
                return max(1, math.ceil(stats.reset_time - time.time()))
        return None

    async def aclose(self) -> None:
        if isinstance(self.storage, MemoryStorage) and self.storage.timer is not None:
            # Its expiry sweep is a task of the app's event loop; don't leave it behind.
            self.storage.timer.cancel()


def limiter_of(conn: HTTPConnection) -> Limiter:
    limiter: Limiter = conn.app.state.limiter
    return limiter


def rate_limit(name: str) -> Callable[[Request], Awaitable[None]]:
    """A dependency: ``dependencies=[Depends(rate_limit("rooms"))]`` limits the route to
    ``GAPLE_RATE_ROOMS`` calls per client address. ``name`` must have a ``rate_<name>``
    setting; a typo fails at import, not at the first request."""
    field = f"rate_{name}"
    if field not in Settings.model_fields:
        raise ValueError(f"no setting {field!r} for the rate limit {name!r}")

    async def check_rate(request: Request) -> None:
        settings: Settings = request.app.state.settings
        await limiter_of(request).hit(name, getattr(settings, field), client_address(request))

    check_rate.rate_setting = field  # type: ignore[attr-defined]  # found by document_rate_limits
    return check_rate


def document_rate_limits(app: FastAPI) -> None:
    """Add the 429 answer to the OpenAPI description of every route that has a rate limit."""
    for route in _api_routes(app.routes):
        fields = [getattr(dep.call, "rate_setting", None) for dep in route.dependant.dependencies]
        for field in filter(None, fields):
            route.responses.setdefault(429, _limited_response(field))


def _api_routes(routes: Iterable[BaseRoute]) -> Iterator[APIRoute]:
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        # An included router: recent FastAPI keeps it whole, with its own routes.
        elif (included := getattr(route, "original_router", None)) is not None:
            yield from _api_routes(included.routes)


def _limited_response(field: str) -> dict[str, Any]:
    setting = "GAPLE_" + field.upper()
    return {
        "description": f"Too many calls from this address (`{setting}`); wait Retry-After s",
        "content": {"application/json": {"schema": ERROR_SCHEMA}},
        "headers": {
            "Retry-After": {
                "description": "Seconds until the next call is allowed",
                "schema": {"type": "integer"},
            }
        },
    }
