"""A finished deal's analysis over the REST API: 202 while the worker pool computes it, then the
stored analysis, on SQLite and PostgreSQL (whole sets played at the real live tables)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr
from sqlalchemy import select

from app.rooms import analysis
from app.rooms.clock import FakeClock
from app.settings import Settings
from app.store.models import Deal, DealAnalysis, GameSet
from app.store.types import utcnow
from engine.analysis import analyse_stored
from engine.notation import check
from tests.app.live import conftest as live
from tests.app.live.conftest import LiveTable
from tests.app.test_history import play_moves, play_set
from tests.conftest import TEST_SECRET_KEY

clock = live.clock
live_factory = live.live_factory
live_table = live.live_table

MAX_NODES, PLAYOUTS = 20_000, 12  # small: the test is about serving and storing, not solving


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return Settings(
        database_url=database_url,
        data_dir=tmp_path / "data",
        secret_key=SecretStr(TEST_SECRET_KEY),
        migrate_on_start=False,
        redis_url=None,
        public_url=None,
        production=False,
        analysis_max_nodes=MAX_NODES,
        analysis_playouts=PLAYOUTS,
    )


async def test_a_finished_deal_is_analysed_once_then_served(
    live_table: Any, api: Any, app: Any, clock: FakeClock
) -> None:
    table: LiveTable = await live_table(deals_per_set=2, mode="ganda")
    await play_set(table, clock)
    set_id = table.table.core.set_id
    url = f"/api/sets/{set_id}/deals/2/analysis"
    first = await api.get(url)
    assert first.status_code == 202, first.text
    assert first.json() == {"status": "computing"}
    await analysis.settle()
    done = await api.get(url)
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["status"] == "done" and body["deal_number"] == 2

    detail = (await api.get(f"/api/sets/{set_id}")).json()
    moves = detail["deals"][1]["moves"]
    assert [(m["seat"], m["tile"]) for m in moves] == [
        (e["seat"], e["move"]["tile"]) for e in body["moves"]
    ]
    # What the engine gives for the same stored deals, with the same budgets.
    stored = [
        (d["fairness"]["secret"], [{"tile": m["tile"], "end": m["end"]} for m in d["moves"]])
        for d in detail["deals"][:2]
    ]
    want = analyse_stored(detail["rules"], stored, max_nodes=MAX_NODES, playouts=PLAYOUTS)
    assert body == {"status": "done", **want}
    assert body["points"] == detail["deals"][1]["points"]

    # Computed once: kept, and served as kept.
    async with app.state.db.session() as session:
        rows = list(await session.scalars(select(DealAnalysis)))
    assert len(rows) == 1 and rows[0].body == want and rows[0].finished_at is not None
    again = await api.get(url)
    assert again.status_code == 200 and again.json() == body


async def test_no_analysis_of_a_deal_in_play_or_of_no_deal(
    live_table: Any, api: Any, app: Any, clock: FakeClock
) -> None:
    table: LiveTable = await live_table(deals_per_set=3)
    await play_moves(table, clock, 3)
    set_id = table.table.core.set_id
    assert set_id is not None
    in_play = await api.get(f"/api/sets/{set_id}/deals/1/analysis")
    assert in_play.status_code == 409, in_play.text
    assert in_play.json()["error"]["code"] == "conflict"
    for url in (
        f"/api/sets/{set_id}/deals/2/analysis",
        f"/api/sets/{set_id + 99}/deals/1/analysis",
    ):
        missing = await api.get(url)
        assert missing.status_code == 404, missing.text
    assert (await api.get(f"/api/sets/{set_id}/deals/0/analysis")).status_code == 422
    async with app.state.db.session() as session:
        assert list(await session.scalars(select(DealAnalysis))) == []


async def test_a_set_is_served_as_a_record_that_checks(
    live_table: Any, api: Any, clock: FakeClock
) -> None:
    table: LiveTable = await live_table(deals_per_set=2)
    await play_set(table, clock)
    set_id = table.table.core.set_id
    assert set_id is not None
    response = await api.get(f"/api/sets/{set_id}/record")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    record = check(response.text)  # every move legal, every result right
    detail = (await api.get(f"/api/sets/{set_id}")).json()
    assert len(record.deals) == len(detail["deals"]) >= 2  # a tie adds an Additional Game
    for deal, stored in zip(record.deals, detail["deals"], strict=True):
        assert deal.source == stored["fairness"]["secret"]
        assert [(m.seat, m.tile) for m in deal.moves] == [
            (m["seat"], m["tile"]) for m in stored["moves"]
        ]
        assert list(deal.points) == stored["points"]
    assert record.scores is not None and list(record.scores) == detail["scores"]
    assert (await api.get(f"/api/sets/{set_id + 99}/record")).status_code == 404


async def test_a_claim_left_by_a_stopped_node_is_computed_again(
    live_table: Any, api: Any, app: Any, clock: FakeClock
) -> None:
    table: LiveTable = await live_table(deals_per_set=2, mode="ganda")
    await play_set(table, clock)
    set_id = table.table.core.set_id
    async with app.state.db.session() as session:
        deal = (await session.scalars(select(Deal).where(Deal.set_id == set_id))).first()
        assert deal is not None
        fresh = DealAnalysis(deal_id=deal.id, body=None, started_at=utcnow())
        session.add(fresh)
        await session.commit()
    url = f"/api/sets/{set_id}/deals/{deal.number}/analysis"
    assert (await api.get(url)).status_code == 202  # being computed elsewhere: wait
    await analysis.settle()
    assert (await api.get(url)).status_code == 202  # nobody here started it
    async with app.state.db.session() as session:
        row = await session.get(DealAnalysis, deal.id)
        assert row is not None
        row.started_at = utcnow() - analysis.STALE - timedelta(seconds=1)
        await session.commit()
    assert (await api.get(url)).status_code == 202  # stale: computed again, here
    await analysis.settle()
    done = await api.get(url)
    assert done.status_code == 200, done.text


async def test_a_failed_computation_is_forgotten_and_tried_again(
    live_table: Any, api: Any, app: Any, clock: FakeClock
) -> None:
    table: LiveTable = await live_table(deals_per_set=2, mode="ganda")
    await play_set(table, clock)
    set_id = table.table.core.set_id
    url = f"/api/sets/{set_id}/deals/1/analysis"
    async with app.state.db.session() as session:
        game_set = await session.get(GameSet, set_id)
        assert game_set is not None
        rules = dict(game_set.rules)
        game_set.rules = {**rules, "hand_size": 99}  # the worker's replay refuses these rules
        await session.commit()
    assert (await api.get(url)).status_code == 202
    await analysis.settle()
    async with app.state.db.session() as session:
        assert list(await session.scalars(select(DealAnalysis))) == []  # the claim is released
        game_set = await session.get(GameSet, set_id)
        assert game_set is not None
        game_set.rules = rules
        await session.commit()
    assert (await api.get(url)).status_code == 202  # asked again: computed again
    await analysis.settle()
    assert (await api.get(url)).status_code == 200
