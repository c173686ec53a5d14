"""create_app(): the ASGI application and its lifespan wiring."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from app.api import admin as admin_api
from app.api import analysis as analysis_api
from app.api import api_router, health
from app.api import club_moderation as club_moderation_api
from app.api import moderation as moderation_api
from app.api import records as records_api
from app.api import sets as history_api
from app.api.auth import document_bans
from app.api.bodies import BodyCap
from app.api.errors import install_error_handlers
from app.api.lobby import new_room_code
from app.api.openapi import install_openapi, operation_id
from app.api.ratelimit import Limiter, document_rate_limits
from app.api.schemas import TournamentOut
from app.bus.redis import RedisBus
from app.clients import trust_proxy_headers
from app.live import LiveTables, NullLiveTables
from app.metrics import Metrics, MetricsMiddleware
from app.players.sessions import Logins
from app.rooms.bots import close_shared_runner, configure_shared_runner
from app.rooms.clock import SystemClock
from app.rooms.cluster import Cluster
from app.rooms.hub import Hub
from app.rooms.manager import TableManager
from app.rooms.store import SqlGameStore
from app.rooms.sweeper import Sweeper
from app.rooms.table import TableConfig
from app.rooms.tournament_live import TournamentRunner
from app.settings import Settings, get_settings
from app.store import migrate
from app.store.db import Database
from app.ws.endpoint import router as ws_router
from app.ws.limits import SocketCap
from app.ws.me import router as me_router
from app.ws.routing import App
from app.ws.tournaments import router as tournaments_router

log = logging.getLogger("gaple")


def client_dir() -> Path:
    """The browser client: app/static in an installed wheel (setup.py copies it there), else
    static/ at the top of the checkout."""
    here = Path(__file__).resolve().parent
    installed = here / "static"
    return installed if installed.is_dir() else here.parent / "static"


STATIC_DIR = client_dir()

LiveFactory = Callable[[FastAPI], Any]

_PLACEHOLDER = """<!doctype html><meta charset="utf-8"><title>Gaple Online</title>
<h1>Gaple Online</h1><p>The server is running; the browser client (static/index.html) is not
installed. The API is documented at <a href="/docs">/docs</a>.</p>"""


def create_app(
    settings: Settings | None = None, *, live_factory: LiveFactory | None = None
) -> FastAPI:
    """Build the app. ``live_factory(app)`` is called in the lifespan once the database is ready
    and returns the LiveTables implementation; if it has ``async start()`` / ``async aclose()``
    they are awaited at startup / shutdown."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.migrate_on_start:
            # env.py runs its own event loop, so it needs a thread of its own.
            await asyncio.to_thread(migrate.upgrade, settings.database_url)
        app.state.db = Database(settings.database_url, secret_key=settings.secret)
        app.state.logins = Logins(app.state.db, secret_key=settings.secret)
        app.state.redis = _redis_client(settings.redis_url)
        app.state.hub = hub = Hub(app.state.db, node_id=app.state.node_id)
        app.state.limiter = Limiter.for_settings(settings, redis=app.state.redis)
        metrics: Metrics = app.state.metrics
        metrics.watch_database(app.state.db)
        redis_probe = (
            None if app.state.redis is None else metrics.start_redis_probe(app.state.redis)
        )
        live = (live_factory or table_manager)(app)
        app.state.live = live
        app.state.tournaments = runner = TournamentRunner(
            app.state.db,
            live_tables(app),
            hub=hub,
            new_code=new_room_code,
            render=render_tournament,
        )
        _wire_tournaments(live, runner)
        app.state.sweeper = sweeper = Sweeper(app.state.db, live_tables(app), settings, hub)
        sweeper.tournaments = runner
        try:
            if hasattr(live, "start"):
                await live.start()
            await hub.start()
            sweeper.start()
            yield
        finally:
            await drain(app)  # done already when a signal started the shutdown (app/cli.py)
            if redis_probe is not None:
                redis_probe.cancel()
            await app.state.limiter.aclose()
            await close_shared_runner()
            if app.state.redis is not None:
                await app.state.redis.aclose()
            await app.state.db.dispose()

    app = App(
        socket_routes=[*ws_router.routes, *me_router.routes, *tournaments_router.routes],
        title="Gaple Online",
        summary="Real-time multiplayer Gaple (Indonesian dominoes)",
        version="0.1.0",
        lifespan=lifespan,
        generate_unique_id_function=operation_id,
    )
    app.state.settings = settings
    app.state.draining = False
    app.state.drain_task = None
    app.state.sweeper = None
    app.state.node_id = uuid.uuid4().hex[:12]
    app.state.metrics = Metrics()
    app.state.live = NullLiveTables()  # replaced in the lifespan; typed as LiveTables
    app.state.redis = None
    app.state.bus = None
    app.state.logins = None  # the sockets' tokens (app/players/sessions.py), made in the lifespan
    app.state.hub = None  # the players' own sockets (app/rooms/hub.py), made in the lifespan
    app.state.tournaments = None  # tournaments live (app/rooms/tournament_live.py), likewise
    app.state.sockets = SocketCap(settings.max_sockets_per_address)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.allowed_origins,
        allow_methods=["GET", "POST", "PATCH", "DELETE"],
        allow_headers=["Authorization", "Content-Type"],
    )
    trust_proxy_headers(app, settings)
    app.add_middleware(BodyCap, max_bytes=settings.max_body_bytes)
    app.add_middleware(MetricsMiddleware)  # outermost of ours: sees every answer's status
    install_error_handlers(app)
    app.include_router(api_router)
    app.include_router(health.probes)
    app.include_router(history_api.router, prefix="/api")
    app.include_router(analysis_api.router, prefix="/api")
    app.include_router(records_api.router, prefix="/api")
    admin = bool(settings.operators)
    if admin:  # without an operator the admin API and its page are absent, not refused
        app.include_router(admin_api.router, prefix="/api")
        app.include_router(moderation_api.router, prefix="/api")
        app.include_router(club_moderation_api.admin_router, prefix="/api")
    document_rate_limits(app)
    document_bans(app)
    _mount_client(app, STATIC_DIR, admin=admin)
    install_openapi(app)
    return app


