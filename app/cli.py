"""The ``gaple`` command: ``gaple serve``, ``gaple migrate`` and ``gaple fairplay``."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import socket
import sys
from types import FrameType
from typing import TYPE_CHECKING

from pydantic import ValidationError
from uvicorn import config as uvicorn_config
from uvicorn import server as uvicorn_server

if TYPE_CHECKING:
    from fastapi import FastAPI

    from app.settings import Settings

log = logging.getLogger("gaple")


def _settings(*, server: bool = True) -> Settings:
    import secrets

    from pydantic import SecretStr

    from app.settings import Settings, get_settings

    try:
        if not server:
            # The secret key keys guest tokens, which only a serving node checks: a migration
            # (often run from a job that holds only the database URL) must not need it.
            return Settings(secret_key=SecretStr(secrets.token_hex(32)))  # never used
        return get_settings()
    except ValidationError as exc:
        # Fail fast and readably (e.g. production without a secret key).
        messages = "; ".join(err["msg"].removeprefix("Value error, ") for err in exc.errors())
        sys.exit(f"gaple: bad settings: {messages}")


def cmd_migrate(_args: argparse.Namespace) -> int:

    settings = _settings(server=False)
    _upgrade(settings.database_url)
    print("gaple: database is at the latest migration")
    return 0


def cmd_fairplay(args: argparse.Namespace) -> int:
    """Screen the stored rated sets for collusion (docs/FAIRPLAY.md): one line per flagged pair,
    or ``--json``. Reads only; moderators decide."""
    import json
    from dataclasses import asdict
    from datetime import timedelta

    from app.players import fairplay, screening
    from app.store.db import Database
    from app.store.types import utcnow

    settings = _settings(server=False)

    async def load() -> list[screening.RatedSet]:
        db = Database(settings.database_url, secret_key=settings.secret)
        try:
            async with db.session() as session:
                since = utcnow() - timedelta(days=args.days)
                return await fairplay.rated_sets(session, mode=args.mode, since=since)
        finally:
            await db.dispose()

    found = screening.screen(asyncio.run(load()), alpha=args.alpha, min_shared=args.min_shared)
    if args.json:
        print(json.dumps(asdict(found), indent=2))
        return 0
    print(
        f"gaple fairplay: {found.sets} rated {args.mode} sets, {found.players} players, "
        f"{found.pairs_tested} pairs tested (p < {found.threshold:.2g}): {len(found.flags)} flagged"
    )
    for flag in found.flags:
        alone = flag.a_sets - flag.shared
        print(
            f"{flag.kind}: {flag.player_id} gained from {flag.partner_id}: met {flag.shared} times"
            f" (chance: {flag.expected_shared}, p={flag.p_shared:.2g}); wins with/without"
            f" {flag.a_wins_with}/{flag.shared} vs {flag.a_wins_without}/{alone}"
            f" (p={flag.p_lift:.2g}); partner last with/without {flag.b_last_with}/{flag.shared} vs"
            f" {flag.b_last_without}/{flag.b_sets - flag.shared} (p={flag.p_throw:.2g});"
            f" sets {', '.join(str(s) for s in flag.set_ids)}"
        )
    for pair in found.shared_address:
        print(
            f"shared address: {pair.player_id} and {pair.partner_id} sat at {pair.sets} rated"
            f" sets from one address; sets {', '.join(str(s) for s in pair.set_ids)}"
        )
    return 0


def _upgrade(url: str) -> None:
    """Migrate, or stop with one line that says why (an unreachable host, a wrong password, a
    missing database): the cause is all an operator needs; the stack trace is not."""
    from sqlalchemy.engine import make_url

    from app.store import migrate

    try:
        migrate.upgrade(url)
    except Exception as exc:
        where = make_url(url).render_as_string(hide_password=True)
        sys.exit(f"gaple: cannot migrate the database at {where}: {_reason(exc)}")


def _reason(exc: BaseException) -> str:
    """The first line of what went wrong, naming the error's type when its text alone is bare."""
    orig = getattr(exc, "orig", None)  # SQLAlchemy wraps the driver's error
    cause = orig if isinstance(orig, BaseException) else exc
    text = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {text[0]}" if text else type(cause).__name__


def cmd_serve(args: argparse.Namespace) -> int:
    limit_malloc_arenas()
    import uvicorn

    from app import logs
    from app.main import create_app
    from app.ws.transport import WebSocketProtocol

    settings = _settings()
    app = create_app(settings)
    assert settings.log_format is not None  # filled by the settings' validator
    logs.configure(
        log_format=settings.log_format,
        level=args.log_level,
        node=app.state.node_id,
        secrets=[
            settings.secret,
            _password(settings.database_url),
            settings.redis_url,
            settings.admin_token.get_secret_value() if settings.admin_token else None,
        ],
    )
    if settings.migrate_on_start:
        # The embedded SQLite default migrates itself; production runs `gaple migrate` first.
        _upgrade(settings.database_url)
    refusal = asyncio.run(_check_deployment(settings))
    if refusal is not None:
        sys.exit(f"gaple: {refusal}")
    print(f"gaple: serving on http://{args.host}:{args.port}  (API docs: /docs)", flush=True)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        log_config=None,  # app/logs.py formats uvicorn's records with everyone else's
        proxy_headers=settings.production,
        # The transport drops frames far above the limit (close 1009); frames just above it
        # reach the endpoint, which answers with a clear frame_too_large error first.
        ws_max_size=settings.max_ws_frame_bytes * 16,
        ws_per_message_deflate=False,
        ws=WebSocketProtocol,  # app/ws/transport.py
    )
    server = DrainingServer(config, app, grace=settings.drain_grace_seconds)
    config.load()  # import and build the app now, so that tune_gc() can set it aside
    tune_gc()
    server.run()
    return 0


