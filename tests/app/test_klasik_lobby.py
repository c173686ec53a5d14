"""The lobby API with the Klasik preset: its settings, five seats, and the migration."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from sqlalchemy import MetaData, Table, insert, text
from sqlalchemy.exc import IntegrityError

from app.api import lobby
from app.api.schemas import RoomSettings
from app.store import migrate
from app.store.db import create_engine
from app.store.models import Seat
from tests.app.test_rooms import RecordingLive, set_online
from tests.conftest import Guest, run_async

KLASIK_DEFAULTS = {
    "preset": "klasik",
    "mode": "tunggal",
    "turn_seconds": 15,
    "deals_per_set": 7,
    "target_points": 100,
    "public": True,
    "players": 4,
    "seven_tiles": False,
    "stuck": "discard",
    "zero_zero_25": False,
    "scoring": "difference",
    "allow_join_bots": True,
    "rated": False,
    "chat": True,
}
PORDI_DEFAULTS = {
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


@pytest.fixture
def live_factory() -> Any:
    return lambda app: RecordingLive()


@pytest.fixture
async def host(make_guest) -> Guest:  # type: ignore[no-untyped-def]
    return await make_guest("Host")


async def create(api: httpx.AsyncClient, host: Guest, **settings: Any) -> dict[str, Any]:
    response = await api.post("/api/rooms", json=settings, headers=host.headers)
    assert response.status_code == 201, response.text
    return dict(response.json())


def _error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    assert error["message"]
    return error


# --- settings ---------------------------------------------------------------------------------


async def test_klasik_defaults(api: httpx.AsyncClient, app: Any, host: Guest) -> None:
    room = await create(api, host, preset="klasik")
    assert room["settings"] == KLASIK_DEFAULTS
    assert [s["seat"] for s in room["seats"]] == [0, 1, 2, 3]
    # Stored as returned, and listed the same way.
    assert (await api.get(f"/api/rooms/{room['code']}")).json()["settings"] == KLASIK_DEFAULTS
    await set_online(app, room["code"])
    [listed] = (await api.get("/api/rooms")).json()["rooms"]
    assert listed["settings"] == KLASIK_DEFAULTS


async def test_pordi_rooms_have_no_klasik_options(api: httpx.AsyncClient, host: Guest) -> None:
    assert (await create(api, host))["settings"] == PORDI_DEFAULTS
    ganda = await create(api, host, mode="ganda", target_points=5)
    assert ganda["settings"] == {**PORDI_DEFAULTS, "mode": "ganda", "target_points": 5}


@pytest.mark.parametrize(
    "options",
    [
        {"players": 5},
        {"seven_tiles": True},
        {"stuck": "pass"},
        {"stuck": "draw"},
        {"players": 5, "stuck": "draw"},
        {"zero_zero_25": True},
        {"scoring": "penalty", "deals_per_set": 3},
        {"target_points": 250},
        {"target_points": 1000, "turn_seconds": 60, "public": False},
        {"players": 5, "stuck": "pass", "zero_zero_25": True, "scoring": "penalty"},
    ],
)
async def test_each_klasik_option(
    api: httpx.AsyncClient, host: Guest, options: dict[str, Any]
) -> None:
    room = await create(api, host, preset="klasik", **options)
    # allow_join_bots follows `public` unless the host sets it.
    public = options.get("public", True)
    assert room["settings"] == {**KLASIK_DEFAULTS, **options, "allow_join_bots": public}
    assert len(room["seats"]) == options.get("players", 4)


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        # The engine refuses these combinations; its reason is the message.
        ({"preset": "klasik", "mode": "ganda"}, "mode", "tunggal"),
        ({"preset": "klasik", "players": 5, "seven_tiles": True}, "seven_tiles", "4-player"),
        # Klasik options in a PORDI room.
        ({"players": 5}, "players", "klasik"),
        ({"preset": "pordi", "stuck": "pass"}, "stuck", "klasik"),
        ({"preset": "pordi", "discard": False}, "stuck", "klasik"),
        # Draw Domino needs a boneyard: none with seven tiles each.
        ({"preset": "klasik", "seven_tiles": True, "stuck": "draw"}, "stuck", "boneyard"),
        ({"preset": "klasik", "stuck": "sometimes"}, "stuck", ""),
        ({"seven_tiles": True, "mode": "ganda"}, "seven_tiles", "klasik"),
        # Out of range for the preset, or not a value at all.
        ({"target_points": 100}, "target_points", "1..99"),
        ({"preset": "klasik", "target_points": 1001}, "target_points", "1000"),
        ({"preset": "klasik", "target_points": 0}, "target_points", ""),
        ({"preset": "klasik", "players": 6}, "players", ""),
        ({"preset": "klasik", "players": 3}, "players", ""),
        ({"preset": "klasik", "scoring": "fixed"}, "scoring", ""),
        ({"preset": "klasik", "seven_tiles": "maybe"}, "seven_tiles", ""),
        ({"preset": "klasik", "discard": 2}, "discard", ""),
        ({"preset": "klasik", "discard": True, "stuck": "pass"}, "discard", ""),
        ({"preset": "klasik", "colour": "red"}, "colour", ""),
    ],
)
async def test_bad_klasik_settings_422(
    api: httpx.AsyncClient, host: Guest, body: dict[str, Any], field: str, words: str
) -> None:
    response = await api.post("/api/rooms", json=body, headers=host.headers)
    error = _error(response, 422, "invalid")
    assert error["field"] == field, error
    assert words in error["message"], error


def test_every_engine_refusal_names_a_field() -> None:
    """The engine's BadRules becomes a 422 on the first setting it cannot accept."""
    from app.api.errors import Invalid

    with pytest.raises(Invalid) as refused:
        lobby.check_rules({"preset": "klasik", "mode": "ganda", "players": 5})
    assert refused.value.field == "mode" and "tunggal" in refused.value.message
    with pytest.raises(Invalid) as refused:
        lobby.check_rules({"preset": "klasik", "players": 5, "seven_tiles": True})
    assert refused.value.field == "seven_tiles"
    with pytest.raises(Invalid) as refused:
        lobby.check_rules({"preset": "pordi", "players": 5})
    assert refused.value.field == "players"
    rules = lobby.check_rules({**KLASIK_DEFAULTS, "players": 5, "target_points": 20})
    assert (rules.preset, rules.players, rules.hand_size, rules.target_points) == (
        "klasik",
        5,
        5,
        20,
    )
    # Resolving fills the preset's defaults, never PORDI's 7 for Klasik.
    resolved = lobby.resolve_settings(RoomSettings(preset="klasik"))
    assert resolved.target_points == 100 and resolved.stuck == "discard"


