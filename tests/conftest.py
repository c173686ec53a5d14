"""Fixtures for everyone's tests.

* ``database_url`` — parametrized ``sqlite`` / ``postgres``: a migrated, empty database per test.
  SQLite: a copy of a migrated template file. PostgreSQL: one database per test session
  (``gaple_test_<random>``, created from GAPLE_TEST_POSTGRES_URL, dropped at the end), truncated
  before each test. If PostgreSQL is unreachable the tests FAIL, never skip.
* ``empty_database_url`` — the same two backends, but with no tables (for migration tests).
* ``redis_url`` / ``redis_prefix`` — GAPLE_TEST_REDIS_URL and a key prefix unique to the test;
  every key under the run's prefix is deleted at the end. Unreachable Redis fails the test.
* ``settings`` — Settings for the test's database (no Redis, fixed secret, no auto-migrate).
* ``live_factory`` — None; override it in a conftest to plug a real LiveTables into ``app``.
* ``app`` — create_app(settings, live_factory=...) with its lifespan running.
* ``api`` — an httpx.AsyncClient talking to ``app`` in process.
* ``make_guest`` — ``guest = await make_guest("Ayu")``; ``guest.headers`` authenticates.

Run only SQLite locally with ``-m "not postgres"``. Under pytest-xdist (``dev.py test`` runs two
workers) every worker has its own run id, so its own database and prefix; the summary adds up what
each worker reported.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.main import create_app
from app.settings import Settings
from app.store import migrate
from app.store.db import create_engine
from app.store.models import Base

T = TypeVar("T")

POSTGRES_ADMIN_URL = os.environ.get(
    "GAPLE_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("GAPLE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
RUN_ID = secrets.token_hex(4)
POSTGRES_DATABASE = f"gaple_test_{RUN_ID}"
REDIS_PREFIX = f"gaple-test-{RUN_ID}:"
TEST_SECRET_KEY = "test-secret-key-not-for-production"

# Counted so the end of the run can prove the PostgreSQL and Redis tests really ran. Under
# pytest-xdist each worker process has its own database and prefix (its own RUN_ID) and reports
# its counts when it is done; the controller adds them up (``_workers``).
_used = {"postgres": 0, "redis": 0}
_workers: list[dict[str, Any]] = []


def run_async(factory: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to completion from sync code, even if an event loop is already running in
    this thread (a sync fixture requested from an async test). Alembic's env.py does the same."""
    result: list[T] = []
    error: list[BaseException] = []

    def target() -> None:
        try:
            result.append(asyncio.run(factory()))  # type: ignore[arg-type]
        except BaseException as exc:
            error.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if error:
        raise error[0]
    return result[0]


def _pg_url(database: str) -> str:
    return make_url(POSTGRES_ADMIN_URL).set(database=database).render_as_string(hide_password=False)


async def _pg_admin(*statements: str) -> None:
    # CREATE/DROP DATABASE can't run inside a transaction: use AUTOCOMMIT.
    engine = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            for statement in statements:
                await conn.execute(text(statement))
    finally:
        await engine.dispose()


