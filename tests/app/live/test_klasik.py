"""Klasik at the live table: five seats, discards, the clock's discard, restarts.

The first tests drive the room actor in process on a fake clock (SQLite and PostgreSQL); the last
plays a whole Klasik set with five real WebSocket clients through the real server (a uvicorn
subprocess), kills it with SIGKILL mid-deal after discards were stored, and plays on to the stored
result, with the leak checker reading every message each client received.
"""

from __future__ import annotations

import asyncio
import random
import signal
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import select

import engine
from app.rooms.clock import FakeClock
from app.rooms.protocol import Play, parse_client_message
from app.store.models import GameSet, Move, Score
from tests.app.live.client import Lobby, TableClient, choose
from tests.app.live.conftest import (
    CONFIG,
    LiveTable,
    Probe,
    restarted,
    stored_moves,
    to_move,
)
from tests.app.live.leaks import assert_no_leaks, discards_seen
from tests.app.live.server import ServerProcess
from tests.app.live.test_server import autoplay, my_turn, set_over, stored

SEED = 12  # deal 1: the fourth mover (first legal option each time) cannot place and discards


@pytest.fixture
def klasik_table(
    live_table: Callable[..., Awaitable[LiveTable]],
) -> Callable[..., Awaitable[LiveTable]]:
    """A started Klasik table: a guest (or a bot) in every seat, each guest with a probe."""

    async def make(
        players: int = 5, bots: tuple[int, ...] = (), seed: int | None = SEED, **settings: Any
    ) -> LiveTable:
        return await live_table(
            bots=bots, seats=players, seed=seed, preset="klasik", players=players, **settings
        )

    return make


def must_discard(probe: Probe) -> bool:
    legal = probe.view["legal"]
    return bool(legal) and all(option["discard"] for option in legal)


async def play_first(live: LiveTable, move_id: str) -> Probe:
    """The seat to move plays its first legal option (a placement, or a discard)."""
    probe = to_move(live)
    option = probe.view["legal"][0]
    message = Play(type="play", move_id=move_id, tile=option["tile"], end=option["end"])
    await live.table.request(probe.conn, message)
    await live.settle()
    return probe


async def until_a_seat_must_discard(live: LiveTable) -> Probe:
    for turn in range(25):
        probe = to_move(live)
        if must_discard(probe):
            return probe
        await play_first(live, f"f{turn}")
    raise AssertionError("nobody had to discard")


def test_the_play_message_takes_a_discard() -> None:
    message = parse_client_message(
        '{"type": "play", "move_id": "d", "tile": "3-6", "end": "discard"}'
    )
    assert isinstance(message, Play) and message.end == "discard"


async def test_five_seats_at_the_live_table(klasik_table: Any, app: Any) -> None:
    live: LiveTable = await klasik_table()
    spectator = Probe()
    await live.table.join(spectator.conn, None)
    await live.settle()
    presence = spectator.of_type("presence")[-1]
    assert [(s["seat"], s["connected"]) for s in presence["seats"]] == [(n, True) for n in range(5)]
    welcome = live.probes[4].of_type("welcome")[-1]
    assert welcome["role"] == "seat" and welcome["seat"] == 4
    assert len(welcome["room"]["seats"]) == 5 and welcome["room"]["settings"]["players"] == 5

    hands = [set(p.view["hand"]) for p in live.probes]
    for probe in [*live.probes, spectator]:
        view = probe.view
        assert (view["preset"], view["players"], view["scoring"]) == ("klasik", 5, "difference")
        assert view["counts"] == [5] * 5 and view["discard_counts"] == [0] * 5
        assert view["set_aside"] == 2 and view["start"] is not None
        assert view["line"] == [{"tile": view["start"], "seat": None}]  # placed by nobody
        assert view["scores"] == [0] * 5 and view["discarded"] == []
    start = "-".join(sorted(live.probes[0].view["start"].split("-")))
    dealt = set().union(*hands)
    assert len(dealt) == 25 and start not in dealt
    assert spectator.view["hand"] is None and spectator.view["discards"] is None
    # The random first seat moves first: it holds the clock.
    first = live.table.state.turn
    assert live.probes[first].of_type("snapshot")[-1]["clock"]["seat"] == first


