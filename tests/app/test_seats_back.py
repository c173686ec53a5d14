"""REST side of a room's life: the host closes a room; seats come back while the set runs; a full
room says so. On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import update

from app.store.models import Seat
from tests.app.test_rooms import RecordingLive, _error
from tests.conftest import Guest


@pytest.fixture
def live_factory() -> Any:
    return lambda app: RecordingLive()


async def _room(api: httpx.AsyncClient, host: Guest, **settings: Any) -> str:
    made = await api.post("/api/rooms", json=settings, headers=host.headers)
    assert made.status_code == 201, made.text
    code: str = made.json()["code"]
    return code


async def _playing(
    api: httpx.AsyncClient, host: Guest, others: list[Guest], **settings: Any
) -> str:
    """Host in seat 0, ``others`` in seats 1.., bots in the rest; started."""
    code = await _room(api, host, **settings)
    for seat, guest in enumerate([host, *others]):
        assert (await api.post(f"/api/rooms/{code}/seats/{seat}", headers=guest.headers)).is_success
    for seat in range(1 + len(others), 4):
        await api.post(f"/api/rooms/{code}/bots/{seat}", json={}, headers=host.headers)
    started = await api.post(f"/api/rooms/{code}/start", headers=host.headers)
    assert started.status_code == 200, started.text
    return code


async def _bot_takes_over(app: Any, room_id: str, seat: int, left_by: str) -> None:
    """What the live table does when a human leaves or drops during the set."""
    async with app.state.db.session() as session:
        await session.execute(
            update(Seat)
            .where(Seat.room_id == room_id, Seat.seat == seat)
            .values(player_id=None, bot="heuristic", left_by=left_by)
        )
        await session.commit()


# --- the host closes a room --------------------------------------------------------------------


@pytest.mark.parametrize("started", [False, True])
async def test_only_the_host_closes_a_room(
    api: httpx.AsyncClient, app: Any, make_guest: Any, started: bool
) -> None:
    host, other = await make_guest("Host"), await make_guest("Other")
    code = await (_playing(api, host, [other]) if started else _room(api, host))
    _error(await api.delete(f"/api/rooms/{code}", headers=other.headers), 403, "not_host")
    _error(await api.delete(f"/api/rooms/{code}"), 401, "unauthorized")
    _error(await api.delete("/api/rooms/ZZZZZZ", headers=host.headers), 404, "room_not_found")
    room = (await api.get(f"/api/rooms/{code}")).json()
    assert room["status"] == ("playing" if started else "open")
    app.state.live.calls.clear()

    closed = await api.delete(f"/api/rooms/{code}", headers=host.headers)
    assert closed.status_code == 200, closed.text
    assert closed.json()["status"] == "closed" and closed.json()["closed_reason"] == "host_closed"
    assert app.state.live.calls == [("room_closed", room["id"])]
    # Final: nothing more happens in it.
    _error(await api.delete(f"/api/rooms/{code}", headers=host.headers), 409, "room_closed")
    _error(await api.post(f"/api/rooms/{code}/start", headers=host.headers), 409, "room_closed")
    for path in ("/seats/2", "/bots/3"):
        _error(await api.post(f"/api/rooms/{code}{path}", headers=host.headers), 409, "room_closed")
    patch = await api.patch(
        f"/api/rooms/{code}/settings", json={"mode": "ganda"}, headers=host.headers
    )
    _error(patch, 409, "room_closed")
    # A closed room no longer counts against the host's limit (GAPLE_ROOMS_PER_PLAYER = 3).
    for _ in range(3):
        assert (await api.post("/api/rooms", headers=host.headers)).status_code == 201


# --- seats come back ---------------------------------------------------------------------------


async def test_a_player_takes_their_seat_back(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    host, ayu, stranger = await make_guest("Host"), await make_guest("Ayu"), await make_guest("X")
    # Private: only whoever left a bot's seat may take it back.
    code = await _playing(api, host, [ayu], public=False)
    room = (await api.get(f"/api/rooms/{code}")).json()
    assert room["settings"]["allow_join_bots"] is False
    await _bot_takes_over(app, room["id"], 1, left_by=ayu.player_id)
    seats = (await api.get(f"/api/rooms/{code}")).json()["seats"]
    assert seats[1] == {
        "seat": 1,
        "player_id": None,
        "name": None,
        "bot": "heuristic",
        "left_by": ayu.player_id,
        "ready": False,
    }
    # Nobody else may have it, nor any other bot's seat: the table is full for them.
    _error(await api.post(f"/api/rooms/{code}/seats/1", headers=stranger.headers), 409, "room_full")
    _error(await api.post(f"/api/rooms/{code}/seats/3", headers=stranger.headers), 409, "room_full")
    # Ayu may take only the seat Ayu left.
    _error(await api.post(f"/api/rooms/{code}/seats/2", headers=ayu.headers), 409, "seat_taken")
    app.state.live.calls.clear()
    back = await api.post(f"/api/rooms/{code}/seats/1", headers=ayu.headers)
    assert back.status_code == 200, back.text
    assert back.json()["status"] == "playing"
    assert back.json()["seats"][1] == {
        "seat": 1,
        "player_id": ayu.player_id,
        "name": "Ayu",
        "bot": None,
        "left_by": None,
        "ready": False,
    }
    assert app.state.live.calls == [("seats_changed", room["id"])]
    # Taking it again is harmless; a second seat is not.
    assert (await api.post(f"/api/rooms/{code}/seats/1", headers=ayu.headers)).status_code == 200
    _error(
        await api.post(f"/api/rooms/{code}/seats/3", headers=host.headers), 409, "already_seated"
    )
    # A human's seat is never taken.
    _error(await api.post(f"/api/rooms/{code}/seats/0", headers=stranger.headers), 409, "room_full")


async def test_anyone_takes_a_bot_seat_when_the_host_allows_it(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    host, late, later = await make_guest("Host"), await make_guest("Late"), await make_guest("L2")
    code = await _playing(api, host, [], mode="ganda")  # public: allow_join_bots by default
    taken = await api.post(f"/api/rooms/{code}/seats/2", headers=late.headers)
    assert taken.status_code == 200, taken.text
    assert [s["player_id"] for s in taken.json()["seats"]] == [
        host.player_id,
        None,
        late.player_id,
        None,
    ]
    # The host's own seat and Late's are not bots' seats; seats 1 and 3 still are.
    _error(await api.post(f"/api/rooms/{code}/seats/2", headers=later.headers), 409, "seat_taken")
    assert (await api.post(f"/api/rooms/{code}/seats/3", headers=later.headers)).is_success
    # The host may switch it off before the next set (settings change only while open).
    no = await api.post("/api/rooms", json={"allow_join_bots": False}, headers=host.headers)
    assert no.json()["settings"] == {
        **no.json()["settings"],
        "public": True,
        "allow_join_bots": False,
    }


async def test_a_full_open_room_says_so(api: httpx.AsyncClient, make_guest: Any) -> None:
    host = await make_guest("Host")
    code = await _room(api, host)
    guests = [await make_guest(f"G{n}") for n in range(3)]
    assert (await api.post(f"/api/rooms/{code}/seats/0", headers=host.headers)).is_success
    for seat, guest in enumerate(guests, start=1):
        await api.post(f"/api/rooms/{code}/seats/{seat}", headers=guest.headers)
    late = await make_guest("Late")
    error = _error(
        await api.post(f"/api/rooms/{code}/seats/2", headers=late.headers), 409, "room_full"
    )
    assert "full" in error["message"] and error["field"] == "seat"
    # With a seat left, it is only that seat that is taken.
    await api.delete(f"/api/rooms/{code}/seats/3", headers=guests[2].headers)
    _error(await api.post(f"/api/rooms/{code}/seats/2", headers=late.headers), 409, "seat_taken")
    # Before the start, a bot's seat is the host's to give: not a free seat for others.
    await api.post(f"/api/rooms/{code}/bots/3", json={}, headers=host.headers)
    _error(await api.post(f"/api/rooms/{code}/seats/3", headers=late.headers), 409, "room_full")
