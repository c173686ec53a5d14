"""POST /api/records/replay: a Gaple record from a file, checked by the rules and re-played as the
replay page draws a stored set; a broken record is refused naming its line and column; nothing
is stored. On SQLite and PostgreSQL (a whole set played at the real live tables)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from app.rooms.clock import FakeClock
from app.settings import Settings
from app.store.models import Deal, GameSet, Move
from engine import klasik
from engine.notation import record_of, write
from tests.app.live import conftest as live
from tests.app.live.conftest import LiveTable
from tests.app.test_history import play_set
from tests.conftest import TEST_SECRET_KEY
from tests.engine.test_notation import seeded_set

clock = live.clock
live_factory = live.live_factory
live_table = live.live_table

URL = "/api/records/replay"
TEXT = {"Content-Type": "text/plain; charset=utf-8"}
RATE = 8  # calls per minute per address: the last test spends them all
# What only a stored set has: its id, room, times, accounts, each deal's commitment.
STORED_ONLY = {"set_id", "room", "number", "started_at", "ended_at", "link", "seats", "deals"}
STORED_DEAL_ONLY = {"started_at", "ended_at", "fairness", "moves"}
STORED_MOVE_ONLY = {"auto", "at"}


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return Settings(
        database_url=database_url,
        data_dir=tmp_path / "data",
        secret_key=TEST_SECRET_KEY,
        migrate_on_start=False,
        redis_url=None,
        public_url=None,
        production=False,
        rate_records=f"{RATE}/minute",
    )


async def stored_rows(app: Any) -> tuple[int, int, int]:
    async with app.state.db.session() as session:
        counts = [
            await session.scalar(select(func.count()).select_from(model))
            for model in (GameSet, Deal, Move)
        ]
    return counts[0] or 0, counts[1] or 0, counts[2] or 0


async def finished_set(live_table: Any, clock: FakeClock, api: Any) -> tuple[str, dict[str, Any]]:
    """A whole set played at a live table: its record, and its replay as stored."""
    table: LiveTable = await live_table(deals_per_set=2, mode="ganda")
    await play_set(table, clock)
    set_id = table.table.core.set_id
    record = await api.get(f"/api/sets/{set_id}/record")
    assert record.status_code == 200, record.text
    detail = await api.get(f"/api/sets/{set_id}")
    assert detail.status_code == 200, detail.text
    return record.text, detail.json()


async def test_a_record_replays_as_its_stored_set(
    live_table: Any, api: Any, app: Any, clock: FakeClock
) -> None:
    text, stored = await finished_set(live_table, clock, api)
    before = await stored_rows(app)
    response = await api.post(URL, content=text.encode(), headers=TEXT)
    assert response.status_code == 200, response.text
    body = response.json()
    # Every fact the record carries is the stored set's, deal by deal and move by move.
    assert {k: v for k, v in stored.items() if k not in STORED_ONLY} == {
        k: v for k, v in body.items() if k not in ("seats", "deals")
    }
    assert body["status"] == "finished" and body["result"]["kind"] == "set_ended"
    assert [s["name"] for s in body["seats"]] == [
        s["name"] or f"bot {s['seat'] + 1}" for s in stored["seats"]
    ]
    assert len(body["deals"]) == len(stored["deals"]) >= 2
    for mine, theirs in zip(body["deals"], stored["deals"], strict=True):
        assert {k: v for k, v in theirs.items() if k not in STORED_DEAL_ONLY} == {
            k: v for k, v in mine.items() if k != "moves"
        }
        assert mine["moves"] == [
            {k: v for k, v in m.items() if k not in STORED_MOVE_ONLY} for m in theirs["moves"]
        ]
    assert await stored_rows(app) == before  # nothing stored


async def test_a_draw_domino_record_replays_with_its_draws(api: Any) -> None:
    rules = klasik(stuck="draw", deals_per_set=2, target_points=30)
    text = write(record_of(rules, ["Ayu", "Budi", "Citra", "Dewi"], seeded_set(rules, 2)))
    response = await api.post(URL, content=text.encode(), headers={"Content-Type": "text/plain"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["preset"] == "klasik" and body["rules"]["stuck"] == "draw"
    assert [s["name"] for s in body["seats"]] == ["Ayu", "Budi", "Citra", "Dewi"]
    drawn = [d for deal in body["deals"] for m in deal["moves"] for d in m["draws"]]
    drawn += [d for deal in body["deals"] for d in deal["draws"]]
    assert drawn  # the stuck seats drew from the boneyard, as the engine re-played it
    assert all(deal["set_aside"] for deal in body["deals"])


def refused(response: Any, line: int, column: int) -> str:
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "bad_record"
    assert (error["line"], error["column"]) == (line, column)
    assert f"line {line}, column {column}" in error["message"]
    return str(error["message"])


async def test_a_broken_record_names_its_line_and_column(
    live_table: Any, api: Any, app: Any, clock: FakeClock
) -> None:
    text, _ = await finished_set(live_table, clock, api)
    lines = text.split("\n")
    k = next(i for i, raw in enumerate(lines) if raw.startswith("  ")) + 1  # the first move
    seat, tile = lines[k - 1].split()[:2]
    lines[k - 1] = f"  {seat} {tile[0]}-9"  # no tile has a 9
    before = await stored_rows(app)
    response = await api.post(URL, content="\n".join(lines).encode(), headers=TEXT)
    assert "a tile is a-b" in refused(response, k, 5)
    not_a_record = await api.post(URL, content=b"hello\n", headers=TEXT)
    refused(not_a_record, 1, 1)
    latin = text.replace("\nseat 0 ", '\nseat 0 "\xe9" ', 1).encode("latin-1")
    seat_line = next(i for i, raw in enumerate(lines, start=1) if raw.startswith("seat 0 "))
    refused(await api.post(URL, content=latin, headers=TEXT), seat_line, 9)
    assert await stored_rows(app) == before


async def test_the_checker_refuses_an_illegal_move(
    live_table: Any, api: Any, clock: FakeClock
) -> None:
    text, stored = await finished_set(live_table, clock, api)
    lines = text.split("\n")
    k = [i for i, raw in enumerate(lines, start=1) if raw.startswith("  ")][1]  # second move
    seat = lines[k - 1].split()[0]
    first = stored["deals"][0]
    ends = set(first["moves"][0]["ends"].values())
    # A tile of the seat's own hand that fits neither open end, or else another seat's tile:
    # well formed, not legal.
    hand = first["hands"][int(seat)]
    misfits = [t for t in hand if not ends & {int(n) for n in t.split("-")}]
    other = first["hands"][(int(seat) + 1) % 4][0]
    lines[k - 1] = f"  {seat} {(misfits or [other])[0]} right"
    response = await api.post(URL, content="\n".join(lines).encode(), headers=TEXT)
    refused(response, k, 3)


async def test_an_oversized_body_or_another_media_type_is_refused(
    api: Any, settings: Settings
) -> None:
    rules = klasik(deals_per_set=1)
    text = write(record_of(rules, ["A", "B", "C", "D"], seeded_set(rules, 0)))
    too_long = text + "x" * settings.max_body_bytes
    response = await api.post(URL, content=too_long.encode(), headers=TEXT)
    assert response.status_code == 413, response.text
    assert response.json()["error"]["code"] == "too_large"
    for media in ("application/json", "text/plain; charset=latin-1", None):
        headers = {"Content-Type": media} if media else {}
        wrong = await api.post(URL, content=text.encode(), headers=headers)
        assert wrong.status_code == 415, (media, wrong.text)
        assert wrong.json()["error"]["code"] == "unsupported_media_type"
    assert (await api.post(URL, content=text.encode(), headers=TEXT)).status_code == 200


async def test_replays_are_rate_limited_per_address(api: Any) -> None:
    rules = klasik(deals_per_set=1)
    text = write(record_of(rules, ["A", "B", "C", "D"], seeded_set(rules, 0))).encode()
    for _ in range(RATE):
        assert (await api.post(URL, content=text, headers=TEXT)).status_code == 200
    limited = await api.post(URL, content=text, headers=TEXT)
    assert limited.status_code == 429, limited.text
    assert limited.json()["error"]["code"] == "rate_limited"
    assert int(limited.headers["Retry-After"]) >= 1
