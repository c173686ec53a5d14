"""The database dropping out under a live table: PostgreSQL behind a TCP proxy of the test's own
(tests/app/live/pgproxy.py), cut and resumed; the shared server is never stopped."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from app.settings import Settings
from tests.app.live.conftest import LiveTable, stored_moves, to_move
from tests.app.live.pgproxy import PgProxy
from tests.app.live.test_table import play_of
from tests.conftest import TEST_SECRET_KEY

pytestmark = pytest.mark.parametrize("database_url", ["postgres"], indirect=True)


@pytest.fixture
async def pg_proxy(database_url: str) -> AsyncIterator[PgProxy]:
    proxy = PgProxy(database_url)
    proxy.proxied_url = await proxy.start()  # type: ignore[attr-defined]
    try:
        yield proxy
    finally:
        await proxy.close()


@pytest.fixture
def settings(pg_proxy: PgProxy, tmp_path: Path) -> Settings:
    return Settings(
        database_url=pg_proxy.proxied_url,  # type: ignore[attr-defined]
        data_dir=tmp_path / "data",
        secret_key=TEST_SECRET_KEY,
        migrate_on_start=False,
        redis_url=None,
        public_url=None,
        production=False,
    )


async def _until(condition: Any, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


async def test_a_move_whose_commit_was_cut_is_acked_when_resent_and_the_table_is_kept(
    live_table: Any, app: Any, pg_proxy: PgProxy
) -> None:
    live: LiveTable = await live_table()
    probe = to_move(live)
    move = play_of(probe, move_id="cut")
    pg_proxy.cut_after(b"COMMIT")
    await live.table.request(probe.conn, move)  # stored, but the answer never came
    await live.settle()
    assert pg_proxy.cuts == 1
    pg_proxy.resume()
    if probe.errors()[-1:] == ["unavailable"]:
        await live.table.request(probe.conn, move)  # the client sends the same move id again
        await live.settle()
    acks = probe.of_type("ack")
    assert [a["move_id"] for a in acks] == ["cut"]
    assert not live.table.lost and all(p.closed_with is None for p in live.probes)
    assert [m.client_move_id for m in await stored_moves(app)] == ["cut"]
    assert live.table.core.move_seq == 1
