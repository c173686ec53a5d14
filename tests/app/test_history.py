"""History and replays over the REST API, on whole sets played at the real live tables (the
room actor on a fake clock, storing into SQLite and PostgreSQL).

What a replay shows is checked against what the table sent while it was played: each seat's hand
from the ``deal_started`` its own socket got, each move from the ``played``/``discarded`` events,
the result from ``deal_ended``; never against the code under test.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from sqlalchemy import select

from app.rooms.clock import FakeClock
from app.store.models import Deal
from app.ws.messages import Play
from tests.app.live import conftest as live
from tests.app.live.conftest import CONFIG, LiveTable, to_move

# The live tables' fixtures (a fake clock, the real TableManager, seated probes), shared as-is.
clock = live.clock
live_factory = live.live_factory
live_table = live.live_table

MOVE_IDS = itertools.count()  # a move id is never reused (a resent id is answered, not played)


async def play_moves(live_table_: LiveTable, clock_: FakeClock, count: int) -> None:
    """Play ``count`` moves, each the first legal option of the seat to move; a finished deal
    waits out its pause and the next deal starts."""
    played = 0
    for _ in range(count * 3):
        if played == count or live_table_.table.state.phase == "set_over":
            return
        if live_table_.table.state.phase == "deal_over":
            clock_.advance(CONFIG.deal_pause)
        else:
            probe = to_move(live_table_)
            option = probe.view["legal"][0]
            move_id = f"h{next(MOVE_IDS)}"
            message = Play(type="play", move_id=move_id, tile=option["tile"], end=option["end"])
            await live_table_.table.request(probe.conn, message)
            played += 1
        await live_table_.settle()


async def play_set(live_table_: LiveTable, clock_: FakeClock) -> None:
    await play_moves(live_table_, clock_, 10_000)
    assert live_table_.table.state.phase == "set_over"


def seen_by(live_table_: LiveTable, seat: int, kind: str) -> list[dict[str, Any]]:
    return [
        f["event"] for f in live_table_.probes[seat].of_type("event") if f["event"]["kind"] == kind
    ]


async def test_a_finished_set_replays_what_was_played(
    live_table: Any, api: Any, clock: FakeClock
) -> None:
    table: LiveTable = await live_table(deals_per_set=2)
    await play_set(table, clock)
    set_id = table.table.set_id
    response = await api.get(f"/api/sets/{set_id}")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "finished" and body["link"] == f"/replay/{set_id}"
    assert [d["status"] for d in body["deals"]] == ["finished"] * len(body["deals"])
    for seat in range(4):
        dealt = seen_by(table, seat, "deal_started")
        assert [d["hands"][seat] for d in body["deals"]] == [sorted(e["hand"]) for e in dealt]
    played = seen_by(table, 0, "played")
    moves = [m for d in body["deals"] for m in d["moves"]]
    assert [(m["seat"], m["tile"], m["end"]) for m in moves] == [
        (e["seat"], e["tile"], e["end"]) for e in played
    ]
    ended = seen_by(table, 0, "deal_ended")
    assert [d["points"] for d in body["deals"]] == [e["points"] for e in ended]
    assert [d["scores"] for d in body["deals"]] == [e["scores"] for e in ended]
    assert body["scores"] == ended[-1]["scores"]


def tile_names(value: Any) -> set[str]:
    return set(re.findall(r"\b[0-6]-[0-6]\b", json.dumps(value)))


async def test_a_deal_in_play_shows_no_hands_moves_or_seed(
    live_table: Any, api: Any, app: Any, clock: FakeClock
) -> None:
    table: LiveTable = await live_table(deals_per_set=3)
    await play_moves(table, clock, 3)
    body = (await api.get(f"/api/sets/{table.table.set_id}")).json()
    assert body["status"] == "in_play" and body["result"] is None
    [deal] = body["deals"]
    assert deal["number"] == 1 and deal["status"] == "in_play"
    assert {k for k, v in deal.items() if v is not None} == {"number", "status", "started_at"}
    assert tile_names(body["deals"]) == set()  # not a tile of the live deal, anywhere
    async with app.state.db.session() as session:
        seed = (await session.scalars(select(Deal.seed))).one()
    assert str(seed) not in json.dumps(body)

    # Once it is over it shows in full, and the next deal, in play, shows nothing.
    for _ in range(100):
        if table.table.state.deal_number == 2:
            break
        await play_moves(table, clock, 1)
    body = (await api.get(f"/api/sets/{table.table.set_id}")).json()
    first, second = body["deals"]
    assert first["status"] == "finished" and len(first["hands"]) == 4
    assert second["status"] == "in_play" and second["hands"] is None and second["moves"] is None
    assert body["scores"] == first["scores"]
    live_hands = {t for probe in table.probes for t in probe.view["hand"]}
    assert not live_hands & tile_names(second)


async def test_an_unknown_set_is_a_404_in_the_error_envelope(api: Any) -> None:
    response = await api.get("/api/sets/999999")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    response = await api.get("/api/sets/abc")
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "set_id"