async def test_patch_to_klasik_and_back(
    api: httpx.AsyncClient, app: Any, host: Guest, make_guest: Any
) -> None:
    room = await create(api, host, target_points=5)
    code = room["code"]

    def patch(body: dict[str, Any], who: Guest = host) -> Any:
        return api.patch(f"/api/rooms/{code}/settings", json=body, headers=who.headers)

    # A new preset brings its own defaults: PORDI's target (here 5) does not follow into Klasik.
    changed = await patch({"preset": "klasik"})
    assert changed.status_code == 200, changed.text
    assert changed.json()["settings"] == KLASIK_DEFAULTS
    assert app.state.live.calls[-1] == ("seats_changed", room["id"])  # the table shows it

    changed = await patch({"players": 5, "stuck": "pass", "target_points": 30})
    assert changed.status_code == 200, changed.text
    settings = changed.json()["settings"]
    assert settings == {**KLASIK_DEFAULTS, "players": 5, "stuck": "pass", "target_points": 30}
    assert len(changed.json()["seats"]) == 5
    assert (await patch({"turn_seconds": 30})).json()["settings"]["stuck"] == "pass"
    # The old flag is still read, as the stuck choice it names.
    assert (await patch({"discard": True})).json()["settings"]["stuck"] == "discard"
    assert (await patch({"stuck": "draw"})).json()["settings"]["stuck"] == "draw"
    assert _error(await patch({"seven_tiles": True}), 422, "invalid")["field"] == "seven_tiles"
    await patch({"stuck": "pass"})

    error = _error(await patch({"players": 5, "seven_tiles": True}), 422, "invalid")
    assert error["field"] == "seven_tiles"
    assert _error(await patch({"mode": "ganda"}), 422, "invalid")["field"] == "mode"
    assert _error(await patch({"scoring": "fixed"}), 422, "invalid")["field"] == "scoring"
    other: Guest = await make_guest("Other")
    _error(await patch({"players": 4}, other), 403, "not_host")

    # Back to PORDI: the Klasik options go, the target is PORDI's again.
    back = await patch({"preset": "pordi", "mode": "ganda"})
    assert back.status_code == 200, back.text
    assert back.json()["settings"] == {**PORDI_DEFAULTS, "mode": "ganda", "turn_seconds": 30}
    assert len(back.json()["seats"]) == 4
    # Ganda PORDI -> Klasik needs mode tunggal in the same patch.
    assert _error(await patch({"preset": "klasik"}), 422, "invalid")["field"] == "mode"
    assert _error(await patch({"players": 5}), 422, "invalid")["field"] == "players"
    both = await patch({"preset": "klasik", "mode": "tunggal", "target_points": 40})
    assert both.json()["settings"] == {**KLASIK_DEFAULTS, "target_points": 40, "turn_seconds": 30}
    assert _error(await patch({"preset": "pordi", "target_points": 150}), 422, "invalid")[
        "field"
    ] == ("target_points")


