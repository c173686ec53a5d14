"""Settings: embedded defaults, the generated secret, production's fail-fast."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from app.settings import Settings


@pytest.fixture(autouse=True)
def _no_gaple_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("GAPLE_") and not name.startswith("GAPLE_TEST_"):
            monkeypatch.delenv(name)


def test_embedded_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    settings = Settings()
    assert settings.database_url == "sqlite+aiosqlite:///var/gaple.sqlite3"
    assert settings.redis_url is None and settings.production is False
    assert settings.migrate_on_start is True
    assert settings.allowed_origins == ["http://127.0.0.1:8000", "http://localhost:8000"]
    assert (settings.max_ws_frame_bytes, settings.ws_messages_per_second, settings.ws_burst) == (
        4096,
        10,
        20,
    )
    assert settings.max_name_length == 24
    assert (settings.deal_pause_seconds, settings.bot_min_delay, settings.bot_max_delay) == (
        5.0,
        0.6,
        1.6,
    )


def test_secret_is_generated_once_and_kept(tmp_path: Path) -> None:
    first = Settings(data_dir=tmp_path / "d")
    key_file = tmp_path / "d" / "secret_key"
    assert key_file.exists() and oct(key_file.stat().st_mode & 0o777) == "0o600"
    assert len(first.secret) == 64
    assert Settings(data_dir=tmp_path / "d").secret == first.secret


def test_production_requires_secret(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="GAPLE_SECRET_KEY is required"):
        Settings(production=True, data_dir=tmp_path)
    assert not (tmp_path / "secret_key").exists()
    key = "s3cret" * 6  # 36 bytes
    prod = Settings(production=True, secret_key=key, database_url="postgresql+asyncpg://x/y")
    assert prod.secret == key and prod.migrate_on_start is False


@pytest.mark.parametrize("name", ["secret_key", "admin_token"])
def test_production_refuses_short_secrets(name: str, tmp_path: Path) -> None:
    long_enough = {"secret_key": "k" * 32, "admin_token": "t" * 32}
    url = "postgresql+asyncpg://x/y"
    Settings(production=True, database_url=url, **long_enough)  # 32 bytes: accepted
    short = {**long_enough, name: "x" * 31}
    with pytest.raises(ValidationError) as info:
        Settings(production=True, database_url=url, **short)
    [error] = info.value.errors()
    assert error["msg"] == (
        f"Value error, GAPLE_{name.upper()} is shorter than 32 bytes (generate one with: "
        "python3 -c 'import secrets; print(secrets.token_hex(32))')"
    )
    # Bytes, not characters: 11 three-byte characters are 33 bytes.
    Settings(production=True, database_url=url, **{**long_enough, name: "\u20ac" * 11})
    # Outside production (development, the tests) a short value stays allowed.
    Settings(data_dir=tmp_path, **short)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "postgres://gaple:pw@db/gaple",
            "GAPLE_DATABASE_URL must name the asyncpg driver: write "
            "postgresql+asyncpg://gaple:***@db/gaple",
        ),
        (
            "postgresql://db/gaple",
            "GAPLE_DATABASE_URL must name the asyncpg driver: write postgresql+asyncpg://db/gaple",
        ),
        (
            "postgresql+psycopg2://db/gaple",
            "GAPLE_DATABASE_URL must name the asyncpg driver: write postgresql+asyncpg://db/gaple",
        ),
        (
            "sqlite:///var/g.sqlite3",
            "GAPLE_DATABASE_URL must name the aiosqlite driver: write "
            "sqlite+aiosqlite:///var/g.sqlite3",
        ),
        (
            "mysql+aiomysql://db/gaple",
            "GAPLE_DATABASE_URL: 'mysql' is not a supported database "
            "(use postgresql+asyncpg:// or sqlite+aiosqlite://)",
        ),
        (
            "db.example:5432/gaple",
            "GAPLE_DATABASE_URL is not a database URL "
            "(write e.g. postgresql+asyncpg://user:password@host/gaple)",
        ),
    ],
)
def test_the_database_url_is_checked(url: str, message: str) -> None:
    with pytest.raises(ValidationError) as info:
        Settings(secret_key="k", database_url=url)
    [error] = info.value.errors()
    assert error["msg"] == f"Value error, {message}"
    for good in ("postgresql+asyncpg://gaple:pw@db/gaple", "sqlite+aiosqlite://"):
        assert Settings(secret_key="k", database_url=good).database_url == good


def test_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GAPLE_ALLOWED_ORIGINS", "https://a.example, https://b.example")
    monkeypatch.setenv("GAPLE_PUBLIC_URL", "https://gaple.example/")
    monkeypatch.setenv("GAPLE_DATABASE_URL", "postgresql+asyncpg://db/gaple")
    monkeypatch.setenv("GAPLE_SECRET_KEY", "k")
    settings = Settings()
    assert settings.allowed_origins == ["https://a.example", "https://b.example"]
    assert settings.public_url == "https://gaple.example"
    assert settings.migrate_on_start is False  # only the embedded SQLite default migrates itself
    monkeypatch.setenv("GAPLE_REDIS_URL", "")  # set but empty: no Redis
    assert Settings().redis_url is None
    monkeypatch.setenv("GAPLE_ALLOWED_ORIGINS", '["https://c.example"]')
    assert Settings().allowed_origins == ["https://c.example"]


def test_bot_delays_must_be_ordered(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="bot_min_delay"):
        Settings(secret_key="k", bot_min_delay=2, bot_max_delay=1)
