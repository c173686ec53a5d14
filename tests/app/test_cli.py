"""The `gaple` command: migrate, serve (a real uvicorn), production fail-fast; the client pages."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from app.cli import main
from app.settings import get_settings
from tests.server import ServerProcess


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in list(os.environ):
        if name.startswith("GAPLE_") and not name.startswith("GAPLE_TEST_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("GAPLE_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def test_migrate(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate"]) == 0
    assert "latest migration" in capsys.readouterr().out
    assert "rooms" in sqlite_tables(env / "data" / "gaple.sqlite3")


def test_production_server_without_secret_fails_fast(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAPLE_PRODUCTION", "true")
    with pytest.raises(SystemExit) as exit_info:
        main(["serve"])
    assert "GAPLE_SECRET_KEY is required" in str(exit_info.value.code)


def test_production_migrate_needs_no_secret(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAPLE_PRODUCTION", "true")
    monkeypatch.setenv("GAPLE_DATABASE_URL", f"sqlite+aiosqlite:///{env / 'prod.sqlite3'}")
    assert main(["migrate"]) == 0
    assert "rooms" in sqlite_tables(env / "prod.sqlite3")
    assert not (env / "data" / "secret_key").exists()  # nor did it make one up


def test_migrate_an_unreachable_database_says_so_in_one_line(env: Path) -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as sock:  # a port nothing listens on: bound, never listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        url = f"postgresql+asyncpg://gaple:pw@127.0.0.1:{port}/gaple"
        done = subprocess.run(
            [sys.executable, "-m", "app.cli", "migrate"],
            env={**os.environ, "GAPLE_DATABASE_URL": url},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"gaple: cannot migrate the database at postgresql+asyncpg://gaple:***@127.0.0.1:{port}"
        f"/gaple: ConnectionRefusedError: [Errno 111] Connect call failed ('127.0.0.1', {port})"
    ]


def test_migrate_a_database_that_does_not_exist(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy.engine import make_url

    from tests.conftest import POSTGRES_ADMIN_URL

    url = make_url(POSTGRES_ADMIN_URL).set(database="gaple_no_such_database")
    monkeypatch.setenv("GAPLE_DATABASE_URL", url.render_as_string(hide_password=False))
    with pytest.raises(SystemExit) as exit_info:
        main(["migrate"])
    message = str(exit_info.value.code)
    assert message.startswith("gaple: cannot migrate the database at postgresql+asyncpg://")
    assert 'database "gaple_no_such_database" does not exist' in message
    assert "\n" not in message


def test_migrate_with_a_postgres_url_names_the_url_to_write(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAPLE_DATABASE_URL", "postgres://gaple:pw@db.example/gaple")
    with pytest.raises(SystemExit) as exit_info:
        main(["migrate"])
    assert exit_info.value.code == (
        "gaple: bad settings: GAPLE_DATABASE_URL must name the asyncpg driver: "
        "write postgresql+asyncpg://gaple:***@db.example/gaple"
    )


def sqlite_tables(path: Path) -> set[str]:
    import sqlite3

    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    conn.close()
    return {row[0] for row in rows}


def test_serve_embedded_default(env: Path) -> None:
    process_env = {k: v for k, v in os.environ.items() if not k.startswith("GAPLE_")}
    # No database URL, no secret key: the embedded defaults under the data dir.
    server = ServerProcess("", env / "data", base_env=process_env, args=["--log-level", "warning"])
    server.start(timeout=20)
    try:
        guest = httpx.post(f"{server.base_url}/api/guests", json={"name": "Ayu"})
        assert guest.status_code == 201
        assert (env / "data" / "secret_key").exists()
        assert (env / "data" / "gaple.sqlite3").exists()
    finally:
        server.stop()


async def test_client_pages(api: httpx.AsyncClient) -> None:
    for path in (
        "/",
        "/r/ABC234",
        "/replay/41",
        "/p/" + "0" * 32,
        "/leaderboard",
        "/turnamen",
        "/turnamen/7",
        "/klub",
        "/klub/3",
    ):
        response = await api.get(path)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/html")


def test_serving_sets_the_built_app_aside_from_the_cycle_collector() -> None:
    import gc

    from app.cli import GC_YOUNG_THRESHOLD, tune_gc

    before = gc.get_threshold()
    try:
        tune_gc()
        assert gc.get_freeze_count() > 10_000  # what exists now is never scanned again
        assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, before[1], before[2])
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
