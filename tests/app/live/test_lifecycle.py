"""A room's life at a live table, on one node (fake clock, real database: SQLite and PostgreSQL):
host hand-over, abandoned tables, closing, one socket per player, seats that go to a bot and
come back, presence."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

import engine
from app.rooms.clock import FakeClock
from app.rooms.protocol import CLOSE_REPLACED, CLOSE_ROOM_CLOSED, Leave, Play
from app.rooms.seating import TIMEOUTS_TO_BOT
from app.store.models import GameSet, Room, Seat
from tests.app.live.conftest import CONFIG, LiveTable, Probe, stored_moves, to_move


async def stored_room(app: Any, room_id: str) -> Room:
    async with app.state.db.session() as session:
        room = await session.get(Room, room_id)
        assert room is not None
        return room


async def stored_seat(app: Any, room_id: str, seat: int) -> Seat:
    async with app.state.db.session() as session:
        row = await session.scalar(select(Seat).where(Seat.room_id == room_id, Seat.seat == seat))
        assert row is not None
        return row


async def open_room(api: Any, app: Any, guests: list[Any]) -> tuple[Any, str, list[Probe]]:
    """An open room, guest i in seat i, each with a socket at the table."""
    host = guests[0]
    created = await api.post("/api/rooms", json={"mode": "tunggal"}, headers=host.headers)
    assert created.status_code == 201, created.text
    code, room_id = created.json()["code"], created.json()["id"]
    for seat, guest in enumerate(guests):
        r = await api.post(f"/api/rooms/{code}/seats/{seat}", headers=guest.headers)
        assert r.status_code == 200, r.text
    table = await app.state.live.get(room_id)
    probes = []
    for guest in guests:
        probe = Probe()
        probe.conn.player_id = guest.player_id
        await table.join(probe.conn, None)
        probes.append(probe)
    await table.settle()
    return table, code, probes


async def settle(table: Any, *probes: Probe) -> None:
    await table.settle()
    await table.settle()  # a follow-up may post again (a reload after a hand-over)
    for probe in probes:
        await probe.drain()


async def test_an_absent_host_hands_the_open_room_to_the_earliest_seated_human(
    api: Any, app: Any, make_guest: Any, clock: FakeClock
) -> None:
    guests = [await make_guest(f"G{i}") for i in range(3)]
    table, _, probes = await open_room(api, app, guests)
    assert (await stored_room(app, table.room.id)).humans_online == 3
    table.gone(probes[0].conn)
    await settle(table, *probes)
    assert (await stored_room(app, table.room.id)).humans_online == 2

    clock.advance(CONFIG.host_away - 1)
    await settle(table, *probes)
    assert table.room.host_id == guests[0].player_id
    clock.advance(1.0)
    await settle(table, *probes)
    assert table.room.host_id == guests[1].player_id  # sat down before guest 2
    assert (await stored_room(app, table.room.id)).host_id == guests[1].player_id
    for probe in probes[1:]:
        assert probe.of_type("room")[-1]["room"]["host_id"] == guests[1].player_id

    # A host who comes back in time keeps the room.
    table.gone(probes[1].conn)
    await settle(table, *probes)
    clock.advance(CONFIG.host_away / 2)
    back = Probe()
    back.conn.player_id = guests[1].player_id
    await table.join(back.conn, None)
    clock.advance(CONFIG.host_away)
    await settle(table, back, *probes)
    assert table.room.host_id == guests[1].player_id


async def test_a_host_who_gives_up_their_seat_hands_the_room_over(
    api: Any, app: Any, make_guest: Any
) -> None:
    guests = [await make_guest(f"G{i}") for i in range(2)]
    table, code, probes = await open_room(api, app, guests)
    r = await api.delete(f"/api/rooms/{code}/seats/0", headers=guests[0].headers)
    assert r.status_code == 200, r.text
    await settle(table, *probes)
    assert table.room.host_id == guests[1].player_id
    assert probes[1].of_type("room")[-1]["room"]["host_id"] == guests[1].player_id


async def test_a_table_nobody_attends_stops_as_abandoned_and_keeps_its_moves(
    live_table: Any, app: Any, clock: FakeClock
) -> None:
    live: LiveTable = await live_table(bots=(1, 2, 3))
    spectator = Probe()
    await live.table.join(spectator.conn, None)
    for _ in range(3):  # a few bot moves first
        clock.advance(CONFIG.bot_max_delay)
        await live.settle()
    live.table.gone(live.probes[0].conn)
    await live.settle()
    clock.advance(CONFIG.abandoned_after)
    await settle(live.table, spectator)
    room = await stored_room(app, live.table.room.id)
    assert room.status == "abandoned" and live.table.room.status == "abandoned"
    assert spectator.of_type("room")[-1]["room"]["status"] == "abandoned"
    moves = len(await stored_moves(app))
    async with app.state.db.session() as session:
        game_set = await session.scalar(select(GameSet).where(GameSet.room_id == room.id))
    assert game_set is not None and game_set.result == {"abandoned": True}
    assert len(live.table.events) >= 1 and moves >= 1  # nothing lost

    for _ in range(5):  # no more bot or clock moves
        clock.advance(60)
        await live.settle()
    assert len(await stored_moves(app)) == moves
    assert await app.state.live.store.playing_room_ids() == []


async def test_closing_the_room_sends_every_socket_away(
    live_table: Any, api: Any, clock: FakeClock
) -> None:
    live: LiveTable = await live_table()
    spectator = Probe()
    await live.table.join(spectator.conn, None)
    r = await api.delete(f"/api/rooms/{live.code}", headers=live.guests[0].headers)
    assert r.status_code == 200, r.text
    await settle(live.table, spectator, *live.probes)
    for probe in [spectator, *live.probes]:
        assert probe.frames[-1] == {"type": "bye", "reason": "room_closed"}
        assert probe.closed_with == (CLOSE_ROOM_CLOSED, "room_closed")
    clock.advance(60)
    await live.settle()
    assert live.table.room.status == "closed" and live.table.conns == {}

    late = Probe()
    await live.table.join(late.conn, None)  # a socket that comes later is sent away too
    await late.drain()
    assert late.frames == [{"type": "bye", "reason": "room_closed"}]


async def test_a_second_socket_of_a_player_replaces_the_first(live_table: Any, app: Any) -> None:
    live: LiveTable = await live_table()
    first = to_move(live)
    seat = live.probes.index(first)
    second = Probe()
    second.conn.player_id = first.conn.player_id
    await live.table.join(second.conn, None)
    await live.settle()
    await second.drain()
    assert first.frames[-1] == {"type": "bye", "reason": "replaced"}
    assert first.closed_with == (CLOSE_REPLACED, "replaced")
    assert second.of_type("welcome")[-1]["seat"] == seat

    option = second.view["legal"][0]
    move = Play(type="play", move_id="m", tile=option["tile"], end=option["end"])
    await live.table.request(first.conn, move)  # the old socket no longer plays
    await live.table.request(second.conn, move)
    await live.settle()
    await second.drain()
    assert [f["move_id"] for f in second.of_type("ack")] == ["m"]
    assert len(await stored_moves(app)) == 1
    presence = second.of_type("presence")[-1]
    assert [s["connected"] for s in presence["seats"]] == [True] * 4


async def test_a_player_who_left_takes_the_seat_back_with_its_hand(
    live_table: Any, api: Any, app: Any, clock: FakeClock
) -> None:
    live: LiveTable = await live_table()
    probe, guest = live.probes[1], live.guests[1]
    await live.table.request(probe.conn, Leave(type="leave"))
    await live.settle()
    assert probe.of_type("welcome")[-1]["role"] == "spectator"
    seat = await stored_seat(app, live.table.room.id, 1)
    assert seat.bot is not None and seat.left_by == guest.player_id
    # Every socket's room says who may take the seat back, as the REST room does.
    for socket in (probe, live.probes[0]):
        shown = socket.of_type("room")[-1]["room"]["seats"][1]
        assert (shown["bot"], shown["left_by"]) == (seat.bot, guest.player_id)

    r = await api.post(f"/api/rooms/{live.code}/seats/1", headers=guest.headers)
    assert r.status_code == 200, r.text
    await live.settle()
    assert probe.of_type("welcome")[-1]["seat"] == 1
    assert probe.view["hand"] == engine.view(live.table.state, 1)["hand"]
    assert probe.view["hand"]
    seat = await stored_seat(app, live.table.room.id, 1)
    assert seat.bot is None and seat.player_id == guest.player_id
    shown = probe.of_type("room")[-1]["room"]["seats"][1]
    assert (shown["player_id"], shown["left_by"]) == (guest.player_id, None)


async def test_a_dropped_humans_seat_goes_to_a_bot_after_two_timeouts_in_a_row(
    live_table: Any, app: Any, clock: FakeClock
) -> None:
    live: LiveTable = await live_table(bots=(2, 3))
    dropped = live.guests[1]
    live.table.gone(live.probes[1].conn)
    await live.settle()
    assert (await stored_room(app, live.table.room.id)).humans_online == 1
    timeouts = 0
    for turn in range(80):
        if live.table.room.seats[1].bot is not None:
            break
        state = live.table.state
        if state.phase == "deal_over":
            clock.advance(CONFIG.deal_pause)
        elif state.turn == 0:
            probe = live.probes[0]
            option = probe.view["legal"][0]
            play = Play(type="play", move_id=f"p{turn}", tile=option["tile"], end=option["end"])
            await live.table.request(probe.conn, play)
        else:
            timeouts += state.turn == 1
            clock.advance(15.0)
        await live.settle()
    assert live.table.room.seats[1].bot is not None
    assert timeouts == TIMEOUTS_TO_BOT
    seat = await stored_seat(app, live.table.room.id, 1)
    assert seat.left_by == dropped.player_id and seat.player_id is None
    shown = live.probes[0].of_type("room")[-1]["room"]["seats"][1]
    assert shown["left_by"] == dropped.player_id
    autos = [m for m in await stored_moves(app) if m.auto]
    assert [m.seat for m in autos] == [1] * TIMEOUTS_TO_BOT
