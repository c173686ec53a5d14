"""The ``gaple`` command: ``gaple serve`` and ``gaple migrate``."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING

from pydantic import ValidationError

if TYPE_CHECKING:
    from app.settings import Settings


def _settings() -> Settings:
    from app.settings import get_settings

    try:
        return get_settings()
    except ValidationError as exc:
        # Fail fast and readably (e.g. production without a secret key).
        messages = "; ".join(err["msg"].removeprefix("Value error, ") for err in exc.errors())
        sys.exit(f"gaple: bad settings: {messages}")


def cmd_migrate(_args: argparse.Namespace) -> int:
    from app.store import migrate

    settings = _settings()
    migrate.upgrade(settings.database_url)
    print("gaple: database is at the latest migration")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.store import migrate

    settings = _settings()
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if settings.migrate_on_start:
        # The embedded SQLite default migrates itself; production runs `gaple migrate` first.
        migrate.upgrade(settings.database_url)
    print(f"gaple: serving on http://{args.host}:{args.port}  (API docs: /docs)", flush=True)
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        proxy_headers=settings.production,
        # The transport drops frames far above the limit (close 1009); frames just above it
        # reach the endpoint, which answers with a clear frame_too_large error first.
        ws_max_size=settings.max_ws_frame_bytes * 16,
        ws_per_message_deflate=False,
    )
    return 0


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
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
