"""Engine and session setup shared by the REST API, the live tables and the tests."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import Dialect, Table, event, insert, inspect, make_url, text
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)


def create_engine(url: str, **kwargs: Any) -> AsyncEngine:
    """An async engine; SQLite gets foreign keys and a busy timeout (it has neither by default).

    Statement parameters include password and token hashes, so they stay out of logs and error
    messages: SQLAlchemy hides them, and the SQLite driver's DEBUG log (every statement with its
    parameters) is held at INFO even when the service logs at DEBUG."""
    kwargs.setdefault("hide_parameters", True)
    if url.startswith("sqlite"):
        kwargs.setdefault("connect_args", {"timeout": 30})
        logging.getLogger("aiosqlite").setLevel(logging.INFO)
    engine = create_async_engine(url, **kwargs)
    if url.startswith("sqlite"):
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    # WAL lets the lobby read while a table appends moves; the embedded server has both at once.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()


async def insert_rows(conn: AsyncConnection, table: Table, rows: list[dict[str, Any]]) -> None:
    """``INSERT`` of ``rows`` (dicts with the same keys) into ``table``, in the connection's
    transaction.

    On SQLite, aiosqlite runs every driver call in its own thread and waits for the answer: a
    cursor, the statement, closing the cursor are each a trip there and back, and on a
    human-paced move those trips are most of the commit's CPU. So the rows go through the
    driver's ``executemany`` in one trip: the statement is SQLAlchemy's own, compiled once per
    table and columns, and the values pass through the columns' types as SQLAlchemy would bind
    them. Driver errors come back as SQLAlchemy's (``IntegrityError`` for a duplicate key). On
    other databases it is ``conn.execute(insert(table), rows)``."""
    if not rows:
        return
    if conn.dialect.name != "sqlite":
        await conn.execute(insert(table), rows)
        return
    sql, values = _sqlite_values(conn.dialect, table, rows)
    driver = await _driver(conn)
    try:
        await driver.executemany(sql, values)
    except sqlite3.Error as exc:
        raise _driver_error(sql, values, exc) from exc


async def _driver(conn: AsyncConnection) -> Any:
    """The driver's own connection under ``conn``. An open connection (one that failed was
    closed) has it at hand, without ``get_raw_connection()``'s trip through a greenlet."""
    sync = conn.sync_connection
    raw = (
        sync.connection
        if sync is not None and not sync.invalidated
        else await conn.get_raw_connection()
    )
    driver = raw.driver_connection
    assert driver is not None  # a connection checked out of its pool
    return driver


def _sqlite_values(
    dialect: Dialect, table: Table, rows: list[dict[str, Any]]
) -> tuple[str, list[tuple[Any, ...]]]:
    """SQLAlchemy's ``INSERT`` for ``rows`` on SQLite, and their values as the driver takes them."""
    sql, order, processors = _sqlite_insert(dialect, table, tuple(rows[0]))
    values = [
        tuple(
            value if process is None else process(value)
            for value, process in zip((row[key] for key in order), processors, strict=True)
        )
        for row in rows
    ]
    return sql, values


def _driver_error(sql: str, values: list[tuple[Any, ...]], exc: sqlite3.Error) -> StatementError:
    """The driver's error as SQLAlchemy raises it (``IntegrityError`` for a duplicate key)."""
    return DBAPIError.instance(sql, values, exc, sqlite3.Error, hide_parameters=True, ismulti=True)


def _insert_and_commit(conn: sqlite3.Connection, sql: str, values: list[tuple[Any, ...]]) -> None:
    """Run in the driver's thread: the rows, then the commit; on any failure, a rollback."""
    try:
        conn.executemany(sql, values)
        conn.commit()
    except BaseException:
        conn.rollback()
        raise


_compiled: dict[tuple[str, tuple[str, ...]], tuple[str, list[str], list[Any]]] = {}


