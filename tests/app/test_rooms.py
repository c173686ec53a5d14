"""The lobby API: every endpoint and every error, on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.api.lobby import CODE_ALPHABET
from app.rooms import lifecycle
from app.store import rooms as repo
from app.store.types import utcnow
from tests.conftest import Guest


class RecordingLive:
    """A LiveTables that remembers what the lobby told it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    async def room_started(self, room_id: str) -> None:
        self.calls.append(("room_started", room_id))

    async def seats_changed(self, room_id: str) -> None:
        self.calls.append(("seats_changed", room_id))

    async def room_closed(self, room_id: str, reason: str) -> None:
        self.calls.append(("room_closed", room_id))

    async def spectator_counts(self, room_ids: list[str]) -> dict[str, int]:
        return dict.fromkeys(room_ids, 3)


async def set_online(app: Any, code: str, humans: int = 1) -> None:
    """What the live tables report when seated humans connect (lifecycle.touch)."""
    async with app.state.db.session() as session:
        room = await repo.get_room_by_code(session, code=code)
        assert room is not None
        await lifecycle.touch(session, room_id=room.id, humans_online=humans, at=utcnow())
        await session.commit()


@pytest.fixture
def live_factory() -> Any:
    return lambda app: RecordingLive()


@pytest.fixture
async def host(make_guest) -> Guest:  # type: ignore[no-untyped-def]
    return await make_guest("Host")


@pytest.fixture
async def room(api: httpx.AsyncClient, host: Guest) -> dict[str, Any]:
    response = await api.post("/api/rooms", json={"mode": "ganda"}, headers=host.headers)
    assert response.status_code == 201, response.text
    return response.json()


def _error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    return error


# --- create, list, details -------------------------------------------------------------------


async def test_create_room_with_defaults(api: httpx.AsyncClient, host: Guest) -> None:
    response = await api.post("/api/rooms", headers=host.headers)
    assert response.status_code == 201
    room = response.json()
    assert len(room["code"]) == 6 and set(room["code"]) <= set(CODE_ALPHABET)
    assert room["share_link"] == f"http://testserver/r/{room['code']}"
    assert room["settings"] == {
        "preset": "pordi",
        "mode": "tunggal",
        "turn_seconds": 15,
        "deals_per_set": 7,
        "target_points": 7,
        "public": True,
        "allow_join_bots": True,
        "rated": False,
        "chat": True,
    }
    assert room["status"] == "open" and room["seats_taken"] == 0
    assert room["host"] == {"player_id": host.player_id, "name": "Host"}
    assert [s["seat"] for s in room["seats"]] == [0, 1, 2, 3]


async def test_share_link_uses_public_url(settings, host: Guest) -> None:  # type: ignore[no-untyped-def]
    from app.main import create_app

    app = create_app(settings.model_copy(update={"public_url": "https://gaple.example"}))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://x") as client:
            guest = (await client.post("/api/guests", json={"name": "P"})).json()
            headers = {"Authorization": f"Bearer {guest['token']}"}
            room = (await client.post("/api/rooms", json={}, headers=headers)).json()
    assert room["share_link"] == f"https://gaple.example/r/{room['code']}"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"preset": "whist"}, "preset"),
        ({"mode": "trio"}, "mode"),
        ({"turn_seconds": 20}, "turn_seconds"),
        ({"deals_per_set": 0}, "deals_per_set"),
        ({"deals_per_set": 22}, "deals_per_set"),
        ({"target_points": 100}, "target_points"),
        ({"public": "maybe"}, "public"),
        ({"colour": "red"}, "colour"),
    ],
)
async def test_create_room_bad_settings_422(
    api: httpx.AsyncClient, host: Guest, body: dict[str, Any], field: str
) -> None:
    response = await api.post("/api/rooms", json=body, headers=host.headers)
    error = _error(response, 422, "invalid")
    assert error["field"] == field and error["message"]


async def test_create_room_needs_token(api: httpx.AsyncClient) -> None:
    _error(await api.post("/api/rooms", json={}), 401, "unauthorized")


async def test_rooms_per_player_limit(api: httpx.AsyncClient, host: Guest) -> None:
    for _ in range(3):
        assert (await api.post("/api/rooms", headers=host.headers)).status_code == 201
    _error(await api.post("/api/rooms", headers=host.headers), 409, "too_many_rooms")


