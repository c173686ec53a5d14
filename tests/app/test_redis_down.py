"""REST while Redis is unreachable: a call that needs it (the shared rate limits, a live table's
owner) answers ``503`` ``unavailable`` in the envelope with Retry-After and changes nothing;
reads keep working; once Redis is back the same calls work again.

Redis is really down: a node configured with a closed port, or a redis-server of the test's own
that it kills and starts again (never the shared one)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.api.errors import RETRY_AFTER_SECONDS
from app.bus.redis import RedisBus
from app.main import create_app
from app.settings import Settings
from tests.app.documents import validate_component
from tests.server import RedisServer

CLOSED_PORT = "redis://127.0.0.1:1/0"
Call = Callable[[httpx.AsyncClient], Awaitable[httpx.Response]]


@pytest.fixture
async def redis_server(tmp_path: Path) -> AsyncIterator[RedisServer]:
    server = RedisServer(tmp_path / "redis")
    await asyncio.to_thread(server.start)
    try:
        yield server
    finally:
        await asyncio.to_thread(server.stop)


async def _client(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")


async def _room(api: httpx.AsyncClient) -> tuple[dict[str, str], dict[str, str], str]:
    """A host and another guest (their headers) and the host's open room's code."""
    guests = []
    for name in ("Ayu", "Budi"):
        made = await api.post("/api/guests", json={"name": name})
        assert made.status_code == 201, made.text
        guests.append({"Authorization": f"Bearer {made.json()['token']}"})
    room = await api.post("/api/rooms", json={}, headers=guests[0])
    assert room.status_code == 201, room.text
    return guests[0], guests[1], room.json()["code"]


def _unavailable(spec: dict[str, Any], path: str, method: str, response: httpx.Response) -> None:
    assert response.status_code == 503, (path, method, response.text)
    assert response.json()["error"]["code"] == "unavailable"
    assert response.headers["retry-after"] == str(RETRY_AFTER_SECONDS)
    validate_component(spec, "Error", response.json())
    documented = spec["paths"][path][method]["responses"]["503"]
    assert "Retry-After" in documented["headers"], (path, method)


def _writes(host: dict[str, str], other: dict[str, str], code: str) -> list[tuple[str, str, Call]]:
    """(path, method, call) for a REST call of each kind that needs Redis."""
    room = "/api/rooms/{code}"

    def call(method: str, url: str, **kwargs: Any) -> Call:
        return lambda api: api.request(method, url, **kwargs)

    return [
        ("/api/guests", "post", call("POST", "/api/guests", json={"name": "Citra"})),  # limit
        ("/api/rooms", "post", call("POST", "/api/rooms", json={}, headers=other)),
        (
            room + "/seats/{seat}",
            "post",
            call("POST", f"/api/rooms/{code}/seats/1", headers=other),
        ),
        (room + "/bots/{seat}", "post", call("POST", f"/api/rooms/{code}/bots/2", headers=host)),
        (
            room + "/settings",
            "patch",
            call("PATCH", f"/api/rooms/{code}/settings", json={"turn_seconds": 30}, headers=host),
        ),
        (room + "/start", "post", call("POST", f"/api/rooms/{code}/start", headers=host)),
        (room, "delete", call("DELETE", f"/api/rooms/{code}", headers=host)),
        ("/api/quickplay", "post", call("POST", "/api/quickplay", json={}, headers=other)),
        ("/api/practice", "post", call("POST", "/api/practice", json={}, headers=other)),
        (room + "/again", "post", call("POST", f"/api/rooms/{code}/again", headers=host)),
        (room + "/fill", "post", call("POST", f"/api/rooms/{code}/fill", headers=host)),
    ]


async def _state(api: httpx.AsyncClient, code: str, other: dict[str, str]) -> Any:
    """What the calls above would change, read through the API (reads need no Redis)."""
    room = await api.get(f"/api/rooms/{code}")
    assert room.status_code == 200, room.text
    listed = await api.get("/api/rooms")
    assert listed.status_code == 200, listed.text
    return room.json(), sorted(r["code"] for r in listed.json()["rooms"])


async def test_with_redis_unreachable_every_call_that_needs_it_is_a_503(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    healthy = create_app(settings)
    async with healthy.router.lifespan_context(healthy), await _client(healthy) as api:
        host, other, code = await _room(api)
    down = create_app(settings.model_copy(update={"redis_url": CLOSED_PORT}))
    async with down.router.lifespan_context(down), await _client(down) as api:
        spec = (await api.get("/openapi.json")).json()
        before = await _state(api, code, other)
        with caplog.at_level(logging.WARNING):
            for path, method, call in _writes(host, other, code):
                _unavailable(spec, path, method, await call(api))
        assert await _state(api, code, other) == before  # nothing changed
        me = await api.get("/api/guests/me", headers=host)  # reads answer as ever
        assert me.status_code == 200, me.text
    # The outage of the limits' Redis is one line, not one per call, and no traceback.
    limits = [r for r in caplog.records if r.name == "app.api.ratelimit"]
    assert len(limits) == 1 and "failing" in limits[0].getMessage(), limits
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def _until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(15):  # a bound, not a measurement: it happens or the test fails
        while not condition():
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_redis_going_away_and_coming_back(
    settings: Settings, redis_server: RedisServer, redis_prefix: str
) -> None:
    update = {"redis_url": redis_server.url, "redis_prefix": redis_prefix}
    app = create_app(settings.model_copy(update=update))
    async with app.router.lifespan_context(app), await _client(app) as api:
        bus: RedisBus = app.state.bus
        await _until(lambda: bus.connected)
        host, other, code = await _room(api)
        spec = (await api.get("/openapi.json")).json()
        sit = await api.post(f"/api/rooms/{code}/seats/1", headers=other)
        assert sit.status_code == 200, sit.text

        await asyncio.to_thread(redis_server.stop)
        await _until(lambda: not bus.connected)  # the node's listener noticed
        before = await _state(api, code, other)
        for path, method, call in _writes(host, other, code):
            _unavailable(spec, path, method, await call(api))
        assert await _state(api, code, other) == before

        await asyncio.to_thread(redis_server.start)
        await _until(lambda: bus.connected)
        bot = await api.post(f"/api/rooms/{code}/bots/2", headers=host)
        assert bot.status_code == 200, bot.text
        started = await api.post(f"/api/rooms/{code}/start", headers=host)
        assert started.status_code == 409, started.text  # a seat is empty: the rules answer
        assert started.json()["error"]["code"] == "seats_not_filled"


async def test_a_lease_lookup_that_fails_midway_is_a_503(settings: Settings) -> None:
    """Redis lost between the node's check and the call (the listener has not noticed yet): the
    bus's own refusal is the same 503, not a 500."""
    app = create_app(settings)
    from redis.asyncio import Redis

    bus = RedisBus(Redis.from_url(CLOSED_PORT), prefix="t:", node_id="n", lease_ttl=1.0)

    async def owner() -> None:
        await bus.owner("room")

    app.add_api_route("/api/owner", owner)
    async with app.router.lifespan_context(app), await _client(app) as api:
        response = await api.get("/api/owner")
    await bus.redis.aclose()
    assert response.status_code == 503, response.text
    assert response.json()["error"]["code"] == "unavailable"
    assert response.headers["retry-after"] == str(RETRY_AFTER_SECONDS)