def _create_pg_database(name: str) -> str:
    try:
        run_async(lambda: _pg_admin(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        pytest.fail(
            f"PostgreSQL is unreachable at {POSTGRES_ADMIN_URL} ({exc!r}); start it or set "
            "GAPLE_TEST_POSTGRES_URL (or deselect with -m 'not postgres')",
            pytrace=False,
        )
    return _pg_url(name)


def _drop_pg_database(name: str) -> None:
    run_async(lambda: _pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def pytest_report_header(config: pytest.Config) -> list[str]:
    where = make_url(POSTGRES_ADMIN_URL).render_as_string(hide_password=True)
    if config.getoption("numprocesses", None):
        return [
            f"gaple: every worker makes its own PostgreSQL test database (via {where}) and "
            f"Redis key prefix on {REDIS_URL}; the summary names them"
        ]
    return [
        f"gaple: PostgreSQL test database {POSTGRES_DATABASE} (via {where})",
        f"gaple: Redis {REDIS_URL} with key prefix {REDIS_PREFIX}",
    ]


def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):  # once per run, not once per worker
        from tests.e2e.gaple import ARTIFACTS

        shutil.rmtree(ARTIFACTS / "failures", ignore_errors=True)  # only this run's failures


def _counts() -> dict[str, Any]:
    """What this process used: its database and prefix, how many tests used them, and the
    browser tests' own tallies (tests.e2e.gaple.STATS) when it ran any."""
    e2e = sys.modules.get("tests.e2e.gaple")
    return {
        **_used,
        "database": POSTGRES_DATABASE,
        "prefix": REDIS_PREFIX,
        "e2e": dict(e2e.STATS) if e2e is not None else {},
    }


def pytest_sessionfinish(session: pytest.Session) -> None:
    output = getattr(session.config, "workeroutput", None)
    if output is not None:  # an xdist worker: the controller prints the summary
        output["gaple"] = _counts()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    counts = getattr(node, "workeroutput", {}).get("gaple")
    if counts is not None:
        _workers.append(counts)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Mark by backend so `-m "not postgres"` / `-m redis` select without naming every test.
    for item in items:
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec else {}
        if "postgres" in (params.get("database_url"), params.get("empty_database_url")):
            item.add_marker(pytest.mark.postgres)
        if "redis_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.redis)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    runs = _workers or [_counts()]

    def names(key: str, used: str) -> str:  # those of the processes that used them, else all
        return ", ".join(r[key] for r in runs if r[used]) or ", ".join(r[key] for r in runs)

    databases, prefixes = names("database", "postgres"), names("prefix", "redis")
    terminalreporter.write_line(
        f"gaple: {sum(run['postgres'] for run in runs)} tests used PostgreSQL database "
        f"{databases}; {sum(run['redis'] for run in runs)} tests used Redis {REDIS_URL} "
        f"prefix {prefixes}"
    )
    e2e: dict[str, int] = {}
    for run in runs:
        for what, n in run["e2e"].items():
            e2e[what] = e2e.get(what, 0) + n
    if any(e2e.values()):
        terminalreporter.write_line(
            "gaple e2e: " + ", ".join(f"{n} {what}" for what, n in e2e.items())
        )


# --- databases --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "gaple.sqlite3"
    migrate.upgrade(f"sqlite+aiosqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def _postgres_database() -> Iterator[str]:
    url = _create_pg_database(POSTGRES_DATABASE)
    try:
        migrate.upgrade(url)
        yield url
    finally:
        _drop_pg_database(POSTGRES_DATABASE)


async def _truncate(url: str) -> None:
    # DELETE beats TRUNCATE on tables this small; children first for the foreign keys.
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            for table in reversed(Base.metadata.sorted_tables):
                await conn.execute(table.delete())
    finally:
        await engine.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated, empty database of either backend."""
    if request.param == "sqlite":
        path = tmp_path / "gaple.sqlite3"
        shutil.copyfile(request.getfixturevalue("_sqlite_template"), path)
        return f"sqlite+aiosqlite:///{path}"
    url: str = request.getfixturevalue("_postgres_database")
    run_async(lambda: _truncate(url))
    _used["postgres"] += 1
    return url


@pytest.fixture(params=["sqlite", "postgres"])
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database with no tables at all (each test gets its own PostgreSQL database)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.sqlite3'}"
        return
    name = f"{POSTGRES_DATABASE}_{secrets.token_hex(3)}"
    url = _create_pg_database(name)
    _used["postgres"] += 1
    try:
        yield url
    finally:
        _drop_pg_database(name)


# --- redis ------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def _redis_server() -> Iterator[str]:
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except Exception as exc:
        client.close()
        pytest.fail(
            f"Redis is unreachable at {REDIS_URL} ({exc!r}); start it or set GAPLE_TEST_REDIS_URL",
            pytrace=False,
        )
    try:
        yield REDIS_URL
    finally:
        keys = list(client.scan_iter(match=f"{REDIS_PREFIX}*", count=500))
        if keys:
            client.delete(*keys)
        client.close()


@pytest.fixture
def redis_url(_redis_server: str) -> str:
    _used["redis"] += 1
    return _redis_server


@pytest.fixture
def redis_prefix(redis_url: str) -> str:
    """Unique per test, under the run's prefix (which is cleaned at the end)."""
    return f"{REDIS_PREFIX}{secrets.token_hex(3)}:"


# --- the app ----------------------------------------------------------------------------------


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return Settings(
        database_url=database_url,
        data_dir=tmp_path / "data",
        secret_key=TEST_SECRET_KEY,
        migrate_on_start=False,  # the database fixtures migrate (once per session)
        redis_url=None,
        public_url=None,
        production=False,
    )


@pytest.fixture
def live_factory() -> Any:
    """Override in a conftest to give ``app`` a real live layer: ``return lambda app: ...``."""
    return None


@pytest.fixture
async def app(settings: Settings, live_factory: Any) -> AsyncIterator[Any]:
    application = create_app(settings, live_factory=live_factory)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def api(app: Any) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


@dataclass(frozen=True)
class Guest:
    player_id: str
    token: str
    name: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@pytest.fixture
def make_guest(api: httpx.AsyncClient) -> Callable[..., Awaitable[Guest]]:
    async def make(name: str = "Ayu") -> Guest:
        response = await api.post("/api/guests", json={"name": name})
        assert response.status_code == 201, response.text
        return Guest(**response.json())

    return make