async def test_room_details(api: httpx.AsyncClient, host: Guest, room: dict[str, Any]) -> None:
    await api.post(f"/api/rooms/{room['code']}/seats/2", headers=host.headers)
    await api.post(f"/api/rooms/{room['code']}/bots/0", json={}, headers=host.headers)
    # Codes are case-insensitive: people type them.
    details = (await api.get(f"/api/rooms/{room['code'].lower()}")).json()
    assert details["id"] == room["id"] and details["spectators"] == 3
    assert details["tournament"] is None  # an ordinary room: no tournament's table
    assert details["seats"] == [
        {
            "seat": 0,
            "player_id": None,
            "name": None,
            "bot": "normal",
            "left_by": None,
            "ready": False,
        },
        {"seat": 1, "player_id": None, "name": None, "bot": None, "left_by": None, "ready": False},
        {
            "seat": 2,
            "player_id": host.player_id,
            "name": "Host",
            "bot": None,
            "left_by": None,
            "ready": False,
        },
        {"seat": 3, "player_id": None, "name": None, "bot": None, "left_by": None, "ready": False},
    ]
    assert details["seats_taken"] == 2 and details["settings"]["mode"] == "ganda"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", ""),
        ("POST", "/seats/0"),
        ("DELETE", "/seats/0"),
        ("POST", "/bots/0"),
        ("PATCH", "/settings"),
        ("POST", "/start"),
    ],
)
async def test_unknown_room_404(
    api: httpx.AsyncClient, host: Guest, method: str, path: str
) -> None:
    body = {} if method in ("POST", "PATCH") else None
    response = await api.request(
        method, f"/api/rooms/ZZZZZZ{path}", json=body, headers=host.headers
    )
    _error(response, 404, "room_not_found")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/seats/0"),
        ("DELETE", "/seats/0"),
        ("POST", "/bots/0"),
        ("PATCH", "/settings"),
        ("POST", "/start"),
    ],
)
async def test_mutations_need_token(
    api: httpx.AsyncClient, room: dict[str, Any], method: str, path: str
) -> None:
    response = await api.request(method, f"/api/rooms/{room['code']}{path}", json={})
    _error(response, 401, "unauthorized")


# --- seats ------------------------------------------------------------------------------------


async def test_sit_move_and_taken(
    api: httpx.AsyncClient, app, host: Guest, room: dict[str, Any], make_guest
) -> None:  # type: ignore[no-untyped-def]
    code = room["code"]
    other: Guest = await make_guest("Other")
    sat = await api.post(f"/api/rooms/{code}/seats/0", headers=host.headers)
    assert sat.status_code == 200 and sat.json()["seats"][0]["player_id"] == host.player_id
    # Sitting again where one already sits is a harmless retry.
    assert (await api.post(f"/api/rooms/{code}/seats/0", headers=host.headers)).status_code == 200

    error = _error(
        await api.post(f"/api/rooms/{code}/seats/0", headers=other.headers), 409, "seat_taken"
    )
    assert error["field"] == "seat"

    # Moving seats before the start: one seat per player.
    moved = (await api.post(f"/api/rooms/{code}/seats/3", headers=host.headers)).json()
    assert [s["player_id"] for s in moved["seats"]] == [None, None, None, host.player_id]
    assert (await api.post(f"/api/rooms/{code}/seats/0", headers=other.headers)).status_code == 200
    assert app.state.live.calls.count(("seats_changed", room["id"])) == 4


@pytest.mark.parametrize("seat", ["4", "-1", "x"])
async def test_bad_seat_number_422(
    api: httpx.AsyncClient, host: Guest, room: dict[str, Any], seat: str
) -> None:
    response = await api.post(f"/api/rooms/{room['code']}/seats/{seat}", headers=host.headers)
    assert _error(response, 422, "invalid")["field"] == "seat"


async def test_leave_own_seat(
    api: httpx.AsyncClient, app, host: Guest, room: dict[str, Any], make_guest
) -> None:  # type: ignore[no-untyped-def]
    code = room["code"]
    other: Guest = await make_guest("Other")
    await api.post(f"/api/rooms/{code}/seats/1", headers=other.headers)
    # Not even the host may stand someone else up.
    _error(
        await api.delete(f"/api/rooms/{code}/seats/1", headers=host.headers), 403, "not_your_seat"
    )
    left = await api.delete(f"/api/rooms/{code}/seats/1", headers=other.headers)
    assert left.status_code == 200 and left.json()["seats_taken"] == 0
    _error(await api.delete(f"/api/rooms/{code}/seats/1", headers=other.headers), 409, "seat_empty")
    assert app.state.live.calls == [("seats_changed", room["id"])] * 2


