"""Prometheus metrics of one node, defined in one place.

Each app has its own :class:`Metrics` (``app.state.metrics``, made in ``create_app``); the live
tables report through its small API::

    METRICS = app.state.metrics

    METRICS.table_opened()                      # a table actor started on this node
    METRICS.table_closed()                      # ... and stopped (or was handed over)
    METRICS.connection_opened("seat")           # a socket joined as a seat or a "spectator"
    METRICS.connection_closed("seat")
    METRICS.record_move("player", latency=dt)   # dt: seconds from receiving the play to its
    METRICS.record_move("bot")                  #     broadcast; auto-plays count as autoplays too
    METRICS.record_move("auto")
    METRICS.record_reconnect()                  # a client resumed its seat after a disconnect
    METRICS.record_lease_takeover()             # this node took over a table another node owned
    task = METRICS.start_loop_lag_monitor()     # in the lifespan; cancel the task at shutdown
                                                # (it also times the cycle collector's pauses)

The service itself reports through the same object: ``MetricsMiddleware`` (HTTP requests by
route and status, WebSocket closes by code and side), ``record_ws_refusal(code)`` (the endpoint),
``watch_database(db)`` (pool connections in use and waiting, read at each scrape) and
``start_redis_probe(client)`` (Redis round trips), all wired in ``create_app``.

The collectors themselves are attributes too (``METRICS.moves_total`` ...) for anything the
helpers do not cover. Every :class:`Metrics` has its own ``CollectorRegistry``, so several apps
in one process (the tests) never share counters; ``GET /metrics`` renders the app's own.
Exported names carry the
``gaple_`` prefix: ``gaple_tables_live``, ``gaple_moves_total`` ... (docs/DEPLOY.md lists them).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib.metadata
import logging
import platform
import time
from collections.abc import Iterator
from typing import Any, Literal, get_args

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import choose_encoder
from prometheus_client.registry import Collector
from starlette.routing import Mount

log = logging.getLogger(__name__)

# The *_created series (one per counter and histogram) only say when the process started; the
# process collector already does. Leaving them out saves a series per counter and histogram.
disable_created_metrics()  # type: ignore[no-untyped-call]

NAMESPACE = "gaple"

Role = Literal["seat", "spectator"]
MoveKind = Literal["player", "auto", "bot"]
ROLES: tuple[str, ...] = get_args(Role)
MOVE_KINDS: tuple[str, ...] = get_args(MoveKind)

# A move travels: socket -> table actor -> store commit -> broadcast. On one node that is a few
# milliseconds; relayed through Redis a few more. The buckets resolve 1-100 ms and catch stragglers.
MOVE_LATENCY_BUCKETS = (
    0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.25, 0.5, 1.0,
)  # fmt: skip
# The cycle collector stops everything while it runs: a young collection takes milliseconds, a
# full one on a heap of many sockets can take a large fraction of a second.
GC_PAUSE_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
# How late a 1 s timer fires: ~0 on an idle loop, tens of ms under load, seconds when blocked.
LOOP_LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
HTTP_LATENCY_BUCKETS = (0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
REDIS_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
REDIS_PROBE_INTERVAL = 5.0


class Metrics:
    """The collectors of one node, registered in a registry of their own."""

    def __init__(self, *, process: bool = True) -> None:
        """``process``: also export the process, Python platform and GC collectors (CPU, memory,
        open files, ...), as the default Prometheus registry would."""
        self.registry = CollectorRegistry(auto_describe=True)
        reg = self.registry
        ns = NAMESPACE
        self.tables_live = Gauge(
            "tables_live", "Live tables whose actor runs on this node", namespace=ns, registry=reg
        )
        self.connections = Gauge(
            "connections",
            "Open table WebSockets on this node, by role",
            ["role"],
            namespace=ns,
            registry=reg,
        )
        self.moves_total = Counter(
            "moves_total",
            "Moves applied by the tables of this node, by who made them",
            ["kind"],
            namespace=ns,
            registry=reg,
        )
        self.move_latency_seconds = Histogram(
            "move_latency_seconds",
            "Time from receiving a player's play to broadcasting it",
            buckets=MOVE_LATENCY_BUCKETS,
            namespace=ns,
            registry=reg,
        )
        self.autoplays_total = Counter(
            "autoplays_total",
            "Moves the server made for a player whose turn clock ran out",
            namespace=ns,
            registry=reg,
        )
        self.reconnects_total = Counter(
            "reconnects_total",
            "Clients that came back to their table after a disconnect",
            namespace=ns,
            registry=reg,
        )
        self.lease_takeovers_total = Counter(
            "lease_takeovers_total",
            "Tables this node took over from another node (failover or hand-over)",
            namespace=ns,
            registry=reg,
        )
        self.event_loop_lag_seconds = Histogram(
            "event_loop_lag_seconds",
            "How late the event loop woke a timer, sampled every second",
            buckets=LOOP_LAG_BUCKETS,
            namespace=ns,
            registry=reg,
        )
        self.http_requests_total = Counter(
            "http_requests_total",
            "HTTP requests answered, by method, route template and status (errors: 4xx, 5xx)",
            ["method", "route", "status"],
            namespace=ns,
            registry=reg,
        )
        self.http_request_duration_seconds = Histogram(
            "http_request_duration_seconds",
            "Time to answer an HTTP request, by route template",
            ["route"],
            buckets=HTTP_LATENCY_BUCKETS,
            namespace=ns,
            registry=reg,
        )
        self.ws_refusals_total = Counter(
            "ws_refusals_total",
            "Table sockets the server refused or closed for cause, by error code",
            ["code"],
            namespace=ns,
            registry=reg,
        )
        self.ws_closes_total = Counter(
            "ws_closes_total",
            "Table sockets closed, by close code and by which side closed first",
            ["code", "by"],
            namespace=ns,
            registry=reg,
        )
        self.redis_roundtrip_seconds = Histogram(
            "redis_roundtrip_seconds",
            "Round trip of a PING to Redis, sampled every few seconds",
            buckets=REDIS_LATENCY_BUCKETS,
            namespace=ns,
            registry=reg,
        )
        self.build_info = Gauge(
            "build_info",
            "Always 1; the labels say which build runs (engine: compiled or python)",
            ["version", "python", "engine"],
            namespace=ns,
            registry=reg,
        )
        self.build_info.labels(
            version=_version(), python=platform.python_version(), engine=engine_build()
        ).set(1)
        self._pools: _PoolCollector | None = None
        self.gc_pause_seconds = Histogram(
            "gc_pause_seconds",
            "How long the cycle collector stopped the process, by generation collected",
            ["generation"],
            buckets=GC_PAUSE_BUCKETS,
            namespace=ns,
            registry=reg,
        )
        self._gc_started: float | None = None
        # Every labelled series exists from the start (at 0), so dashboards and rate() see it.
        for generation in ("0", "1", "2"):
            self.gc_pause_seconds.labels(generation=generation)
        for role in ROLES:
            self.connections.labels(role=role)
        for kind in MOVE_KINDS:
            self.moves_total.labels(kind=kind)
        if process:
            self._add_process_collectors()

    def _add_process_collectors(self) -> None:
        # What the default registry has: process_* (from /proc; nothing elsewhere), python_info,
        # python_gc_*. One that cannot work here must not take /metrics down with it.
        for collector in (ProcessCollector, PlatformCollector, GCCollector):
            try:
                collector(registry=self.registry)
            except Exception:
                log.warning("metrics: %s unavailable", collector.__name__, exc_info=True)

    # --- the API of the live layer ----------------------------------------------------------------

    def table_opened(self) -> None:
        self.tables_live.inc()

    def table_closed(self) -> None:
        self.tables_live.dec()

    def connection_opened(self, role: Role) -> None:
        self.connections.labels(role=_check(role, ROLES, "role")).inc()

    def connection_closed(self, role: Role) -> None:
        self.connections.labels(role=_check(role, ROLES, "role")).dec()

    @contextlib.contextmanager
    def connection(self, role: Role) -> Iterator[None]:
        """``with METRICS.connection("seat"): ...`` counts the socket while the block runs."""
        self.connection_opened(role)
        try:
            yield
        finally:
            self.connection_closed(role)

    def record_move(self, kind: MoveKind, *, latency: float | None = None) -> None:
        """A move was applied and broadcast. ``kind``: "player" (from a socket), "auto" (the turn
        clock ran out: also counts in autoplays_total) or "bot". ``latency``: seconds from
        receiving the play to its broadcast (player moves; others have no "received")."""
        self.moves_total.labels(kind=_check(kind, MOVE_KINDS, "kind")).inc()
        if kind == "auto":
            self.autoplays_total.inc()
        if latency is not None:
            self.move_latency_seconds.observe(max(latency, 0.0))

    def record_reconnect(self) -> None:
        self.reconnects_total.inc()

    def record_lease_takeover(self) -> None:
        self.lease_takeovers_total.inc()

    def start_loop_lag_monitor(self, interval: float = 1.0) -> asyncio.Task[None]:
        """Sample the event loop's lag every ``interval`` seconds into event_loop_lag_seconds,
        and time every pause of the cycle collector into gc_pause_seconds, until the returned
        task is cancelled. Call it from inside the running loop."""
        if interval <= 0:
            raise ValueError("interval must be positive")
        return asyncio.get_running_loop().create_task(
            self._sample_loop_lag(interval), name="gaple-loop-lag-monitor"
        )

    async def _sample_loop_lag(self, interval: float) -> None:
        loop = asyncio.get_running_loop()
        gc.callbacks.append(self._time_gc)  # process-wide: removed when the monitor stops
        try:
            while True:
                started = loop.time()
                await asyncio.sleep(interval)
                # A busy loop (a blocking call, a long computation) wakes the sleep late.
                self.event_loop_lag_seconds.observe(max(0.0, loop.time() - started - interval))
        finally:
            gc.callbacks.remove(self._time_gc)

    def _time_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        elif self._gc_started is not None:
            pause = time.perf_counter() - self._gc_started
            self._gc_started = None
            self.gc_pause_seconds.labels(generation=str(info["generation"])).observe(pause)

    # --- the service ------------------------------------------------------------------------------

    def record_http(self, method: str, route: str, status: int, seconds: float) -> None:
        self.http_requests_total.labels(method=method, route=route, status=str(status)).inc()
        self.http_request_duration_seconds.labels(route=route).observe(seconds)

    def record_ws_refusal(self, code: str) -> None:
        self.ws_refusals_total.labels(code=code).inc()

    def record_ws_close(self, code: int, *, by: Literal["server", "client"]) -> None:
        self.ws_closes_total.labels(code=str(code), by=by).inc()

    def watch_database(self, db: Any) -> None:
        """Export the connection pools of ``db`` (an app.store.db.Database): connections in use,
        idle, and requests waiting for one, read at each scrape."""
        if self._pools is None:
            self._pools = _PoolCollector()
            self.registry.register(self._pools)
        self._pools.db = db

    def start_redis_probe(
        self, client: Any, interval: float = REDIS_PROBE_INTERVAL
    ) -> asyncio.Task[None]:
        """PING ``client`` every ``interval`` seconds into redis_roundtrip_seconds, until the
        returned task is cancelled (a failed ping is not a round trip: it is left out)."""

        async def probe() -> None:
            while True:
                started = time.perf_counter()
                try:
                    await asyncio.wait_for(client.ping(), timeout=2.0)
                except Exception:
                    pass
                else:
                    self.redis_roundtrip_seconds.observe(time.perf_counter() - started)
                await asyncio.sleep(interval)

        return asyncio.get_running_loop().create_task(probe(), name="gaple-redis-probe")

    # --- exposition -------------------------------------------------------------------------------

    def render(self, accept: str | None = None) -> tuple[bytes, str]:
        """The registry as ``(body, content type)``: the Prometheus text format 0.0.4, or what the
        scraper's ``Accept`` header asks for (OpenMetrics, text format 1.0.0)."""
        encoder, content_type = choose_encoder(accept or "")
        return encoder(self.registry), content_type