async def test_a_seat_that_cannot_place_discards(klasik_table: Any, app: Any) -> None:
    live: LiveTable = await klasik_table()
    spectator = Probe()
    await live.table.join(spectator.conn, None)
    await live.settle()

    # A seat that can place may not discard.
    mover = to_move(live)
    assert not must_discard(mover)
    assert not any(option["discard"] for option in mover.view["legal"])
    tile = mover.view["legal"][0]["tile"]
    await live.table.request(mover.conn, Play(type="play", move_id="no", tile=tile, end="discard"))
    await live.settle()
    assert mover.errors()[-1] == "must_place"
    assert await stored_moves(app) == []

    probe = await until_a_seat_must_discard(live)
    seat = live.table.state.turn
    hand = probe.view["hand"]
    legal = probe.view["legal"]
    assert sorted(o["tile"] for o in legal) == sorted(hand)  # one discard per tile in hand
    assert all(o["end"] == "discard" and o["domi_points"] is None for o in legal)
    ends = probe.view["ends"]
    before = len(await stored_moves(app))

    chosen = hand[-1]
    await live.table.request(
        probe.conn, Play(type="play", move_id="down", tile=chosen, end="discard")
    )
    await live.settle()
    moves = await stored_moves(app)
    assert len(moves) == before + 1
    assert (moves[-1].seat, moves[-1].tile, moves[-1].end, moves[-1].auto) == (
        seat,
        chosen,
        "discard",
        False,
    )
    [ack] = probe.of_type("ack")[-1:]
    assert ack["move_id"] == "down"
    assert live.table.events[ack["seq"] - 1]["kind"] == "discarded"

    # The discarder sees its tile; every other seat and the spectator only that it discarded.
    seen = {"seat": seat, "left": ends["left"], "right": ends["right"]}
    for viewer, other in [*enumerate(live.probes), (None, spectator)]:
        event = next(f["event"] for f in other.of_type("event") if f["seq"] == ack["seq"])
        assert event["kind"] == "discarded" and event["auto"] is False
        if viewer == seat:
            assert event == {
                "kind": "discarded",
                "deal_number": 1,
                **seen,
                "tile": chosen,
                "auto": False,
            }
            assert other.view["discards"] == [chosen]
        else:
            assert "tile" not in event
            assert chosen not in str(other.frames)
            assert other.view["discards"] == ([] if viewer is not None else None)
        assert other.view["discard_counts"][seat] == 1
        assert other.view["discarded"][-1] == seen
        assert other.view["counts"][seat] == 4
    for viewer, other in enumerate(live.probes):
        assert_no_leaks(other.frames, viewer)
    assert_no_leaks(spectator.frames, None)


async def test_the_clock_discards_a_random_tile(
    klasik_table: Any, app: Any, clock: FakeClock
) -> None:
    live: LiveTable = await klasik_table()
    probe = await until_a_seat_must_discard(live)
    seat = live.table.state.turn
    hand = list(probe.view["hand"])
    before = len(await stored_moves(app))
    assert live.table.deadline == pytest.approx(clock.now() + 15)

    clock.advance(15.1)
    await live.settle()
    moves = await stored_moves(app)
    assert len(moves) == before + 1
    move = moves[-1]
    assert (move.seat, move.end, move.auto) == (seat, "discard", True)
    assert move.tile in hand and move.tile not in probe.view["hand"]
    assert probe.view["discards"] == [move.tile]
    mine = [f["event"] for f in probe.of_type("event") if f["event"]["kind"] == "discarded"]
    assert mine[-1]["auto"] is True and mine[-1]["tile"] == move.tile
    other = live.probes[(seat + 1) % 5]
    hidden = [f["event"] for f in other.of_type("event") if f["event"]["kind"] == "discarded"]
    assert hidden[-1] == {
        "kind": "discarded",
        "deal_number": 1,
        "seat": seat,
        "left": mine[-1]["left"],
        "right": mine[-1]["right"],
        "auto": True,
    }
    # The next seat's clock starts when the discard lands.
    assert live.table.deadline == pytest.approx(clock.now() + 15)


