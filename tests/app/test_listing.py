"""GET /api/rooms lists only tables a person can use, newest activity first, in pages; the
sweeper closes idle open rooms. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from app.settings import Settings
from tests.app.test_rooms import RecordingLive, _error, set_online
from tests.conftest import Guest

IDLE = 0.4  # GAPLE_OPEN_ROOM_IDLE_SECONDS, short


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={"open_room_idle_seconds": IDLE, "sweep_seconds": 0.05, "rooms_per_player": 20}
    )


@pytest.fixture
def live_factory() -> Any:
    return lambda app: RecordingLive()


async def _room(api: httpx.AsyncClient, host: Guest, *, seats: int = 1, **settings: Any) -> str:
    """A room with the host in seat 0 and bots in the next ``seats - 1`` seats."""
    made = await api.post("/api/rooms", json=settings, headers=host.headers)
    assert made.status_code == 201, made.text
    code: str = made.json()["code"]
    if seats:
        assert (await api.post(f"/api/rooms/{code}/seats/0", headers=host.headers)).is_success
    for seat in range(1, seats):
        await api.post(f"/api/rooms/{code}/bots/{seat}", json={}, headers=host.headers)
    return code


async def _listed(api: httpx.AsyncClient, **params: Any) -> list[str]:
    response = await api.get("/api/rooms", params=params)
    assert response.status_code == 200, response.text
    return [room["code"] for room in response.json()["rooms"]]


async def test_only_usable_rooms_are_listed(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    host = await make_guest("Host")
    waiting = await _room(api, host, seats=2)
    await set_online(app, waiting)
    private = await _room(api, host, public=False)
    await set_online(app, private)
    full = await _room(api, host, seats=4)  # every seat taken, not started: nobody can join
    await set_online(app, full)
    nobody = await _room(api, host, seats=2)  # nobody connected
    playing = await _room(api, host, seats=4)
    assert (await api.post(f"/api/rooms/{playing}/start", headers=host.headers)).is_success
    await set_online(app, playing)
    deserted = await _room(api, host, seats=4)  # playing, every human gone
    await api.post(f"/api/rooms/{deserted}/start", headers=host.headers)
    closed = await _room(api, host, seats=2)
    await set_online(app, closed)
    await api.delete(f"/api/rooms/{closed}", headers=host.headers)

    assert await _listed(api) == [playing, waiting]  # newest activity first
    body = (await api.get("/api/rooms")).json()
    assert body["next_cursor"] is None
    by_code = {room["code"]: room for room in body["rooms"]}
    assert by_code[waiting]["seats_free"] == 2 and by_code[waiting]["humans_online"] == 1
    # The host by id too: the lobby links the name to the host's profile.
    assert by_code[waiting]["host_id"] == host.player_id and by_code[waiting]["host_name"] == "Host"
    assert by_code[playing]["status"] == "playing" and by_code[playing]["seats_free"] == 3
    # Activity moves a room up; presence going to zero takes it off.
    await set_online(app, waiting, humans=2)
    assert await _listed(api) == [waiting, playing]
    await set_online(app, playing, humans=0)
    assert await _listed(api) == [waiting]
    assert nobody and deserted  # never listed


async def test_pages(api: httpx.AsyncClient, app: Any, make_guest: Any) -> None:
    host = await make_guest("Host")
    codes = []
    for _ in range(5):
        codes.append(await _room(api, host))
        await set_online(app, codes[-1])
    newest_first = codes[::-1]
    assert await _listed(api) == newest_first
    seen: list[str] = []
    cursor = None
    for expected in [2, 2, 1]:
        params: dict[str, Any] = {"limit": 2}
        if cursor:
            params["cursor"] = cursor
        body = (await api.get("/api/rooms", params=params)).json()
        assert len(body["rooms"]) == expected
        seen += [room["code"] for room in body["rooms"]]
        cursor = body["next_cursor"]
    assert cursor is None and seen == newest_first
    # The same instant for several rooms: the id orders them, nothing is lost or repeated.
    async with app.state.db.session() as session:
        from sqlalchemy import update

        from app.store.models import Room

        await session.execute(update(Room).values(active_at=(await _at(app, codes[0]))))
        await session.commit()
    tied: list[str] = []
    cursor = None
    for _ in range(3):
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        body = (await api.get("/api/rooms", params=params)).json()
        tied += [room["code"] for room in body["rooms"]]
        cursor = body["next_cursor"]
    assert cursor is None and sorted(tied) == sorted(codes) and len(set(tied)) == 5
    _error(await api.get("/api/rooms", params={"cursor": "nonsense"}), 422, "invalid")
    _error(await api.get("/api/rooms", params={"limit": 0}), 422, "invalid")
    _error(await api.get("/api/rooms", params={"limit": 101}), 422, "invalid")


async def _at(app: Any, code: str) -> Any:
    from app.store import rooms as repo

    async with app.state.db.session() as session:
        room = await repo.get_room_by_code(session, code=code)
        assert room is not None
        return room.active_at


async def test_idle_rooms_close_and_leave_the_lobby(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    """Rooms made unusable (their humans gone) are closed by the app's own sweeper once the
    idle time (set short) has passed; a room with a human connected stays."""
    host = await make_guest("Host")
    gone = [await _room(api, host, seats=2) for _ in range(3)]
    kept = await _room(api, host, seats=2)
    for code in [*gone, kept]:
        await set_online(app, code)
    assert sorted(await _listed(api)) == sorted([*gone, kept])
    for code in gone:
        await set_online(app, code, humans=0)  # everyone closed the tab
    never = await _room(api, host)  # made, never visited
    for _ in range(100):  # up to 5 s; the sweeper runs every 0.05 s
        statuses = [(await api.get(f"/api/rooms/{c}")).json()["status"] for c in [*gone, never]]
        if set(statuses) == {"closed"}:
            break
        await asyncio.sleep(0.05)
    for code in [*gone, never]:
        room = (await api.get(f"/api/rooms/{code}")).json()
        assert (room["status"], room["closed_reason"]) == ("closed", "idle")
    assert await _listed(api) == [kept]
    kept_room = (await api.get(f"/api/rooms/{kept}")).json()
    assert kept_room["status"] == "open"
    closed_ids = [room_id for name, room_id in app.state.live.calls if name == "room_closed"]
    assert len(closed_ids) == 4 and kept_room["id"] not in closed_ids