async def test_bots(api: httpx.AsyncClient, host: Guest, room: dict[str, Any], make_guest) -> None:  # type: ignore[no-untyped-def]
    code = room["code"]
    other: Guest = await make_guest("Other")
    _error(
        await api.post(f"/api/rooms/{code}/bots/1", json={}, headers=other.headers), 403, "not_host"
    )
    seated = await api.post(
        f"/api/rooms/{code}/bots/1", json={"kind": "heuristic"}, headers=host.headers
    )
    assert seated.status_code == 200 and seated.json()["seats"][1]["bot"] == "normal"
    # Seating a bot where a bot sits sets its level (app/api/lobby.seat_bot).
    hard = await api.post(f"/api/rooms/{code}/bots/1", json={"kind": "hard"}, headers=host.headers)
    assert hard.status_code == 200 and hard.json()["seats"][1]["bot"] == "hard"
    _error(await api.post(f"/api/rooms/{code}/seats/1", headers=other.headers), 409, "seat_taken")
    bad = await api.post(f"/api/rooms/{code}/bots/2", json={"kind": "genius"}, headers=host.headers)
    assert _error(bad, 422, "invalid")["field"] == "kind"
    # Only the host removes a bot.
    _error(await api.delete(f"/api/rooms/{code}/seats/1", headers=other.headers), 403, "not_host")
    removed = await api.delete(f"/api/rooms/{code}/seats/1", headers=host.headers)
    assert removed.status_code == 200 and removed.json()["seats_taken"] == 0


# --- settings and start -----------------------------------------------------------------------


async def test_change_settings(
    api: httpx.AsyncClient, host: Guest, room: dict[str, Any], make_guest
) -> None:  # type: ignore[no-untyped-def]
    code = room["code"]
    changed = await api.patch(
        f"/api/rooms/{code}/settings",
        json={"turn_seconds": 15, "public": False, "allow_join_bots": False},
        headers=host.headers,
    )
    assert changed.status_code == 200
    assert changed.json()["settings"] == {
        **room["settings"],
        "turn_seconds": 15,
        "public": False,
        "allow_join_bots": False,
    }
    bad = await api.patch(
        f"/api/rooms/{code}/settings", json={"target_points": 0}, headers=host.headers
    )
    assert _error(bad, 422, "invalid")["field"] == "target_points"
    other: Guest = await make_guest("Other")
    _error(
        await api.patch(f"/api/rooms/{code}/settings", json={}, headers=other.headers),
        403,
        "not_host",
    )


async def test_start(
    api: httpx.AsyncClient, app, host: Guest, room: dict[str, Any], make_guest
) -> None:  # type: ignore[no-untyped-def]
    code = room["code"]
    other: Guest = await make_guest("Other")
    _error(await api.post(f"/api/rooms/{code}/start", headers=other.headers), 403, "not_host")
    _error(
        await api.post(f"/api/rooms/{code}/start", headers=host.headers), 409, "seats_not_filled"
    )
    await api.post(f"/api/rooms/{code}/seats/0", headers=host.headers)
    await api.post(f"/api/rooms/{code}/seats/2", headers=other.headers)
    for seat in (1, 3):
        await api.post(f"/api/rooms/{code}/bots/{seat}", json={}, headers=host.headers)
    app.state.live.calls.clear()

    started = await api.post(f"/api/rooms/{code}/start", headers=host.headers)
    assert started.status_code == 200 and started.json()["status"] == "playing"
    assert app.state.live.calls == [("room_started", room["id"])]

    # Once playing: no second start, no settings, no seat changes.
    _error(await api.post(f"/api/rooms/{code}/start", headers=host.headers), 409, "set_in_progress")
    _error(
        await api.patch(
            f"/api/rooms/{code}/settings", json={"mode": "tunggal"}, headers=host.headers
        ),
        409,
        "room_started",
    )
    _error(
        await api.delete(f"/api/rooms/{code}/seats/2", headers=other.headers), 409, "room_not_open"
    )
    _error(
        await api.post(f"/api/rooms/{code}/bots/1", json={}, headers=host.headers),
        409,
        "room_not_open",
    )
    late: Guest = await make_guest("Late")
    # A human's seat stays theirs (bots' seats coming back: tests/app/test_seats_back.py).
    _error(await api.post(f"/api/rooms/{code}/seats/2", headers=late.headers), 409, "seat_taken")


async def _fill_with_bots(api: httpx.AsyncClient, host: Guest, code: str) -> None:
    for seat in range(4):
        response = await api.post(f"/api/rooms/{code}/bots/{seat}", json={}, headers=host.headers)
        assert response.status_code == 200


async def test_openapi_documents_the_api(api: httpx.AsyncClient) -> None:
    assert (await api.get("/docs")).status_code == 200
    paths = (await api.get("/openapi.json")).json()["paths"]
    assert {"/api/guests", "/api/rooms", "/api/rooms/{code}/start", "/api/health"} <= set(paths)


async def test_unknown_route_uses_error_shape(api: httpx.AsyncClient) -> None:
    _error(await api.get("/api/nope"), 404, "not_found")