async def test_the_old_discard_flag_is_read_as_stuck(
    api: httpx.AsyncClient, app: Any, host: Guest
) -> None:
    room = await create(api, host, preset="klasik", discard=False)
    assert room["settings"] == {**KLASIK_DEFAULTS, "stuck": "pass"}
    # A row stored before the stuck option keeps its game, at its table too (app/presets.py
    # with_defaults reads the flag with engine.stuck_alias).
    from app.presets import with_defaults
    from app.rooms.state import rules_of
    from app.store.records import RoomInfo

    old = {k: v for k, v in KLASIK_DEFAULTS.items() if k != "stuck"}
    assert with_defaults({**old, "discard": False})["stuck"] == "pass"
    assert rules_of(RoomInfo("r", "ABCDEF", "h", "open", {**old, "discard": False}, ())).stuck == (
        "pass"
    )
    assert RoomSettings.model_validate(with_defaults({**old, "discard": False})).stuck == "pass"


# --- five seats -------------------------------------------------------------------------------


async def test_a_table_of_five(api: httpx.AsyncClient, app: Any, host: Guest, make_guest) -> None:  # type: ignore[no-untyped-def]
    room = await create(api, host, preset="klasik", players=5)
    code = room["code"]
    assert room["seats"] == [
        {"seat": n, "player_id": None, "name": None, "bot": None, "left_by": None, "ready": False}
        for n in range(5)
    ]
    other: Guest = await make_guest("Other")
    sat = await api.post(f"/api/rooms/{code}/seats/4", headers=other.headers)
    assert sat.status_code == 200, sat.text
    assert sat.json()["seats"][4]["player_id"] == other.player_id
    for seat in range(4):
        r = await api.post(f"/api/rooms/{code}/bots/{seat}", json={}, headers=host.headers)
        assert r.status_code == 200, r.text
    # No sixth seat.
    bad = await api.post(f"/api/rooms/{code}/seats/5", headers=host.headers)
    assert _error(bad, 422, "invalid")["field"] == "seat"
    bad = await api.post(f"/api/rooms/{code}/bots/5", json={}, headers=host.headers)
    assert _error(bad, 422, "invalid")["field"] == "seat"

    # Four of five is not enough to start; the fifth can be a bot or a player.
    left = await api.delete(f"/api/rooms/{code}/seats/4", headers=other.headers)
    assert left.status_code == 200 and left.json()["seats_taken"] == 4
    response = await api.post(f"/api/rooms/{code}/start", headers=host.headers)
    assert "all 5 seats" in _error(response, 409, "seats_not_filled")["message"]


async def test_start_needs_all_five(api: httpx.AsyncClient, host: Guest) -> None:
    room = await create(api, host, preset="klasik", players=5)
    code = room["code"]
    for seat in range(4):
        await api.post(f"/api/rooms/{code}/bots/{seat}", json={}, headers=host.headers)
    error = _error(
        await api.post(f"/api/rooms/{code}/start", headers=host.headers), 409, "seats_not_filled"
    )
    assert "all 5 seats" in error["message"]
    await api.post(f"/api/rooms/{code}/seats/4", headers=host.headers)
    started = await api.post(f"/api/rooms/{code}/start", headers=host.headers)
    assert started.status_code == 200 and started.json()["status"] == "playing"
    assert started.json()["seats_taken"] == 5


async def test_seat_four_does_not_exist_at_a_table_of_four(
    api: httpx.AsyncClient, host: Guest
) -> None:
    room = await create(api, host, preset="klasik")
    for method, path in (("POST", "seats/4"), ("DELETE", "seats/4"), ("POST", "bots/4")):
        response = await api.request(
            method, f"/api/rooms/{room['code']}/{path}", json={}, headers=host.headers
        )
        error = _error(response, 422, "invalid")
        assert error["field"] == "seat" and "0..3" in error["message"]