def engine_build() -> Literal["compiled", "python"]:
    """``compiled`` when the engine's hot path was loaded from mypyc's extension modules (a
    ``GAPLE_COMPILE=1`` wheel, the Docker image), else ``python``."""
    import engine.tiles  # one of the compiled modules (pyproject.toml [tool.gaple] compiled)

    return "python" if engine.tiles.__file__.endswith(".py") else "compiled"


def _version() -> str:
    try:
        return importlib.metadata.version("gaple-online")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout that is not installed
        return "unknown"


class _PoolCollector(Collector):
    """gaple_db_pool_connections{pool, state="in_use"|"idle"} and gaple_db_pool_waiting{pool},
    for the main, history and probe pools of a Database (each engine once)."""

    def __init__(self) -> None:
        self.db: Any = None

    def describe(self) -> list[Metric]:
        return []  # the series depend on the database: nothing to check at registration

    def collect(self) -> Iterator[Metric]:
        connections = GaugeMetricFamily(
            f"{NAMESPACE}_db_pool_connections",
            "Database connections of this node's pools, in use or idle",
            labels=["pool", "state"],
        )
        waiting = GaugeMetricFamily(
            f"{NAMESPACE}_db_pool_waiting",
            "Requests waiting for a connection of the pool (all of them in use)",
            labels=["pool"],
        )
        db = self.db
        if db is not None:
            names: dict[int, str] = {}  # an engine that plays two parts is named for the first
            for engine, name in (
                (db.engine, "main"),
                (db.history_engine, "history"),
                (db.probe_engine, "probe"),
            ):
                names.setdefault(id(engine), name)
            for engine in db.engines:
                name = names[id(engine)]
                pool = engine.sync_engine.pool
                in_use = _call(pool, "checkedout")
                idle = _call(pool, "checkedin")
                connections.add_metric([name, "in_use"], in_use)
                connections.add_metric([name, "idle"], idle)
                waiting.add_metric([name], _waiters(pool))
        yield connections
        yield waiting


