"""GET /metrics and the metrics API of the live layer (app/metrics.py)."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app import metrics as metrics_module
from app.main import create_app
from app.metrics import MOVE_KINDS, ROLES, Metrics
from app.settings import Settings

METRIC_NAMES = [
    "gaple_tables_live",
    "gaple_connections",
    "gaple_moves_total",
    "gaple_move_latency_seconds",
    "gaple_autoplays_total",
    "gaple_reconnects_total",
    "gaple_lease_takeovers_total",
    "gaple_event_loop_lag_seconds",
    "gaple_gc_pause_seconds",
    "gaple_http_requests_total",
    "gaple_http_request_duration_seconds",
    "gaple_ws_refusals_total",
    "gaple_ws_closes_total",
    "gaple_redis_roundtrip_seconds",
    "gaple_build_info",
]


def _app(tmp_path: Path, metrics: Metrics | None = None) -> httpx.AsyncClient:
    # /metrics needs neither the database nor the lifespan: no app startup here.
    app = create_app(Settings(data_dir=tmp_path, secret_key="k", migrate_on_start=False))
    if metrics is not None:
        app.state.metrics = metrics
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")


@pytest.fixture
def metrics() -> Metrics:
    return Metrics()


@pytest.fixture
async def client(tmp_path: Path, metrics: Metrics) -> AsyncIterator[httpx.AsyncClient]:
    async with _app(tmp_path, metrics) as client:
        yield client


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def scrape(client: httpx.AsyncClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = await client.get("/metrics")
    assert response.status_code == 200
    return samples(response.text)


async def test_metrics_in_prometheus_text_format(client: httpx.AsyncClient) -> None:
    response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    families = {family.name for family in text_string_to_metric_families(response.text)}
    for name in METRIC_NAMES:
        assert f"# TYPE {name} " in response.text, name
    # Counters are families without their _total suffix.
    assert {"gaple_moves", "gaple_tables_live", "gaple_move_latency_seconds"} <= families
    # Process metrics come along (where /proc exists, as in the image).
    if Path("/proc/self/stat").exists():
        assert "process_resident_memory_bytes" in response.text


async def test_every_labelled_series_starts_at_zero(client: httpx.AsyncClient) -> None:
    scraped = await scrape(client)
    for role in ROLES:
        assert scraped[("gaple_connections", (("role", role),))] == 0
    for kind in MOVE_KINDS:
        assert scraped[("gaple_moves_total", (("kind", kind),))] == 0
    assert not any(name.endswith("_created") for name, _ in scraped)


async def test_openmetrics_when_the_scraper_asks(client: httpx.AsyncClient) -> None:
    response = await client.get(
        "/metrics", headers={"Accept": "application/openmetrics-text; version=1.0.0"}
    )
    assert response.headers["content-type"].startswith("application/openmetrics-text")
    assert response.text.endswith("# EOF\n")


async def test_the_live_layer_api_changes_the_output(
    client: httpx.AsyncClient, metrics: Metrics
) -> None:
    metrics.table_opened()
    metrics.table_opened()
    metrics.table_closed()
    metrics.connection_opened("seat")
    metrics.connection_opened("seat")
    metrics.connection_opened("spectator")
    metrics.connection_closed("seat")
    metrics.record_move("player", latency=0.004)
    metrics.record_move("player", latency=0.040)
    metrics.record_move("bot")
    metrics.record_move("auto")
    metrics.record_reconnect()
    metrics.record_lease_takeover()
    metrics.record_lease_takeover()

    scraped = await scrape(client)
    assert scraped[("gaple_tables_live", ())] == 1
    assert scraped[("gaple_connections", (("role", "seat"),))] == 1
    assert scraped[("gaple_connections", (("role", "spectator"),))] == 1
    assert scraped[("gaple_moves_total", (("kind", "player"),))] == 2
    assert scraped[("gaple_moves_total", (("kind", "bot"),))] == 1
    assert scraped[("gaple_moves_total", (("kind", "auto"),))] == 1
    assert scraped[("gaple_autoplays_total", ())] == 1  # an auto move is an auto-play
    assert scraped[("gaple_reconnects_total", ())] == 1
    assert scraped[("gaple_lease_takeovers_total", ())] == 2
    assert scraped[("gaple_move_latency_seconds_count", ())] == 2
    assert scraped[("gaple_move_latency_seconds_sum", ())] == pytest.approx(0.044)
    assert scraped[("gaple_move_latency_seconds_bucket", (("le", "0.005"),))] == 1
    assert scraped[("gaple_move_latency_seconds_bucket", (("le", "0.05"),))] == 2


def test_latency_buckets_resolve_1_to_100_ms(metrics: Metrics) -> None:
    buckets = [b for b in metrics_module.MOVE_LATENCY_BUCKETS if 0.001 <= b <= 0.1]
    assert buckets[0] == 0.001 and buckets[-1] == 0.1 and len(buckets) >= 10


def test_connection_context_manager(metrics: Metrics) -> None:
    def spectators() -> float | None:
        return metrics.registry.get_sample_value("gaple_connections", {"role": "spectator"})

    with metrics.connection("spectator"):
        assert spectators() == 1
    assert spectators() == 0
    with pytest.raises(RuntimeError), metrics.connection("spectator"):
        raise RuntimeError
    assert spectators() == 0


def test_unknown_label_values_are_refused(metrics: Metrics) -> None:
    with pytest.raises(ValueError, match="role"):
        metrics.connection_opened("player")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="kind"):
        metrics.record_move("human")  # type: ignore[arg-type]


def test_instances_do_not_share_state() -> None:
    first, second = Metrics(process=False), Metrics(process=False)
    first.record_reconnect()
    assert "gaple_reconnects_total 1.0" in first.render()[0].decode()
    assert "gaple_reconnects_total 0.0" in second.render()[0].decode()
    assert "process_" not in second.render()[0].decode()


async def test_each_app_serves_its_own_registry(tmp_path: Path) -> None:
    async with _app(tmp_path / "a") as first, _app(tmp_path / "b") as second:
        first_app = first._transport.app  # type: ignore[attr-defined]
        before = (await scrape(second))[("gaple_lease_takeovers_total", ())]
        first_app.state.metrics.record_lease_takeover()
        assert (await scrape(first))[("gaple_lease_takeovers_total", ())] == 1
        assert (await scrape(second))[("gaple_lease_takeovers_total", ())] == before


async def test_the_route_is_at_the_root_and_outside_the_api_docs(
    client: httpx.AsyncClient,
) -> None:
    assert (await client.get("/api/metrics")).status_code == 404
    openapi = (await client.get("/openapi.json")).json()
    assert "/metrics" not in openapi["paths"]


async def test_loop_lag_monitor_records_a_blocked_loop(metrics: Metrics) -> None:
    task = metrics.start_loop_lag_monitor(interval=0.02)
    try:
        await asyncio.sleep(0)  # the monitor starts its first sleep
        time.sleep(0.15)  # a blocking call holds the loop past the monitor's wake-up
        await asyncio.sleep(0.005)  # the overdue sleep returns and records how late it was
        # A histogram of every sample, not a last value: the late one sits above 100 ms.
        lag = metrics.registry.get_sample_value("gaple_event_loop_lag_seconds_sum")
        assert lag is not None and lag >= 0.1
        under_100ms = metrics.registry.get_sample_value(
            "gaple_event_loop_lag_seconds_bucket", {"le": "0.1"}
        )
        count = metrics.registry.get_sample_value("gaple_event_loop_lag_seconds_count")
        assert count is not None and under_100ms is not None and count - under_100ms >= 1
    finally:
        task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.get_name() == "gaple-loop-lag-monitor"


async def test_the_monitor_times_the_cycle_collector_while_it_runs(metrics: Metrics) -> None:
    def collections(generation: str) -> float:
        value = metrics.registry.get_sample_value(
            "gaple_gc_pause_seconds_count", {"generation": generation}
        )
        return value or 0.0

    task = metrics.start_loop_lag_monitor(interval=0.02)
    await asyncio.sleep(0)  # the monitor starts and hooks into the collector
    try:
        gc.collect()  # a full collection
        gc.collect(0)
        assert collections("2") >= 1 and collections("0") >= 1
        total = metrics.registry.get_sample_value("gaple_gc_pause_seconds_sum", {"generation": "2"})
        assert total is not None and total > 0
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    after = collections("2")
    gc.collect()  # the monitor is gone: no longer timed, and no callback left behind
    assert collections("2") == after
    assert metrics._time_gc not in gc.callbacks


async def test_http_requests_by_route_template_and_status(api: httpx.AsyncClient, app: Any) -> None:
    await api.get("/api/rooms/ZZZZZZ")
    await api.get("/api/rooms/YYYYYY")
    await api.post("/api/guests", json={"name": "Ayu"})
    await api.get("/no/such/page")
    scraped = await scrape(api)

    def count(method: str, route: str, status: str) -> float:
        labels = (("method", method), ("route", route), ("status", status))
        return scraped.get(("gaple_http_requests_total", labels), 0.0)

    assert count("GET", "/api/rooms/{code}", "404") == 2  # one series for every code
    assert count("POST", "/api/guests", "201") == 1
    assert count("GET", "unmatched", "404") == 1
    key = ("gaple_http_request_duration_seconds_count", (("route", "/api/guests"),))
    assert scraped[key] == 1


async def test_database_pools_in_use_and_waiting(api: httpx.AsyncClient, app: Any) -> None:
    db = app.state.db
    async with db.engine.connect():
        scraped = await scrape(api)
        in_use = scraped[("gaple_db_pool_connections", (("pool", "main"), ("state", "in_use")))]
        assert in_use == 1
        assert scraped[("gaple_db_pool_waiting", (("pool", "main"),))] == 0
    scraped = await scrape(api)
    assert scraped[("gaple_db_pool_connections", (("pool", "main"), ("state", "in_use")))] == 0


async def test_waiting_for_a_full_pool_is_counted(api: httpx.AsyncClient, app: Any) -> None:
    db = app.state.db
    pool = db.engine.sync_engine.pool
    held = [await db.engine.connect() for _ in range(pool.size() + pool._max_overflow)]

    async def wait_for_one() -> Any:
        return await db.engine.connect()

    waiter = asyncio.create_task(wait_for_one())
    try:
        await asyncio.sleep(0.05)
        scraped = await scrape(api)
        assert scraped[("gaple_db_pool_waiting", (("pool", "main"),))] == 1
    finally:
        for conn in held:
            await conn.close()
        await (await waiter).close()


def test_build_info(metrics: Metrics) -> None:
    import platform

    labels = {
        "version": metrics_module._version(),
        "python": platform.python_version(),
        "engine": "python",  # a checkout; the compiled build: tests/engine/test_compiled.py
    }
    assert metrics.registry.get_sample_value("gaple_build_info", labels) == 1


async def test_redis_round_trips(metrics: Metrics, redis_url: str) -> None:
    from redis.asyncio import Redis

    client = Redis.from_url(redis_url)
    task = metrics.start_redis_probe(client, interval=0.01)
    try:
        for _ in range(200):
            if (metrics.registry.get_sample_value("gaple_redis_roundtrip_seconds_count") or 0) >= 3:
                break
            await asyncio.sleep(0.01)
        assert metrics.registry.get_sample_value("gaple_redis_roundtrip_seconds_count") >= 3
    finally:
        task.cancel()
        await client.aclose()