async def drain(app: FastAPI, *, grace: float = 0.0) -> None:
    """Take this node out of service while it still serves: ``/readyz`` answers 503 and new
    table sockets are refused (503, so a proxy tries another node); the live tables stop taking
    tables, store what is in flight, hand every table over and send their clients away (``bye``
    ``draining``, close 1012). ``grace``: seconds to keep answering "draining" afterwards, so a
    load balancer notices before the server stops listening. Idempotent: later calls wait for
    the first."""
    if app.state.drain_task is None:
        app.state.draining = True
        app.state.drain_task = asyncio.get_running_loop().create_task(_drain(app, grace))
    await asyncio.shield(app.state.drain_task)


async def _drain(app: FastAPI, grace: float) -> None:
    live = app.state.live
    log.info("draining: handing the live tables over")
    if app.state.sweeper is not None:
        await app.state.sweeper.aclose()  # it would start or close tables on a node going away
    if app.state.hub is not None:
        await app.state.hub.aclose()  # /ws/me sockets reconnect elsewhere
    if app.state.tournaments is not None:
        await app.state.tournaments.aclose()  # so do the tournaments' watchers
    if hasattr(live, "aclose"):
        await live.aclose()
    if grace > 0:
        await asyncio.sleep(grace)
    log.info("drained")