async def test_a_restarted_table_replays_stored_discards(
    klasik_table: Any, app: Any, clock: FakeClock
) -> None:
    live: LiveTable = await klasik_table()
    discards = 0
    for turn in range(40):
        probe = to_move(live)
        if must_discard(probe):
            discards += 1
            if discards == 2:  # one by the clock
                clock.advance(15.1)
                await live.settle()
                continue
        await play_first(live, f"r{turn}")
        if discards >= 3 and live.table.state.phase == "playing":
            break
    assert live.table.state.phase == "playing"
    moves = await stored_moves(app)
    assert sum(m.end == "discard" for m in moves) >= 3
    assert any(m.end == "discard" and m.auto for m in moves)
    clock.advance(4.0)  # part of the next turn's time has gone
    room_id = live.table.room.id

    async with restarted(app, clock, room_id) as rebuilt:
        assert rebuilt.state == live.table.state
        assert rebuilt.events == live.table.events
        assert rebuilt.auto_seqs == live.table.auto_seqs
        assert rebuilt.acks == live.table.acks
        assert rebuilt.deadline == live.table.deadline
        assert len(rebuilt.room.seats) == 5
        for seat in range(5):
            assert engine.view(rebuilt.state, seat) == engine.view(live.table.state, seat)
        # It plays on: the seat to move is served by the rebuilt table.
        back = Probe()
        turn = rebuilt.state.turn
        back.conn.player_id = live.guests[turn].player_id
        await rebuilt.join(back.conn, None)
        await rebuilt.settle()
        await back.drain()
        option = back.view["legal"][0]
        await rebuilt.request(
            back.conn, Play(type="play", move_id="after", tile=option["tile"], end=option["end"])
        )
        await rebuilt.settle()
        await back.drain()
        assert back.of_type("ack")[-1]["move_id"] == "after"


async def play_until_set_over(live: LiveTable, clock: FakeClock, limit: int = 600) -> None:
    for turn in range(limit):
        if live.table.state.phase == "set_over":
            return
        if live.table.state.phase == "deal_over":
            clock.advance(CONFIG.deal_pause)
            await live.settle()
        else:
            await play_first(live, f"s{turn}")
    raise AssertionError("the set did not end")


@pytest.mark.parametrize(
    "options",
    [
        {"players": 4, "target_points": 15},
        {"players": 4, "seven_tiles": True, "target_points": 15},
        {"players": 5, "discard": False, "target_points": 15},
        {"players": 5, "stuck": "pass", "target_points": 15},
        {"players": 4, "stuck": "draw", "target_points": 15},
        {"players": 5, "stuck": "draw", "target_points": 15},
        {"players": 5, "zero_zero_25": True, "scoring": "penalty", "deals_per_set": 2},
    ],
)
async def test_each_option_plays_a_set_to_its_stored_result(
    klasik_table: Any, app: Any, clock: FakeClock, options: dict[str, Any]
) -> None:
    live: LiveTable = await klasik_table(seed=None, **options)
    await play_until_set_over(live, clock)
    result = live.probes[0].view["set_result"]
    assert result is not None and live.table.room.status == "open"
    async with app.state.db.session() as session:
        game_set = (await session.scalars(select(GameSet))).one()
        scores = dict((await session.execute(select(Score.seat, Score.points))).all())
    assert {k: v for k, v in game_set.result.items() if k != "kind"} == result
    assert game_set.rules["preset"] == "klasik"
    assert game_set.rules["players"] == options["players"]
    stuck = options.get("stuck", "discard" if options.get("discard", True) else "pass")
    assert game_set.rules["stuck"] == stuck
    assert [scores[s] for s in range(options["players"])] == result["scores"]
    if options.get("scoring") == "penalty":
        assert result["winner"] == min(range(options["players"]), key=lambda s: result["scores"][s])
    else:
        assert max(result["scores"]) >= options["target_points"]
    moves = await stored_moves(app)
    if stuck != "discard":
        assert all(m.end != "discard" for m in moves)
    drew = [f["event"] for f in live.probes[0].of_type("event") if f["event"]["kind"] == "drew"]
    if stuck == "draw":  # seat 0 sees each draw, and only its own tiles (random deals may need
        # no draw at all: test_draw.py plays fixed deals that do)
        assert all(("tile" in e) == (e["seat"] == 0) for e in drew)
    else:
        assert not drew
    for viewer, probe in enumerate(live.probes):
        assert assert_no_leaks(probe.frames, viewer) >= 1


