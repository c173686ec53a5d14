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

Run only SQLite locally with ``-m "not postgres"``.

Under pytest-xdist (``-n``, as ``dev.py test`` runs the suite) every worker is a process of its
own with its own run id, hence its own PostgreSQL database and Redis prefix; the summary adds up
what the workers used.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
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
# pytest-xdist each worker counts its own and hands them to the controller when it is done.
_used = {"postgres": 0, "redis": 0}
_workers_used: dict[str, dict[str, Any]] = {}
_workers_e2e_stats: dict[str, int] = {}  # tests/e2e/conftest.py's STATS, summed over the workers


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


def _distributed(config: pytest.Config) -> bool:
    """This process is pytest-xdist's controller: the workers run the tests."""
    return bool(getattr(config.option, "numprocesses", None)) and not hasattr(config, "workerinput")


def pytest_sessionstart(session: pytest.Session) -> None:
    if _distributed(session.config):
        # The workers' browser tests share one folder of failures: only this run's, cleared once.
        from tests.e2e.gaple import FAILURES

        shutil.rmtree(FAILURES, ignore_errors=True)


def pytest_report_header(config: pytest.Config) -> list[str]:
    admin = make_url(POSTGRES_ADMIN_URL).render_as_string(hide_password=True)
    if _distributed(config):
        return [
            f"gaple: one PostgreSQL test database per worker, gaple_test_<run id> (via {admin})",
            f"gaple: Redis {REDIS_URL} with a key prefix per worker, gaple-test-<run id>:",
        ]
    return [
        f"gaple: PostgreSQL test database {POSTGRES_DATABASE} (via {admin})",
        f"gaple: Redis {REDIS_URL} with key prefix {REDIS_PREFIX}",
    ]


@pytest.hookimpl(trylast=True)  # after the other conftests have marked their tests
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Mark by backend so `-m "not postgres"` / `-m redis` select without naming every test.
    for item in items:
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec else {}
        if "postgres" in (params.get("database_url"), params.get("empty_database_url")):
            item.add_marker(pytest.mark.postgres)
        if "redis_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.redis)
    if hasattr(config, "workerinput"):
        # On pytest-xdist workers the files are handed out in this order (dev.py's
        # --no-loadscope-reorder): the long ones (marked slow) first, so that the run does not
        # end on one worker busy with a long file while the others have finished. A stable
        # sort: every file keeps its own order. Every worker sorts alike (xdist checks).
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)


# The browser tests run on one worker, one file after another as on a single process: one server
# and one Chromium at a time, each test after the same ones as always, while the other workers
# take the rest of the suite file by file.
BROWSER_TESTS = "tests/e2e/"


def work_unit(nodeid: str) -> str:
    """What a test is handed out with under ``--dist loadfile``: its file, or every browser test."""
    path = nodeid.split("::", 1)[0]
    return BROWSER_TESTS if path.startswith(BROWSER_TESTS) else path


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` (dev.py's) with tests/e2e/ as a single unit of work."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class OneBrowserWorker(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return OneBrowserWorker(config, log)


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: tell the controller what ran here
        workeroutput["gaple_used"] = {
            **_used,
            "database": POSTGRES_DATABASE,
            "prefix": REDIS_PREFIX,
        }


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    used = getattr(node, "workeroutput", {}).get("gaple_used")
    if used is not None:
        _workers_used[node.gateway.id] = used
    for what, n in getattr(node, "workeroutput", {}).get("gaple_e2e_stats", {}).items():
        _workers_e2e_stats[what] = _workers_e2e_stats.get(what, 0) + n


def e2e_stats_line(stats: dict[str, int]) -> str:
    """The summary line of what the browser tests' random play covered (tests/e2e/gaple.py)."""
    return "gaple e2e: " + ", ".join(f"{n} {what}" for what, n in stats.items())


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _workers_used:
        terminalreporter.write_line(
            f"gaple: {_used['postgres']} tests used PostgreSQL database {POSTGRES_DATABASE}; "
            f"{_used['redis']} tests used Redis {REDIS_URL} prefix {REDIS_PREFIX}"
        )
        return
    for worker, used in sorted(_workers_used.items()):
        terminalreporter.write_line(
            f"gaple: {worker}: {used['postgres']} tests used PostgreSQL database "
            f"{used['database']}; {used['redis']} tests used Redis {REDIS_URL} prefix "
            f"{used['prefix']}"
        )
    terminalreporter.write_line(
        f"gaple: {sum(u['postgres'] for u in _workers_used.values())} tests used PostgreSQL, "
        f"{sum(u['redis'] for u in _workers_used.values())} used Redis, "
        f"on {len(_workers_used)} workers"
    )
    if any(_workers_e2e_stats.values()):
        terminalreporter.write_line(e2e_stats_line(_workers_e2e_stats))


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