def _sqlite_insert(
    dialect: Dialect, table: Table, columns: tuple[str, ...]
) -> tuple[str, list[str], list[Any]]:
    key = (table.name, columns)
    found = _compiled.get(key)
    if found is None:
        compiled = insert(table).compile(dialect=dialect, column_keys=list(columns))
        order = list(compiled.positiontup or ())
        processors = [
            table.c[name].type.dialect_impl(dialect).bind_processor(dialect) for name in order
        ]
        found = _compiled[key] = (str(compiled), order, processors)
    return found


# A server database (PostgreSQL): enough connections for the group commit, deal and set rows and
# the lobby at once, and no overflow: overflow connections are closed when returned and reopened
# on the next burst.
log = logging.getLogger(__name__)

POSTGRES_POOL_SIZE = 20


class HeldConnections:
    """Connections of ``engine`` kept open from one transaction to the next, at most ``limit``
    (None: as many as transactions run at once, within the engine's pool). A transaction that
    fails, or is cancelled, closes its connection (the pool checks it and, when it is broken,
    drops it); the next transaction opens a fresh one."""

    def __init__(self, engine: AsyncEngine, *, limit: int | None) -> None:
        self.engine = engine
        self._gate = asyncio.Semaphore(limit) if limit is not None else None
        self._idle: list[AsyncConnection] = []
        self._closing: set[asyncio.Task[None]] = set()

    @asynccontextmanager
    async def checkout(self) -> AsyncIterator[AsyncConnection]:
        """A held connection, outside any transaction: one that fails is closed."""
        async with self._gate or contextlib.nullcontext():
            conn = self._idle.pop() if self._idle else await self.engine.connect()
            try:
                yield conn
            except BaseException:
                self._discard(conn)
                raise
            self._idle.append(conn)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncConnection]:
        async with self.checkout() as conn, conn.begin():
            yield conn

    def _discard(self, conn: AsyncConnection) -> None:
        task = asyncio.get_running_loop().create_task(_close_quietly(conn))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            await _close_quietly(conn)
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)


async def _close_quietly(conn: AsyncConnection) -> None:
    try:
        await conn.close()
    except Exception:  # a connection the database already dropped
        log.debug("closing a history connection failed", exc_info=True)