def table_manager(app: FastAPI) -> TableManager:
    """The live tables of this node, on the real clock, storing moves in the app's database."""
    settings: Settings = app.state.settings
    config = TableConfig.from_settings(settings)
    configure_shared_runner(settings.bot_workers)  # hard bots think in these processes
    hub: Hub = app.state.hub
    store = SqlGameStore(app.state.db, bot_fill=settings.quickplay_bot_fill_seconds)
    manager = TableManager(
        store, clock=SystemClock(), config=config, metrics=app.state.metrics, notices=hub
    )
    if settings.redis_url:
        from redis.asyncio import Redis

        bus = RedisBus(
            Redis.from_url(settings.redis_url, socket_connect_timeout=2, retry=_redis_retry()),
            prefix=settings.redis_prefix,
            node_id=app.state.node_id,
            lease_ttl=settings.lease_ttl_seconds,
        )
        cluster = Cluster(manager, bus, check_interval=settings.cluster_check_seconds)
        cluster.hub = hub
        hub.use_bus(bus, ttl=settings.lease_ttl_seconds, interval=settings.cluster_check_seconds)
        manager.cluster = cluster
        app.state.bus = bus  # /readyz: not ready while the bus cannot listen
    return manager


def render_tournament(view: dict[str, Any]) -> dict[str, Any]:
    """A tournament's view as GET /api/tournaments/{id} answers it: the socket's frames carry
    the very same body."""
    return TournamentOut.model_validate(view).model_dump(mode="json")


def _wire_tournaments(live: Any, runner: TournamentRunner) -> None:
    """The live tables' store tells the runner when a tournament table's set ends; the cluster
    brings it the frames other nodes publish."""
    store = getattr(live, "store", None)
    if isinstance(store, SqlGameStore):
        store.on_tournament_set = runner.set_ended
    cluster = getattr(live, "cluster", None)
    if isinstance(cluster, Cluster):
        cluster.tournaments = runner
        runner.bus = cluster.bus


def _redis_client(url: str | None) -> Any:
    if url is None:
        return None
    from redis.asyncio import Redis

    return Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2, retry=_redis_retry())


def _redis_retry() -> Any:
    """Once more, on a new connection: after Redis restarted, the first command on each pooled
    connection finds it closed (redis-py's clients from a URL do not retry at all), and that
    would refuse a call although Redis is back."""
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    return Retry(NoBackoff(), retries=1)


def _mount_client(app: FastAPI, static_dir: Path, *, admin: bool) -> None:
    """The browser client: index.html for / and share links (/r/{code}, /replay/{set_id},
    /p/{player_id}, /leaderboard, the rules page /aturan, the tournaments /turnamen and
    /turnamen/{id}, the clubs /klub and /klub/{id}; the operators' /admin when the admin API is
    on), assets under /static."""
    index = static_dir / "index.html"

    async def client_page() -> Any:
        # Checked per request so a client added while the server runs is picked up.
        if index.is_file():
            return FileResponse(index, media_type="text/html")
        return HTMLResponse(_PLACEHOLDER)

    app.add_api_route("/", client_page, methods=["GET"], include_in_schema=False)
    app.add_api_route("/r/{code}", client_page, methods=["GET"], include_in_schema=False)
    app.add_api_route("/replay/{set_id}", client_page, methods=["GET"], include_in_schema=False)
    app.add_api_route("/p/{player_id}", client_page, methods=["GET"], include_in_schema=False)
    app.add_api_route("/leaderboard", client_page, methods=["GET"], include_in_schema=False)
    if admin:
        app.add_api_route("/admin", client_page, methods=["GET"], include_in_schema=False)
    app.add_api_route("/aturan", client_page, methods=["GET"], include_in_schema=False)
    app.add_api_route("/turnamen", client_page, methods=["GET"], include_in_schema=False)
    app.add_api_route(
        "/turnamen/{tournament_id}", client_page, methods=["GET"], include_in_schema=False
    )
    app.add_api_route("/klub", client_page, methods=["GET"], include_in_schema=False)
    app.add_api_route("/klub/{club_id}", client_page, methods=["GET"], include_in_schema=False)
    if static_dir.is_dir():
        app.mount("/static", StaticFiles(directory=static_dir), name="static")


def live_tables(app: FastAPI) -> LiveTables:
    """Typed access for other modules: ``live_tables(app).seats_changed(...)``."""
    live: LiveTables = app.state.live
    return live