async def test_bots_and_the_clock_play_klasik_with_a_human(
    klasik_table: Any, app: Any, clock: FakeClock
) -> None:
    # A fixed shuffle: with random deals the bots need not ever be left without a placement,
    # and the discard assertion below would then fail by chance.
    live: LiveTable = await klasik_table(bots=(1, 2, 3, 4), scoring="penalty", deals_per_set=2)
    for turn in range(400):
        state = live.table.state
        if state.phase == "set_over":
            break
        if state.phase == "deal_over":
            clock.advance(CONFIG.deal_pause)
        elif state.turn == 0 and turn % 3:
            await play_first(live, f"h{turn}")
            continue
        else:  # a bot's pause, or the human's clock running out now and then
            clock.advance(CONFIG.bot_max_delay if state.turn else 15.1)
        await live.settle()
    assert live.table.state.phase == "set_over"
    moves = await stored_moves(app)
    assert {m.seat for m in moves if m.end == "discard"} - {0}  # the bots discarded too
    assert all(m.client_move_id is None for m in moves if m.seat != 0)
    assert assert_no_leaks(live.probes[0].frames, 0) >= 2


async def test_more_players_before_the_start_reaches_the_table(
    api: Any, app: Any, make_guest: Any
) -> None:
    host = await make_guest("Host")
    room = (await api.post("/api/rooms", json={"preset": "klasik"}, headers=host.headers)).json()
    await api.post(f"/api/rooms/{room['code']}/seats/0", headers=host.headers)
    table = await app.state.live.get(room["id"])
    probe = Probe()
    probe.conn.player_id = host.player_id
    await table.join(probe.conn, None)
    await table.settle()
    await probe.drain()
    assert probe.view["players"] == 4 and len(probe.of_type("welcome")[-1]["room"]["seats"]) == 4

    changed = await api.patch(
        f"/api/rooms/{room['code']}/settings", json={"players": 5}, headers=host.headers
    )
    assert changed.status_code == 200, changed.text
    await table.settle()
    await probe.drain()
    assert len(probe.of_type("room")[-1]["room"]["seats"]) == 5
    assert len(probe.of_type("presence")[-1]["seats"]) == 5
    assert probe.view["players"] == 5 and probe.view["phase"] == "ready"
    for seat in range(1, 5):
        await api.post(f"/api/rooms/{room['code']}/bots/{seat}", json={}, headers=host.headers)
    started = await api.post(f"/api/rooms/{room['code']}/start", headers=host.headers)
    assert started.status_code == 200, started.text
    await table.settle()
    await probe.drain()
    assert probe.view["players"] == 5 and len(probe.view["hand"]) == 5
    assert table.state.rules.players == 5


# --- the real server --------------------------------------------------------------------------