class Database:
    """One engine plus a session factory, and the connection that appends game history.

    Sessions carry the app's secret key in ``session.info["secret_key"]`` so code that only has a
    session (``authenticate_token``) can check a token without a global.

    ``history()`` transactions write sets, deals and moves. SQLite has a single write lock: pooled
    connections racing for it make the losers sleep in the busy handler (seconds of tail under
    load), so for a SQLite file history goes through an engine of exactly one connection and
    writers queue in the pool instead. Elsewhere (PostgreSQL, an in-memory SQLite database, a
    pool chosen by the caller) it is the main engine. History's connections stay checked out
    between its transactions (``HeldConnections``): a human-paced move commits alone, and the
    pool's checkout, reset and checkin were a fifth of that commit's CPU.
    """

    def __init__(self, url: str, *, secret_key: str, **engine_kwargs: Any) -> None:
        self.url = url
        sqlite = url.startswith("sqlite")
        pooled = "poolclass" not in engine_kwargs
        if not sqlite and pooled:
            engine_kwargs.setdefault("pool_size", POSTGRES_POOL_SIZE)
            engine_kwargs.setdefault("max_overflow", 0)
        self.engine = create_engine(url, **engine_kwargs)
        # An in-memory SQLite database exists once per connection: it cannot have a second one.
        sqlite_file = sqlite and make_url(url).database not in (None, "", ":memory:")
        self.history_engine = (
            create_engine(url, **{**engine_kwargs, "pool_size": 1, "max_overflow": 0})
            if sqlite_file and pooled
            else self.engine
        )
        # Health checks get an engine of their own (one connection, checked before use), so a
        # check never queues behind game traffic for a connection of the main pool.
        memory = sqlite and not sqlite_file
        self.probe_engine = (
            self.engine
            if memory or not pooled
            else create_engine(url, pool_size=1, max_overflow=0, pool_pre_ping=True)
        )
        # History's connections stay open between its transactions (a pool's checkout, reset
        # and checkin cost a human-paced move a fifth of its commit); a pool chosen by the
        # caller, or an in-memory database, is used as it is.
        self._held = (
            HeldConnections(self.history_engine, limit=1 if sqlite_file else None)
            if pooled and not memory
            else None
        )
        self._probe: asyncio.Task[bool] | None = None
        self.problem: str | None = None  # why the last ping failed, for people (no secrets)
        self.sessionmaker = async_sessionmaker(
            self.engine, expire_on_commit=False, info={"secret_key": secret_key}
        )

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """``async with db.session() as s:`` — rolled back on error, closed at the end."""
        async with self.sessionmaker() as session:
            yield session

    @asynccontextmanager
    async def history(self) -> AsyncIterator[AsyncConnection]:
        """A transaction appending game history (see the class docstring), committed at the end.
        Never open another while holding one: on SQLite there is only one such connection."""
        if self._held is None:
            async with self.history_engine.begin() as conn:
                yield conn
            return
        async with self._held.transaction() as conn:
            yield conn

    async def append(self, table: Table, rows: list[dict[str, Any]]) -> None:
        """A transaction of history that only appends ``rows`` to ``table`` (a batch of moves
        that conclude nothing), committed when it returns; a duplicate key raises
        ``IntegrityError`` and stores none of them.

        On a SQLite file the insert and the commit are one call in the driver's thread: every
        trip there is a hand-over of the GIL and a wake-up of the event loop, and a move is
        committed alone at human pace. Elsewhere it is ``history()`` with ``insert_rows``."""
        if not rows:
            return
        dialect = self.history_engine.dialect
        if self._held is None or dialect.name != "sqlite":
            async with self.history() as conn:
                await insert_rows(conn, table, rows)
            return
        sql, values = _sqlite_values(dialect, table, rows)
        async with self._held.checkout() as conn:
            driver = await _driver(conn)
            try:
                # aiosqlite's way to run a function in its thread, as its own methods do
                await driver._execute(_insert_and_commit, driver._conn, sql, values)
            except sqlite3.Error as exc:
                raise _driver_error(sql, values, exc) from exc

    async def ping(self) -> bool:
        """True when the database answers on the probe connection and its schema is at the
        migrations' head (an empty or older database would fail every call). Checks made while
        one is in flight share its answer instead of queueing for the one connection. When it
        is False, ``problem`` says why; a new cause is logged once."""
        if self._probe is None or self._probe.done():
            self._probe = asyncio.get_running_loop().create_task(self._check_schema())
        return await asyncio.shield(self._probe)

    async def _check_schema(self) -> bool:
        from app.store.migrate import heads

        try:
            async with self.probe_engine.connect() as conn:
                table = await conn.run_sync(lambda sync: inspect(sync).has_table("alembic_version"))
                found = (
                    set(
                        (
                            await conn.execute(text("SELECT version_num FROM alembic_version"))
                        ).scalars()
                    )
                    if table
                    else set()
                )
        except Exception as exc:
            return self._failed(f"unreachable ({type(exc).__name__})")
        expected = heads()
        if found != expected:
            at = ", ".join(sorted(found)) or "none (an empty database)"
            return self._failed(
                f"schema at revision {at}, not {', '.join(sorted(expected))}: run `gaple migrate`"
            )
        if self.problem is not None:
            log.info("database: ready again")
        self.problem = None
        return True

    def _failed(self, problem: str) -> bool:
        if problem != self.problem:
            log.warning("database not ready: %s", problem)
        self.problem = problem
        return False

    @property
    def engines(self) -> list[AsyncEngine]:
        """Every engine of this database, each once."""
        engines: list[AsyncEngine] = []
        for engine in (self.engine, self.history_engine, self.probe_engine):
            if engine not in engines:
                engines.append(engine)
        return engines

    async def dispose(self) -> None:
        if self._probe is not None and not self._probe.done():
            self._probe.cancel()
        if self._held is not None:
            await self._held.close()
        for engine in self.engines:
            await engine.dispose()
