"""Practice: one call to a private, unrated table against bots with the set started; bad input
creates nothing; a flood is refused. On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app.main import create_app
from app.settings import Settings
from app.store.models import GameSet, Room, Seat, SetPlayer
from tests.app.test_quickplay import first_set_playing
from tests.app.test_rooms import RecordingLive, _error, set_online
from tests.conftest import Guest


@pytest.fixture
def live_factory() -> Any:
    return lambda app: RecordingLive()


async def _practice(
    api: httpx.AsyncClient, guest: Guest, body: dict[str, Any] | None = None
) -> dict[str, Any]:
    if body is None:
        response = await api.post("/api/practice", headers=guest.headers)
    else:
        response = await api.post("/api/practice", json=body, headers=guest.headers)
    assert response.status_code == 201, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def _count(app: Any, model: Any) -> int:
    async with app.state.db.session() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def test_a_private_unrated_table_of_bots_already_playing(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    ayu = await make_guest("Ayu")
    answer = await _practice(api, ayu)  # no body at all: the defaults
    room = answer["room"]
    assert answer["seat"] == 0
    assert room["status"] == "playing" and room["quickplay"] is False
    assert room["host"]["player_id"] == ayu.player_id
    assert room["settings"] == {
        "preset": "pordi",
        "mode": "tunggal",
        "turn_seconds": 15,
        "deals_per_set": 7,
        "target_points": 7,
        "public": False,
        "allow_join_bots": False,
        "rated": False,
        "chat": True,
    }
    assert [(s["seat"], s["player_id"], s["bot"]) for s in room["seats"]] == [
        (0, ayu.player_id, None),
        (1, None, "normal"),
        (2, None, "normal"),
        (3, None, "normal"),
    ]
    assert app.state.live.calls == [("seats_changed", room["id"]), ("room_started", room["id"])]
    # Not in the lobby, even with its human connected.
    await set_online(app, room["code"])
    listed = (await api.get("/api/rooms")).json()["rooms"]
    assert room["code"] not in [r["code"] for r in listed]
    # Reachable by its code (the table's own link), like any room.
    again = (await api.get(f"/api/rooms/{room['code']}")).json()
    assert again["status"] == "playing" and again["seats_taken"] == 4


async def test_the_player_chooses_the_game_and_the_bots(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    ganda = await _practice(api, await make_guest("Budi"), {"mode": "ganda", "bot": "hard"})
    assert ganda["room"]["settings"]["mode"] == "ganda"
    assert {s["bot"] for s in ganda["room"]["seats"][1:]} == {"hard"}
    draw = await _practice(
        api, await make_guest("Cici"), {"preset": "klasik", "stuck": "draw", "turn_seconds": 60}
    )
    settings = draw["room"]["settings"]
    assert (settings["preset"], settings["stuck"], settings["turn_seconds"]) == (
        "klasik",
        "draw",
        60,
    )
    assert settings["target_points"] == 100 and settings["rated"] is False
    assert draw["room"]["status"] == "playing"
    # The old bot names still mean their levels.
    easy = await _practice(api, await make_guest("Dewi"), {"bot": "random"})
    assert {s["bot"] for s in easy["room"]["seats"][1:]} == {"easy"}


async def test_bad_input_is_refused_and_creates_nothing(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    ayu = await make_guest("Ayu")
    for body, field in (
        ({"preset": "klasik", "mode": "ganda"}, "mode"),  # the engine: Klasik is Tunggal only
        ({"preset": "pordi", "stuck": "draw"}, "stuck"),  # a Klasik option in a PORDI room
        ({"preset": "domino"}, "preset"),
        ({"mode": "trio"}, "mode"),
        ({"bot": "genius"}, "bot"),
        ({"turn_seconds": 20}, "turn_seconds"),
        ({"turn_seconds": 15.0}, "turn_seconds"),
        ({"public": True}, "public"),  # practice is private: not a choice
        ({"rated": True}, "rated"),
    ):
        response = await api.post("/api/practice", json=body, headers=ayu.headers)
        assert _error(response, 422, "invalid")["field"] == field, body
    _error(await api.post("/api/practice", json={}), 401, "unauthorized")
    assert await _count(app, Room) == 0 and await _count(app, Seat) == 0
    assert app.state.live.calls == []


async def test_practising_again_closes_the_table_left_behind(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    # A private room Ayu made by hand for friends, one of them seated: not a practice table.
    made = await api.post("/api/rooms", json={"public": False}, headers=ayu.headers)
    friends = made.json()["code"]
    await api.post(f"/api/rooms/{friends}/seats/0", headers=ayu.headers)
    await api.post(f"/api/rooms/{friends}/seats/1", headers=budi.headers)
    first = (await _practice(api, ayu))["room"]
    # A refused call closes nothing either.
    klasik_ganda = {"preset": "klasik", "mode": "ganda"}  # the engine's refusal, not the schema's
    refused = await api.post("/api/practice", json=klasik_ganda, headers=ayu.headers)
    assert _error(refused, 422, "invalid")["field"] == "mode"
    assert (await api.get(f"/api/rooms/{first['code']}")).json()["status"] == "playing"
    app.state.live.calls.clear()
    # More practice than the rooms a player may host (3): each one closes the one before.
    for _ in range(3):
        second = (await _practice(api, ayu))["room"]
        gone = (await api.get(f"/api/rooms/{first['code']}")).json()
        assert (gone["status"], gone["closed_reason"]) == ("closed", "host_closed")
        assert ("room_closed", first["id"]) in app.state.live.calls
        first = second
    assert (await api.get(f"/api/rooms/{friends}")).json()["status"] == "open"
    # Budi's practice leaves Ayu's alone.
    await _practice(api, budi)
    assert (await api.get(f"/api/rooms/{first['code']}")).json()["status"] == "playing"


async def test_a_flood_is_refused_with_429(settings: Settings, make_guest: Any) -> None:
    app = create_app(
        settings.model_copy(update={"rate_practice": "2/minute"}),
        live_factory=lambda app: RecordingLive(),
    )
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as api:
            made = await api.post("/api/guests", json={"name": "Ayu"})
            ayu = Guest(**made.json())
            for _ in range(2):
                await _practice(api, ayu)
            refused = await api.post("/api/practice", headers=ayu.headers)
            _error(refused, 429, "rate_limited")
            assert 1 <= int(refused.headers["Retry-After"]) <= 60
            assert await _count(app, Room) == 2


async def test_the_live_table_plays_the_set(settings: Settings) -> None:
    fast = settings.model_copy(update={"deal_pause_seconds": 0})
    app = create_app(fast)  # the real live tables of this node
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as api:
            made = await api.post("/api/guests", json={"name": "Ayu"})
            answer = await _practice(api, Guest(**made.json()))
            room_id = answer["room"]["id"]
            await first_set_playing(app, room_id)
            async with app.state.db.session() as session:
                sets = (
                    await session.scalars(select(GameSet).where(GameSet.room_id == room_id))
                ).all()
                players = (
                    await session.scalars(select(SetPlayer).where(SetPlayer.set_id == sets[0].id))
                ).all()
            assert [s.number for s in sets] == [1]
            assert [(p.seat, p.player_id, p.rated) for p in players] == [
                (0, answer["room"]["host"]["player_id"], False)
            ]