async def test_fewer_players_while_seat_four_is_taken_is_409(
    api: httpx.AsyncClient, host: Guest, make_guest
) -> None:  # type: ignore[no-untyped-def]
    room = await create(api, host, preset="klasik", players=5)
    code = room["code"]
    fifth: Guest = await make_guest("Fifth")
    await api.post(f"/api/rooms/{code}/seats/4", headers=fifth.headers)
    await api.post(f"/api/rooms/{code}/seats/1", headers=host.headers)

    def patch(body: dict[str, Any]) -> Any:
        return api.patch(f"/api/rooms/{code}/settings", json=body, headers=host.headers)

    error = _error(await patch({"players": 4}), 409, "seat_in_use")
    assert error["field"] == "players" and "seat 4" in error["message"]
    error = _error(await patch({"preset": "pordi"}), 409, "seat_in_use")
    assert error["field"] == "preset"
    details = (await api.get(f"/api/rooms/{code}")).json()
    assert details["settings"]["players"] == 5 and details["seats"][4]["name"] == "Fifth"

    # Once seat 4 is free, the table shrinks; everyone else keeps their seat.
    await api.delete(f"/api/rooms/{code}/seats/4", headers=fifth.headers)
    shrunk = await patch({"players": 4})
    assert shrunk.status_code == 200, shrunk.text
    assert [s["seat"] for s in shrunk.json()["seats"]] == [0, 1, 2, 3]
    assert shrunk.json()["seats"][1]["player_id"] == host.player_id


# --- the database: the seat range, and migration 0002 -----------------------------------------


async def _insert_seats(url: str, seats: list[int]) -> list[str]:
    """Try to put a bot in each seat of one room; returns "ok" or "refused" per seat."""
    engine = create_engine(url)
    outcome = []
    try:
        async with engine.begin() as conn:
            # The tables as they are at this revision (the migration test also runs at 0001).
            players, rooms = await conn.run_sync(
                lambda sync: [
                    Table(n, MetaData(), autoload_with=sync) for n in ("players", "rooms")
                ]
            )
            now = datetime.now(UTC)
            times = {
                name: now for name in ("created_at", "updated_at", "active_at", "last_seen_at")
            }
            await conn.execute(
                insert(players).values(
                    id="p" * 32,
                    name="P",
                    token_hash="h" * 64,
                    **{name: at for name, at in times.items() if name in players.c},
                )
            )
            await conn.execute(
                insert(rooms).values(
                    id="r" * 32,
                    code="ABCDEF",
                    host_id="p" * 32,
                    settings={},
                    status="open",
                    **{name: at for name, at in times.items() if name in rooms.c},
                )
            )
        for seat in seats:
            try:
                async with engine.begin() as conn:
                    await conn.execute(
                        insert(Seat).values(room_id="r" * 32, seat=seat, bot="heuristic")
                    )
                outcome.append("ok")
            except IntegrityError:
                outcome.append("refused")
    finally:
        await engine.dispose()
    return outcome


async def _seats_in_db(url: str) -> list[int]:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(text("SELECT seat FROM seats ORDER BY seat"))
            return [row[0] for row in rows]
    finally:
        await engine.dispose()


async def test_the_database_allows_seats_0_to_4(database_url: str) -> None:
    assert await _insert_seats(database_url, [0, 4, 5, -1]) == ["ok", "ok", "refused", "refused"]


def test_migration_0002_widens_the_seat_range_and_back(empty_database_url: str) -> None:
    url = empty_database_url
    migrate.upgrade(url, "0001")
    assert run_async(lambda: _insert_seats(url, [3, 4])) == ["ok", "refused"]
    migrate.upgrade(url)
    engine_seat = run_async(lambda: _insert_seat_four(url))
    assert engine_seat == "ok"
    assert run_async(lambda: _seats_in_db(url)) == [3, 4]  # the rows survived the table copy
    # Down again: whoever sat in seat 4 stands up, and the old range holds.
    migrate.downgrade(url, "0001")
    assert run_async(lambda: _seats_in_db(url)) == [3]
    assert run_async(lambda: _insert_seat_four(url)) == "refused"
    migrate.upgrade(url)
    assert run_async(lambda: _insert_seat_four(url)) == "ok"


async def _insert_seat_four(url: str) -> str:
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(insert(Seat).values(room_id="r" * 32, seat=4, bot="random"))
        return "ok"
    except IntegrityError:
        return "refused"
    finally:
        await engine.dispose()
