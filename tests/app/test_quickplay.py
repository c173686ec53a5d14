"""Quick play: a seat at a waiting public table, or a new one; at once on two nodes; bots fill
a table that waited. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.main import create_app
from app.rooms import lifecycle
from app.settings import Settings
from app.store.models import GameSet
from app.store.types import utcnow
from tests.app.test_rooms import RecordingLive, _error
from tests.conftest import Guest


async def first_set_playing(app: Any, room_id: str) -> None:
    """Wait (up to 5 s) until the room's live table plays its first set: a deal in play.

    The stored room says "playing" once the start is committed; the node opens its live table
    just after, so the table may not be there yet on the first look."""
    tables = app.state.live.tables
    for _ in range(100):
        table = tables.get(room_id)
        if table is not None and table.set_number == 1 and table.state.phase == "playing":
            return
        await asyncio.sleep(0.05)
    table = tables.get(room_id)
    assert table is not None, "no live table for the room"
    assert table.set_number == 1 and table.state.phase == "playing"


PORDI = {"preset": "pordi", "mode": "tunggal", "turn_seconds": 15}


@pytest.fixture
def live_factory() -> Any:
    return lambda app: RecordingLive()


async def _quick(api: httpx.AsyncClient, guest: Guest, **choice: Any) -> dict[str, Any]:
    response = await api.post("/api/quickplay", json={**PORDI, **choice}, headers=guest.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_seats_at_a_waiting_table_or_opens_one(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    ayu, budi, cici = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("Cici")
    first = await _quick(api, ayu)
    room = first["room"]
    assert first["seat"] == 0 and room["quickplay"] is True and room["status"] == "open"
    assert room["host"]["player_id"] == ayu.player_id
    assert room["settings"] == {
        "preset": "pordi",
        "mode": "tunggal",
        "turn_seconds": 15,
        "deals_per_set": 7,
        "target_points": 7,
        "public": True,
        "allow_join_bots": True,
        "rated": True,
        "chat": True,
    }
    assert app.state.live.calls == [("seats_changed", room["id"])]
    second = await _quick(api, budi)
    assert (second["room"]["code"], second["seat"]) == (room["code"], 1)
    # Asking again keeps one's seat.
    again = await _quick(api, ayu)
    assert (again["room"]["code"], again["seat"]) == (room["code"], 0)
    # Other settings: another table.
    other = await _quick(api, cici, turn_seconds=60)
    assert other["room"]["code"] != room["code"] and other["seat"] == 0
    assert other["room"]["settings"]["turn_seconds"] == 60
    # A table made by hand with the same settings is not a quick-play table.
    made = await api.post("/api/rooms", json=PORDI, headers=cici.headers)
    assert made.status_code == 201
    dewi = await make_guest("Dewi")
    assert (await _quick(api, dewi))["room"]["code"] == room["code"]
    # Changing one's mind: Ayu leaves the waiting table (the host passes to Budi).
    moved = await _quick(api, ayu, mode="ganda")
    assert moved["room"]["code"] not in (room["code"], other["room"]["code"])
    left = (await api.get(f"/api/rooms/{room['code']}")).json()
    assert [s["player_id"] for s in left["seats"]] == [None, budi.player_id, dewi.player_id, None]
    assert left["host"]["player_id"] == budi.player_id
    # Cici, alone at her table, changes her mind too: it closes, nobody left to host it.
    app.state.live.calls.clear()
    await _quick(api, cici, turn_seconds=30)
    gone = (await api.get(f"/api/rooms/{other['room']['code']}")).json()
    assert (gone["status"], gone["closed_reason"]) == ("closed", "no_host")
    assert ("room_closed", gone["id"]) in app.state.live.calls
    # Quick-play tables keep their settings.
    patch = await api.patch(
        f"/api/rooms/{room['code']}/settings", json={"turn_seconds": 30}, headers=budi.headers
    )
    _error(patch, 409, "quickplay_room")


async def test_a_table_of_humans_starts_at_once(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    guests = [await make_guest(f"G{n}") for n in range(5)]
    answers = [await _quick(api, guest, mode="ganda") for guest in guests[:4]]
    assert [a["seat"] for a in answers] == [0, 1, 2, 3]
    last = answers[-1]["room"]
    assert last["status"] == "playing" and answers[2]["room"]["status"] == "open"
    assert app.state.live.calls[-2:] == [
        ("seats_changed", last["id"]),
        ("room_started", last["id"]),
    ]
    fifth = await _quick(api, guests[4], mode="ganda")
    assert fifth["room"]["code"] != last["code"] and fifth["seat"] == 0


async def test_a_finished_set_is_never_joined_or_kept_by_play_now(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    guests = [await make_guest(f"G{n}") for n in range(5)]
    answers = [await _quick(api, guest, mode="ganda") for guest in guests[:4]]
    done = answers[-1]["room"]
    async with app.state.db.session() as session:  # the set is played out
        session.add(GameSet(room_id=done["id"], number=1, rules={}, started_at=utcnow()))
        await lifecycle.end_set(session, room_id=done["id"])
        await session.commit()
    # Play now again, same choice: a new table (the finished one is left), never the old set.
    again = await _quick(api, guests[1], mode="ganda")
    assert again["room"]["code"] != done["code"] and again["seat"] == 0
    after = (await api.get(f"/api/rooms/{done['code']}")).json()
    assert after["status"] == "open"
    assert [s["player_id"] for s in after["seats"]] == [
        guests[0].player_id,
        None,
        guests[2].player_id,
        guests[3].player_id,
    ]
    # A newcomer is not put into the finished table's empty seat either.
    newcomer = await _quick(api, guests[4], mode="ganda")
    assert (newcomer["room"]["code"], newcomer["seat"]) == (again["room"]["code"], 1)


async def test_bad_choices(api: httpx.AsyncClient, make_guest: Any) -> None:
    guest = await make_guest("Ayu")
    for body, field in (
        ({"preset": "klasik"}, "preset"),
        ({"mode": "trio"}, "mode"),
        ({"turn_seconds": 20}, "turn_seconds"),
        ({"turn_seconds": 15.0}, "turn_seconds"),
        ({"public": False}, "public"),
    ):
        response = await api.post("/api/quickplay", json={**PORDI, **body}, headers=guest.headers)
        assert _error(response, 422, "invalid")["field"] == field
    _error(await api.post("/api/quickplay", json=PORDI), 401, "unauthorized")


# --- two nodes at once -------------------------------------------------------------------------


@pytest.fixture
async def two_nodes(settings: Settings) -> AsyncIterator[list[httpx.AsyncClient]]:
    """Two app instances (two nodes) on one database, each with its own engine and pool."""
    async with AsyncExitStack() as stack:
        clients = []
        for _ in range(2):
            node = create_app(settings, live_factory=lambda app: RecordingLive())
            await stack.enter_async_context(node.router.lifespan_context(node))
            transport = httpx.ASGITransport(app=node)
            client = httpx.AsyncClient(transport=transport, base_url="http://testserver")
            clients.append(await stack.enter_async_context(client))
        yield clients


async def _guests(client: httpx.AsyncClient, count: int) -> list[Guest]:
    made = [await client.post("/api/guests", json={"name": f"P{n}"}) for n in range(count)]
    return [Guest(**response.json()) for response in made]


async def _at_once(nodes: list[httpx.AsyncClient], guests: list[Guest]) -> list[dict[str, Any]]:
    calls = [
        nodes[n % 2].post("/api/quickplay", json=PORDI, headers=guest.headers)
        for n, guest in enumerate(guests)
    ]
    responses = await asyncio.gather(*calls)
    assert all(r.status_code == 200 for r in responses), [r.text for r in responses]
    return [r.json() for r in responses]


async def test_two_callers_at_once_on_two_nodes_share_one_table(
    two_nodes: list[httpx.AsyncClient],
) -> None:
    for _ in range(3):  # a few rounds: each is a fresh race
        guests = await _guests(two_nodes[0], 2)
        answers = await _at_once(two_nodes, guests)
        assert len({a["room"]["code"] for a in answers}) == 1
        assert sorted(a["seat"] for a in answers) == [0, 1]
        code = answers[0]["room"]["code"]
        # Fill it up so the next round starts from no waiting table.
        rest = await _guests(two_nodes[1], 2)
        assert {(await _q(two_nodes[1], g))["room"]["code"] for g in rest} == {code}


async def _q(node: httpx.AsyncClient, guest: Guest) -> dict[str, Any]:
    response = await node.post("/api/quickplay", json=PORDI, headers=guest.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_many_callers_at_once_fill_tables_one_by_one(
    two_nodes: list[httpx.AsyncClient],
) -> None:
    guests = await _guests(two_nodes[0], 10)
    answers = await _at_once(two_nodes, guests)
    seats = [(a["room"]["code"], a["seat"]) for a in answers]
    assert len(set(seats)) == 10  # nobody shares a seat
    tables: dict[str, list[int]] = {}
    for code, seat in seats:
        tables.setdefault(code, []).append(seat)
    # Ten callers, four seats a table: two full tables and one with two; never two half-empty.
    assert sorted(len(s) for s in tables.values()) == [2, 4, 4]
    for code, taken in tables.items():
        room = (await two_nodes[0].get(f"/api/rooms/{code}")).json()
        assert sorted(taken) == list(range(len(taken)))
        assert room["status"] == ("playing" if len(taken) == 4 else "open")
        assert {s["player_id"] for s in room["seats"] if s["player_id"]} == {
            g.player_id for g, a in zip(guests, answers, strict=True) if a["room"]["code"] == code
        }


# --- bots fill a table that waited (the real app, live tables and sweeper) ----------------------


async def test_bots_fill_a_waiting_table_and_the_set_starts(
    settings: Settings, tmp_path: Any
) -> None:
    fast = settings.model_copy(
        update={"quickplay_bot_fill_seconds": 1.2, "sweep_seconds": 0.05, "deal_pause_seconds": 0}
    )
    app = create_app(fast)  # the real live tables of this node
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as api:
            ayu, budi = await _guests(api, 2)
            first = await _q(api, ayu)
            await asyncio.sleep(0.8)
            await _q(api, budi)  # the wait starts again from the last human who sat down
            code, room_id = first["room"]["code"], first["room"]["id"]
            # Past Ayu's 1.2 s, well inside Budi's (a busy machine's calls take their time).
            await asyncio.sleep(0.6)
            assert (await api.get(f"/api/rooms/{code}")).json()["status"] == "open"
            for _ in range(100):  # up to 5 s
                room = (await api.get(f"/api/rooms/{code}")).json()
                if room["status"] == "playing":
                    break
                await asyncio.sleep(0.05)
            assert room["status"] == "playing"
            assert [(s["player_id"], s["bot"]) for s in room["seats"]] == [
                (ayu.player_id, None),
                (budi.player_id, None),
                (None, "normal"),
                (None, "normal"),
            ]
            # The live table really started the set: a stored set and a deal in play.
            await first_set_playing(app, room_id)
            async with app.state.db.session() as session:
                sets = (
                    await session.scalars(select(GameSet).where(GameSet.room_id == room_id))
                ).all()
            assert [s.number for s in sets] == [1]
