"""GET /api/health with and without Redis, and with each dependency down."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import httpx
import pytest

from app.main import create_app
from app.settings import Settings
from app.store import migrate


async def _get_health(settings: Settings) -> httpx.Response:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            return await client.get("/api/health")


async def test_health_without_redis(api: httpx.AsyncClient) -> None:
    response = await api.get("/api/health")
    assert response.status_code == 200
    body = response.json()
    assert body.pop("node")  # which node answered (several nodes behind one address)
    assert body == {"status": "ok", "database": "ok", "redis": "disabled"}


async def test_health_with_redis(settings: Settings, redis_url: str, redis_prefix: str) -> None:
    update = {"redis_url": redis_url, "redis_prefix": redis_prefix}
    response = await _get_health(settings.model_copy(update=update))
    assert response.status_code == 200
    body = response.json()
    assert body.pop("node")
    assert body == {"status": "ok", "database": "ok", "redis": "ok"}


async def test_health_redis_down_is_503(settings: Settings) -> None:
    down = settings.model_copy(update={"redis_url": "redis://127.0.0.1:1/0"})
    response = await _get_health(down)
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error" and body["database"] == "ok" and body["redis"] == "error"
    assert body["error"]["code"] == "unavailable" and "redis" in body["error"]["message"]


async def test_health_database_down_is_503(tmp_path: Path) -> None:
    settings = Settings(
        database_url="postgresql+asyncpg://postgres@127.0.0.1:1/nothing",
        data_dir=tmp_path,
        secret_key="k",
        migrate_on_start=False,
    )
    response = await _get_health(settings)
    assert response.status_code == 503
    assert response.json()["database"] == "error" and response.json()["redis"] == "disabled"


async def test_embedded_default_migrates_itself_at_start(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")  # SQLite under data_dir, migrate_on_start
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            assert (await client.post("/api/guests", json={"name": "A"})).status_code == 201
    assert (tmp_path / "data" / "gaple.sqlite3").exists()


async def _probe(settings: Settings) -> tuple[httpx.Response, httpx.Response]:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            return await client.get("/readyz"), await client.get("/api/health")


async def test_an_unmigrated_database_is_not_ready(
    empty_database_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(
        database_url=empty_database_url,
        data_dir=tmp_path,
        secret_key="k",
        migrate_on_start=False,
    )
    with caplog.at_level(logging.INFO, logger="app.store.db"):
        ready, health = await _probe(settings)
    assert ready.status_code == 503 and health.status_code == 503
    assert health.json()["database"] == "error"
    message = ready.json()["error"]["message"]
    assert "schema at revision none" in message and "gaple migrate" in message
    causes = [r.getMessage() for r in caplog.records if r.name == "app.store.db"]
    assert causes == [f"database not ready: {message.removeprefix('unreachable: database (')[:-1]}"]


async def test_a_database_behind_the_head_is_not_ready(
    empty_database_url: str, tmp_path: Path
) -> None:
    await asyncio.to_thread(migrate.upgrade, empty_database_url, "0004")
    settings = Settings(
        database_url=empty_database_url,
        data_dir=tmp_path,
        secret_key="k",
        migrate_on_start=False,
    )
    ready, _ = await _probe(settings)
    assert ready.status_code == 503
    assert "schema at revision 0004" in ready.json()["error"]["message"]
    await asyncio.to_thread(migrate.upgrade, empty_database_url)
    ready, health = await _probe(settings)
    assert ready.status_code == 200 and health.json()["database"] == "ok"