def _call(pool: Any, name: str) -> float:
    method = getattr(pool, name, None)  # StaticPool, NullPool: no such counts
    return float(method()) if callable(method) else 0.0


def _waiters(pool: Any) -> float:
    # SQLAlchemy counts no waiters: an async pool's queue is an asyncio.Queue (created on first
    # use) whose getters are the coroutines waiting for a connection.
    queue = vars(getattr(pool, "_pool", None) or object()).get("_queue")
    getters = getattr(queue, "_getters", None)
    return float(sum(1 for waiter in getters if not waiter.done())) if getters else 0.0


def _check(value: str, allowed: tuple[str, ...], label: str) -> str:
    # A typo in a label value would silently start a new series; refuse it instead.
    if value not in allowed:
        raise ValueError(f"unknown {label} {value!r} (expected one of {', '.join(allowed)})")
    return value


class MetricsMiddleware:
    """ASGI middleware: every HTTP answer by method, route template and status (an unmatched
    path is ``route="unmatched"``, so scanners cannot mint series), and every table socket's
    close by code and by who closed first. Reads ``app.state.metrics`` per request."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Any, receive: Any, send: Any) -> None:
        status = 500  # what the client gets if the app raises before it answers
        started = time.perf_counter()

        async def sending(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            metrics: Metrics = scope["app"].state.metrics
            route = _route(scope)
            metrics.record_http(scope["method"], route, status, time.perf_counter() - started)

    async def _websocket(self, scope: Any, receive: Any, send: Any) -> None:
        closed = False

        async def sending(message: Any) -> None:
            nonlocal closed
            if message["type"] == "websocket.close" and not closed:
                closed = True
                scope["app"].state.metrics.record_ws_close(message.get("code", 1000), by="server")
            await send(message)

        async def receiving() -> Any:
            nonlocal closed
            message = await receive()
            if message["type"] == "websocket.disconnect" and not closed:
                closed = True
                scope["app"].state.metrics.record_ws_close(message.get("code", 1005), by="client")
            return message

        await self.app(scope, receiving, sending)


def _route(scope: Any) -> str:
    """The matched route's template (``/api/rooms/{code}``), rebuilt from the request path and
    its path parameters (routers nest, so no one route object knows its full template)."""
    route = scope.get("route")
    if route is None:
        return "unmatched"
    if isinstance(route, Mount):
        return f"{route.path}/{{path}}"
    segments = str(scope.get("path", "")).split("/")
    for name, value in scope.get("path_params", {}).items():
        for index in range(len(segments) - 1, -1, -1):
            if segments[index] == str(value):
                segments[index] = f"{{{name}}}"
                break
    return "/".join(segments)
