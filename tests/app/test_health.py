"""GET /api/health with and without Redis, and with each dependency down."""

from __future__ import annotations

from pathlib import Path

import httpx

from app.main import create_app
from app.settings import Settings


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