async def test_a_whole_klasik_set_with_five_clients_a_spectator_and_a_restart(
    server: ServerProcess, database_url: str
) -> None:
    lobby = Lobby(server.base_url)
    guests = [await lobby.guest(f"Pemain {i}") for i in range(5)]
    host = guests[0]["token"]
    room = await lobby.create_room(
        host,
        preset="klasik",
        players=5,
        discard=True,
        scoring="penalty",
        deals_per_set=2,
        turn_seconds=60,
    )
    code = room["code"]
    assert len(room["seats"]) == 5
    clients: list[TableClient] = []
    spectator = TableClient(server.ws_url(code), None, name="watcher")
    try:
        for seat, guest in enumerate(guests):
            await lobby.sit(guest["token"], code, seat)
            client = TableClient(server.ws_url(code), guest["token"], name=f"seat{seat}")
            await client.connect()
            assert client.role == "seat" and client.seat == seat
            clients.append(client)
        await spectator.connect()
        await lobby.start(host, code)
        everyone = [*clients, spectator]

        # Play until a discard is stored and acknowledged in a deal that goes on.
        rng = random.Random(8)
        acked: list[tuple[int, int, str, str | None]] = []  # (deal, seat, tile, end)
        give_up = asyncio.get_running_loop().time() + 90
        while True:
            assert asyncio.get_running_loop().time() < give_up, "the table stopped moving"
            movers = [c for c in clients if my_turn(c)]
            if not movers:
                assert not any(set_over(c) for c in clients), "the set ended before a discard"
                await asyncio.sleep(0.02)
                continue
            mover = movers[0]
            deal = (mover.view or {})["deal_number"]
            tile, end = choose(mover.view or {}, rng)
            move_id = await mover.play(tile, end)
            await mover.wait_for(lambda m=mover, i=move_id: m.acked(i))
            acked.append((deal, mover.seat or 0, tile, end))
            view = mover.view or {}  # the mover's snapshot after its ack
            if view["phase"] == "playing" and any(
                d == view["deal_number"] and e == "discard" for d, _, _, e in acked
            ):
                break
        turn_before, deal_before = view["turn"], view["deal_number"]
        discards_now = [(s, t) for d, s, t, e in acked if e == "discard" and d == deal_before]

        # SIGKILL mid-deal; the server comes back and rebuilds the table from the stored moves.
        await asyncio.to_thread(server.kill, signal.SIGKILL)
        for client in everyone:
            await client.close()
        await asyncio.to_thread(server.start)
        for client in everyone:
            client.view = None  # wait for the new snapshot, not the last one before the kill
            await client.connect(resume=True)

        rows = await stored(database_url, select(Move.seat, Move.tile, Move.end).order_by(Move.id))
        assert [(r.seat, r.tile, r.end) for r in rows] == [(s, t, e) for _, s, t, e in acked]
        per_seat = [sum(1 for s, _ in discards_now if s == seat) for seat in range(5)]
        for client in everyone:
            view = client.view or {}
            assert view["phase"] == "playing" and view["deal_number"] == deal_before
            assert view["turn"] == turn_before and view["players"] == 5
            assert view["discard_counts"] == per_seat
            assert len(view["discarded"]) == len(discards_now)
            if client.seat is None:
                assert view["discards"] is None and view["hand"] is None
            else:
                assert sorted(view["discards"]) == sorted(
                    t for s, t in discards_now if s == client.seat
                )

        # Everyone plays on, from its own snapshots, to the end of the set.
        played = await asyncio.wait_for(
            asyncio.gather(*(autoplay(c, random.Random(c.seat)) for c in clients)), timeout=240
        )
        await spectator.wait_for(lambda: set_over(spectator))
        result = (clients[0].view or {})["set_result"]
        assert result is not None and result["deals"] >= 2
        assert (await lobby.room(code))["status"] == "open"
        [(stored_result,)] = await stored(database_url, select(GameSet.result))
        assert {k: v for k, v in stored_result.items() if k in result} == result
        scores = dict(await stored(database_url, select(Score.seat, Score.points)))
        assert [scores[s] for s in range(5)] == result["scores"]
        assert result["winner"] == min(range(5), key=lambda s: result["scores"][s])
        moves = await stored(database_url, select(Move.end))
        assert len(moves) == len(acked) + sum(played)
        assert sum(1 for (end,) in moves if end == "discard") >= 1

        # Nobody saw a tile it may not see: no other seat's hand, no discard but its own.
        for client in everyone:
            assert client.view["set_result"] == result  # type: ignore[index]
            assert assert_no_leaks(client.received, client.seat) >= 2
        by_viewer = {c.seat: discards_seen(c.received) for c in everyone}
        total = by_viewer[None]
        assert total and all(tile is None for _, _, tile in total)
        for seat in range(5):
            assert [(d, s) for d, s, _ in by_viewer[seat]] == [(d, s) for d, s, _ in total]
            for _, s, tile in by_viewer[seat]:
                assert (tile is not None) == (s == seat)
    finally:
        for client in [*clients, spectator]:
            await client.close()
        await lobby.close()