async def _check_deployment(settings: Settings) -> str | None:
    """A node with Redis marks the database clustered; a node without Redis refuses to start on
    a clustered database (it would run tables of its own beside the others'). Why not, in one
    line, or None. A database not migrated yet is left to /readyz, which says so."""
    from sqlalchemy import inspect as sqlalchemy_inspect

    from app.store import deployment
    from app.store.db import create_engine

    engine = create_engine(settings.database_url)
    try:
        async with engine.begin() as conn:
            if not await conn.run_sync(
                lambda sync: sqlalchemy_inspect(sync).has_table("deployment_marks")
            ):
                return None
            if settings.redis_url:
                await deployment.mark(conn, name=deployment.CLUSTERED, value=settings.redis_prefix)
                return None
            prefix = await deployment.marked(conn, name=deployment.CLUSTERED)
    except Exception as exc:  # unreachable: the node starts and /readyz reports it
        log.warning("could not check the deployment marks: %s", type(exc).__name__)
        return None
    finally:
        await engine.dispose()
    if prefix is None:
        return None
    return (
        "this database is used by nodes with Redis (GAPLE_REDIS_URL, key prefix "
        f"{prefix!r}); set GAPLE_REDIS_URL to their Redis, or see docs/DEPLOY.md to take the "
        "database back to nodes without Redis"
    )


def _password(url: str) -> str | None:
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).password
    except Exception:
        return None


class DrainingServer(uvicorn_server.Server):
    """uvicorn, but SIGTERM (or Ctrl-C) drains the app *before* uvicorn stops.

    uvicorn's own shutdown closes every WebSocket (1012, no message) before the app's lifespan
    shutdown runs, so the ``bye`` ``draining`` of the drain would never reach anyone. Here the
    first signal starts ``app.main.drain`` while the server still runs; when it is done the
    server stops as usual. A second signal stops it at once (a third forces it, as uvicorn's).
    """

    def __init__(self, config: uvicorn_config.Config, app: FastAPI, *, grace: float) -> None:
        super().__init__(config)
        self.app = app
        self.grace = grace
        self._loop: asyncio.AbstractEventLoop | None = None
        self._draining: asyncio.Task[None] | None = None

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self._draining is None and self._loop is not None and self.started:
            self._captured_signals.append(sig)  # re-raised at the end, as uvicorn does
            self._loop.call_soon_threadsafe(self._start_drain)
            return
        super().handle_exit(sig, frame)

    def _start_drain(self) -> None:
        if self._draining is None:
            self._draining = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        from app.main import drain

        try:
            await drain(self.app, grace=self.grace)
        except Exception:
            logging.getLogger("gaple").exception("drain failed; stopping anyway")
        finally:
            self.should_exit = True


# Allocations (net of frees) between young collections; CPython's default is 700.
GC_YOUNG_THRESHOLD = 50_000


def tune_gc() -> None:
    """Keep the cycle collector's pauses short on a server holding thousands of sockets.

    A full collection walks every tracked object: with 4,000 sockets that is ~900,000 objects
    and 0.6-0.9 s during which no table moves. Two things make full collections rarer and
    smaller: what exists once the app is built (modules, classes, the app itself, ~100,000
    objects that are never garbage) is frozen out of every collection, and a larger young
    generation gives a move's short-lived objects (futures, frames, records in flight across a
    commit) time to die before they are promoted, since promotions are what trigger full
    collections. Reference counting, which frees almost everything, is not affected.
    """
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, older, oldest)


# glibc malloc arenas a serving process may use (M_ARENA_MAX; glibc's default is 8 per core).
MALLOC_ARENAS = 2
_M_ARENA_MAX = -8  # mallopt's parameter number (malloc.h)


def limit_malloc_arenas() -> None:
    """Keep C allocations of the server's threads in ``MALLOC_ARENAS`` arenas.

    Every thread that mallocs (aiosqlite runs one per database connection, the default executor
    up to six, libuv its workers) gets an arena of its own under glibc's default, and each arena
    keeps the memory it touched: about 10 MB of a node's RSS at 1,000 tables (bench/run.py,
    docs/PERFORMANCE.md). Those threads mostly wait on I/O, so they hardly contend for an
    arena. Set before any thread starts; ``MALLOC_ARENA_MAX`` in the environment (read by glibc
    itself) wins, and a C library other than glibc is left alone.
    """
    if "MALLOC_ARENA_MAX" in os.environ or not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return
    mallopt(_M_ARENA_MAX, MALLOC_ARENAS)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gaple", description="Gaple Online server")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the server (settings from GAPLE_* variables)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    serve.set_defaults(func=cmd_serve)
    migrate = sub.add_parser("migrate", help="upgrade the database to the latest migration")
    migrate.set_defaults(func=cmd_migrate)
    from app.players import screening
    from app.presets import MODES

    fair = sub.add_parser("fairplay", help="screen rated sets for collusion (docs/FAIRPLAY.md)")
    fair.add_argument("--mode", choices=MODES, default="tunggal")
    fair.add_argument("--days", type=float, default=90.0, help="sets ended this many days back")
    fair.add_argument("--alpha", type=float, default=screening.ALPHA)
    fair.add_argument("--min-shared", type=int, default=screening.MIN_SHARED, dest="min_shared")
    fair.add_argument("--json", action="store_true", help="the whole screening as JSON")
    fair.set_defaults(func=cmd_fairplay)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
