"""Alembic environment (async).

The URL comes from, in order: ``config.attributes["url"]`` (set by app/store/migrate.py),
``-x url=...``, ``sqlalchemy.url`` in alembic.ini, then the app's Settings.
"""

from __future__ import annotations

import asyncio
from logging.config import fileConfig

from alembic import context
from sqlalchemy.engine import Connection

from app.store.db import create_engine
from app.store.models import Base

config = context.config
target_metadata = Base.metadata

# Programmatic runs (gaple migrate, the app's startup, tests) keep the app's logging as it is.
if config.config_file_name is not None and not config.attributes.get("embedded"):
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def _url() -> str:
    url = config.attributes.get("url") or context.get_x_argument(as_dictionary=True).get("url")
    url = url or config.get_main_option("sqlalchemy.url")
    if not url:
        from app.settings import Settings

        url = Settings().database_url
    return str(url)


def _configure(connection: Connection | None = None, url: str | None = None) -> None:
    is_sqlite = (url or "").startswith("sqlite") or (
        connection is not None and connection.dialect.name == "sqlite"
    )
    context.configure(
        connection=connection,
        url=url,
        target_metadata=target_metadata,
        compare_type=True,
        # SQLite can't ALTER most things; batch mode copies the table instead.
        render_as_batch=is_sqlite,
        literal_binds=connection is None,
        render_item=_render_item,
    )


def _render_item(type_: str, obj: object, autogen_context: object) -> str | bool:
    # Migrations must not import app types: render UTCDateTime as the column type it wraps.
    from app.store.types import UTCDateTime

    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def run_migrations_offline() -> None:
    _configure(url=_url())
    with context.begin_transaction():
        context.run_migrations()


def _run_sync(connection: Connection) -> None:
    _configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()


async def run_migrations_online() -> None:
    url = _url()
    if url.startswith("sqlite"):
        from pathlib import Path

        from sqlalchemy.engine import make_url

        database = make_url(url).database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            sqlite = connection.dialect.name == "sqlite"
            if sqlite:
                # Batch mode copies a table and drops the old one; with foreign keys on, dropping
                # a parent (rooms) deletes its children by cascade (seats, the game history).
                # SQLite's own recipe for schema changes: keys off (only outside a transaction),
                # change, check, keys on again.
                await connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            await connection.run_sync(_run_sync)
            if sqlite:
                broken = (await connection.exec_driver_sql("PRAGMA foreign_key_check")).all()
                if broken:
                    await connection.rollback()
                    raise RuntimeError(f"migration broke foreign keys: {broken[:5]}")
            await connection.commit()
            if sqlite:
                await connection.exec_driver_sql("PRAGMA foreign_keys=ON")
    finally:
        await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    asyncio.run(run_migrations_online())
