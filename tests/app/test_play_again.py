"""Quick play after a set: the result stays until the players choose. "Play again" by every
seated human starts the next set at the same table; one "play again" lets bots fill after the
bot-fill delay; "start now with bots"; the last human leaving closes the room. REST and the
socket's room frame, on SQLite and PostgreSQL, with the real sweeper on short settings."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app.rooms.clock import FakeClock
from app.rooms.manager import TableManager
from app.rooms.store import SqlGameStore
from app.rooms.sweeper import Sweeper
from app.settings import Settings
from app.store.models import GameSet
from app.store.types import utcnow
from tests.app.live.conftest import CONFIG, LiveTable, Probe
from tests.app.live.test_table import play_until
from tests.conftest import Guest

FILL = 2.0  # GAPLE_QUICKPLAY_BOT_FILL_SECONDS here
SWEEP = 0.1  # GAPLE_SWEEP_SECONDS here: the real sweeper runs often
GANDA = {"preset": "pordi", "mode": "ganda", "turn_seconds": 15}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"quickplay_bot_fill_seconds": FILL, "sweep_seconds": SWEEP})


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=time.time())  # the table's clock and the database's agree


@pytest.fixture
def live_factory(clock: FakeClock) -> Callable[[Any], TableManager]:
    return lambda app: TableManager(
        SqlGameStore(app.state.db, bot_fill=FILL), clock=clock, config=CONFIG
    )


async def _quick(api: httpx.AsyncClient, guest: Guest) -> dict[str, Any]:
    response = await api.post("/api/quickplay", json=GANDA, headers=guest.headers)
    assert response.status_code == 200, response.text
    return dict(response.json()["room"])


async def _room(api: httpx.AsyncClient, code: str) -> dict[str, Any]:
    response = await api.get(f"/api/rooms/{code}")
    assert response.status_code == 200, response.text
    return dict(response.json())


async def _sets(app: Any, room_id: str) -> int:
    async with app.state.db.session() as session:
        count = await session.scalar(select(func.count()).where(GameSet.room_id == room_id))
        return int(count or 0)


async def _played(
    api: httpx.AsyncClient, app: Any, guests: list[Guest], clock: FakeClock
) -> tuple[dict[str, Any], LiveTable]:
    """Four guests' quick-play table (it starts at once), each with a socket, its set played
    out to the end."""
    for guest in guests:
        room = await _quick(api, guest)
    assert room["status"] == "playing"
    table = await app.state.live.get(room["id"])
    probes = []
    for guest in guests:
        probe = Probe()
        probe.conn.player_id = guest.player_id
        await table.join(probe.conn, None)
        probes.append(probe)
    live = LiveTable(table=table, code=room["code"], guests=guests, probes=probes)
    await live.settle()
    await play_until(live, clock, lambda: table.state.phase == "set_over", limit=2000)
    return room, live


async def _until(check: Callable[[], Any], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not await check():
        assert time.monotonic() < deadline, "it did not happen"
        await asyncio.sleep(0.05)


def _error(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


async def test_a_played_set_stays_over_until_its_players_choose(
    api: httpx.AsyncClient, app: Any, make_guest: Any, clock: FakeClock
) -> None:
    guests = [await make_guest(f"G{n}") for n in range(4)]
    room, live = await _played(api, app, guests, clock)
    table, probes = live.table, live.probes
    frame = probes[0].of_type("room")[-1]["room"]
    assert frame["status"] == "open" and frame["quickplay"] is True
    assert frame["bots_in_ms"] is None and [s["ready"] for s in frame["seats"]] == [False] * 4

    # Past the bot-fill delay and many sweeps (the real sweeper, and one far in the future):
    # no new set starts by itself; the result stays.
    await asyncio.sleep(FILL + 10 * SWEEP)
    swept = await Sweeper(app.state.db, app.state.live, app.state.settings).sweep(
        now=utcnow() + timedelta(seconds=300)
    )
    assert swept.filled == []
    after = await _room(api, room["code"])
    assert after["status"] == "open" and after["bots_in_ms"] is None
    assert table.set_number == 1 and table.state.phase == "set_over"
    assert await _sets(app, room["id"]) == 1

    # "Play again": one choice shows on every socket and starts the bots' countdown.
    first = await api.post(f"/api/rooms/{room['code']}/again", headers=guests[0].headers)
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["status"] == "open" and [s["ready"] for s in body["seats"]] == [
        True,
        False,
        False,
        False,
    ]
    assert 0 < body["bots_in_ms"] <= FILL * 1000
    await live.settle()
    frame = probes[3].of_type("room")[-1]["room"]
    assert [s["ready"] for s in frame["seats"]] == [True, False, False, False]
    assert isinstance(frame["bots_in_ms"], int)  # counted on the table's clock
    # Again is harmless; once all four chose it, the next set starts at the same table.
    for guest in [guests[0], *guests[1:]]:
        response = await api.post(f"/api/rooms/{room['code']}/again", headers=guest.headers)
        assert response.status_code == 200, response.text
    assert response.json()["status"] == "playing"
    assert [s["player_id"] for s in response.json()["seats"]] == [g.player_id for g in guests]
    assert [s["ready"] for s in response.json()["seats"]] == [False] * 4
    await live.settle()
    assert table.set_number == 2 and table.state.phase == "playing"


async def test_one_play_again_and_bots_fill_after_the_delay(
    api: httpx.AsyncClient, app: Any, make_guest: Any, clock: FakeClock
) -> None:
    guests = [await make_guest(f"G{n}") for n in range(4)]
    room, _ = await _played(api, app, guests, clock)
    code = room["code"]
    chose = time.monotonic()
    assert (await api.post(f"/api/rooms/{code}/again", headers=guests[2].headers)).is_success
    assert (await _room(api, code))["status"] == "open"

    async def started() -> bool:
        return (await _room(api, code))["status"] == "playing"

    await _until(started)
    assert time.monotonic() - chose >= FILL - SWEEP  # not before the delay
    after = await _room(api, code)
    # Only the one who chose plays on: the others' seats went to bots; they were not put into
    # a set they did not choose.
    assert [s["player_id"] for s in after["seats"]] == [None, None, guests[2].player_id, None]
    assert [s["bot"] for s in after["seats"]] == ["normal", "normal", None, "normal"]
    assert after["bots_in_ms"] is None

    async def second_set() -> bool:  # the live table stores it once told the set started
        return await _sets(app, room["id"]) == 2

    await _until(second_set)


async def test_start_now_with_bots(api: httpx.AsyncClient, app: Any, make_guest: Any) -> None:
    ayu, budi, cici = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("Cici")
    room = await _quick(api, ayu)
    await _quick(api, budi)
    waiting = await _room(api, room["code"])
    assert waiting["status"] == "open" and 0 < waiting["bots_in_ms"] <= FILL * 1000
    # Someone who is not seated may not start it: nothing changes.
    refused = await api.post(f"/api/rooms/{room['code']}/fill", headers=cici.headers)
    assert _error(refused) == (409, "not_seated")
    assert (await _room(api, room["code"]))["seats_taken"] == 2
    response = await api.post(f"/api/rooms/{room['code']}/fill", headers=budi.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "playing" and body["bots_in_ms"] is None
    assert [s["player_id"] for s in body["seats"][:2]] == [ayu.player_id, budi.player_id]
    assert [s["bot"] for s in body["seats"][2:]] == ["normal", "normal"]
    # While the set is played, neither call does anything.
    for path in ("fill", "again"):
        busy = await api.post(f"/api/rooms/{room['code']}/{path}", headers=ayu.headers)
        assert _error(busy) == (409, "set_in_progress")
    assert await _sets(app, room["id"]) == 1


async def test_leaving_a_finished_table(
    api: httpx.AsyncClient, app: Any, make_guest: Any, clock: FakeClock
) -> None:
    guests = [await make_guest(f"G{n}") for n in range(4)]
    room, _ = await _played(api, app, guests, clock)
    code = room["code"]
    # Three chose "play again"; the fourth leaves: everyone seated agreed, the set starts.
    for guest in guests[:3]:
        assert (await api.post(f"/api/rooms/{code}/again", headers=guest.headers)).is_success
    left = await api.delete(f"/api/rooms/{code}/seats/3", headers=guests[3].headers)
    assert left.status_code == 200, left.text
    assert left.json()["status"] == "playing"
    assert [s["bot"] for s in left.json()["seats"]] == [None, None, None, "normal"]


async def test_the_last_human_leaving_closes_the_room(
    api: httpx.AsyncClient, app: Any, make_guest: Any, clock: FakeClock
) -> None:
    guests = [await make_guest(f"G{n}") for n in range(4)]
    room, _ = await _played(api, app, guests, clock)
    code = room["code"]
    for seat, guest in enumerate(guests):
        response = await api.delete(f"/api/rooms/{code}/seats/{seat}", headers=guest.headers)
        assert response.status_code == 200, response.text
        status = response.json()["status"]
        assert status == ("closed" if seat == 3 else "open")
    closed = await _room(api, code)
    assert closed["closed_reason"] == "no_host" and closed["seats_taken"] == 0


async def test_bad_calls_change_nothing(
    api: httpx.AsyncClient, app: Any, make_guest: Any, clock: FakeClock
) -> None:
    guests = [await make_guest(f"G{n}") for n in range(4)]
    outsider = await make_guest("Dewi")
    room, _ = await _played(api, app, guests, clock)
    code = room["code"]
    before = await _room(api, code)
    for path in ("again", "fill"):
        response = await api.post(f"/api/rooms/{code}/{path}", headers=outsider.headers)
        assert _error(response) == (409, "not_seated")
        unknown = await api.post(f"/api/rooms/NOSUCH/{path}", headers=guests[0].headers)
        assert _error(unknown) == (404, "room_not_found")
        anonymous = await api.post(f"/api/rooms/{code}/{path}")
        assert anonymous.status_code == 401
    assert await _room(api, code) == {**before, "active_at": (await _room(api, code))["active_at"]}
    assert before["seats"] == (await _room(api, code))["seats"]

    # A table that is not quick play.
    host = guests[0]
    made = await api.post("/api/rooms", json={"mode": "tunggal"}, headers=host.headers)
    other = made.json()["code"]
    assert (await api.post(f"/api/rooms/{other}/seats/0", headers=host.headers)).is_success
    for path in ("again", "fill"):
        response = await api.post(f"/api/rooms/{other}/{path}", headers=host.headers)
        assert _error(response) == (409, "not_quickplay")
    assert (await _room(api, other))["status"] == "open"

    # Play again before any set was played: nothing to play again.
    fresh = await _quick(api, outsider)
    early = await api.post(f"/api/rooms/{fresh['code']}/again", headers=outsider.headers)
    assert _error(early) == (409, "not_playing")
    assert [s["ready"] for s in (await _room(api, fresh["code"]))["seats"]] == [False] * 4

    # A closed room.
    for seat, guest in enumerate(guests):
        await api.delete(f"/api/rooms/{code}/seats/{seat}", headers=guest.headers)
    gone = await api.post(f"/api/rooms/{code}/again", headers=guests[0].headers)
    assert _error(gone) == (409, "room_closed")
