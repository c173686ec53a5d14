"""Whole sets through the real server (a uvicorn subprocess) with real WebSocket clients."""

from __future__ import annotations

import asyncio
import json
import random
import signal
from typing import Any

import pytest
import websockets
from sqlalchemy import select

from app.store.db import create_engine
from tests.app.live.client import Lobby, TableClient, choose
from tests.app.live.leaks import assert_no_leaks
from tests.app.live.server import ServerProcess


async def seated_table(
    server: ServerProcess, *, bots: tuple[int, ...] = (), **settings: Any
) -> tuple[Lobby, str, list[TableClient], str]:
    lobby = Lobby(server.base_url)
    guests = [await lobby.guest(f"Pemain {i}") for i in range(4)]
    host = guests[0]["token"]
    room = await lobby.create_room(host, **settings)
    code = room["code"]
    clients = []
    for seat, guest in enumerate(guests):
        if seat in bots:
            await lobby.seat_bot(host, code, seat)
            continue
        await lobby.sit(guest["token"], code, seat)
        client = TableClient(server.ws_url(code), guest["token"], name=f"seat{seat}")
        await client.connect()
        assert client.role == "seat" and client.seat == seat
        clients.append(client)
    return lobby, code, clients, host


def my_turn(client: TableClient) -> bool:
    view = client.view
    return bool(
        view and view["phase"] == "playing" and view["turn"] == client.seat and view["legal"]
    )


def set_over(client: TableClient) -> bool:
    return bool(client.view and client.view["phase"] == "set_over")


def answered(client: TableClient, move_id: str) -> bool:
    return move_id in client.acks or any(e.get("move_id") == move_id for e in client.errors)


async def autoplay(client: TableClient, rng: random.Random, *, max_moves: int = 10_000) -> int:
    """Play random legal tiles from this seat's own snapshots until the set ends."""
    moves = 0
    while moves < max_moves:
        await client.wait_for(lambda: my_turn(client) or set_over(client), timeout=60)
        if set_over(client):
            return moves
        tile, end = choose(client.view or {}, rng)
        move_id = await client.play(tile, end)
        await client.wait_for(lambda m=move_id: answered(client, m))
        assert move_id in client.acks, client.errors
        moves += 1
    return moves


async def stored(database_url: str, query: Any) -> list[Any]:
    engine = create_engine(database_url)
    try:
        async with engine.connect() as conn:
            return list((await conn.execute(query)).all())
    finally:
        await engine.dispose()


@pytest.mark.parametrize("mode", ["tunggal", "ganda"])
async def test_a_whole_set_with_four_clients_and_a_spectator(
    server: ServerProcess, database_url: str, mode: str
) -> None:
    from app.store.models import GameSet, Move, Score

    lobby, code, clients, _host = await seated_table(
        server, mode=mode, deals_per_set=3, target_points=5, turn_seconds=60
    )
    spectator = TableClient(server.ws_url(code), None, name="watcher")
    await spectator.connect()
    assert spectator.role == "spectator"
    try:
        await lobby.start(clients[0].token or "", code)
        rng = random.Random(7)
        played = await asyncio.wait_for(
            asyncio.gather(*(autoplay(c, rng) for c in clients)), timeout=240
        )
        assert sum(played) > 20
        await spectator.wait_for(lambda: set_over(spectator))

        result = clients[0].view["set_result"]  # type: ignore[index]
        assert result is not None
        room = await lobby.room(code)
        assert room["status"] == "open"
        [(stored_result,)] = await stored(database_url, select(GameSet.result))
        assert stored_result is not None
        assert {k: v for k, v in stored_result.items() if k in result} == result
        scores = dict(await stored(database_url, select(Score.seat, Score.points)))
        assert [scores[s] for s in range(4)] == clients[0].view["scores"]  # type: ignore[index]
        moves = await stored(database_url, select(Move.id))
        assert len(moves) == sum(played)
        if mode == "ganda":
            assert max(scores.values()) >= 5
        # Every viewer saw the same results, and nothing it should not have seen.
        for client in [*clients, spectator]:
            assert client.view["set_result"] == result  # type: ignore[index]
            assert assert_no_leaks(client.received, client.seat) >= 1
            seqs = [m["seq"] for m in client.received if m["type"] == "event"]
            assert seqs == sorted(seqs)
    finally:
        for client in [*clients, spectator]:
            await client.close()
        await lobby.close()


async def test_a_killed_server_comes_back_with_every_acknowledged_move(
    server: ServerProcess, database_url: str
) -> None:
    from app.store.models import Move

    lobby, code, clients, host = await seated_table(server, mode="tunggal", deals_per_set=1)
    try:
        await lobby.start(host, code)
        rng = random.Random(3)
        acked: list[tuple[int, str]] = []
        by_seat = {c.seat: c for c in clients}
        turn_before = None
        give_up = asyncio.get_running_loop().time() + 60
        while len(acked) < 6:  # no deal can end this soon
            assert asyncio.get_running_loop().time() < give_up, "the table stopped moving"
            # Whoever's own latest snapshot says it is their turn moves (the others' may lag).
            movers = [c for c in clients if my_turn(c)]
            if not movers:
                await asyncio.sleep(0.02)
                continue
            mover = movers[0]
            tile, end = choose(mover.view or {}, rng)
            move_id = await mover.play(tile, end)
            await mover.wait_for(lambda m=mover, i=move_id: i in m.acks)
            acked.append((mover.seat or 0, tile))
            turn_before = (mover.view or {})["turn"]  # the mover's snapshot precedes its ack

        await asyncio.to_thread(server.kill, signal.SIGKILL)
        for client in clients:
            await client.close()
        await asyncio.to_thread(server.start)

        for client in clients:
            await client.connect(resume=True)
        view = by_seat[0].view or {}
        line_tiles = {"-".join(sorted(item["tile"].split("-"))) for item in view["line"]}
        assert {"-".join(sorted(t.split("-"))) for _, t in acked} <= line_tiles
        assert view["turn"] == turn_before
        rows = await stored(database_url, select(Move.seq, Move.seat, Move.tile).order_by(Move.id))
        assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
        assert [(r.seat, "-".join(sorted(r.tile.split("-")))) for r in rows] == [
            (s, "-".join(sorted(t.split("-")))) for s, t in acked
        ]
        await asyncio.wait_for(asyncio.gather(*(autoplay(c, rng) for c in clients)), timeout=120)
        assert all(set_over(c) for c in clients)
    finally:
        for client in clients:
            await client.close()
        await lobby.close()


async def test_bad_input_gets_a_clear_error_and_changes_nothing(
    server: ServerProcess, database_url: str
) -> None:
    from app.store.models import Move

    lobby, code, clients, host = await seated_table(server, mode="tunggal", turn_seconds=60)
    try:
        await lobby.start(host, code)
        await asyncio.gather(
            *(
                c.wait_for(lambda c=c: bool(c.view and c.view["phase"] == "playing"))
                for c in clients
            )
        )
        mover = next(c for c in clients if my_turn(c))
        idle = next(c for c in clients if c is not mover)
        before = {c.seat: c.view for c in clients}

        async def expect_error(client: TableClient, frame: str | dict[str, Any], code: str) -> None:
            count = len(client.errors)
            if isinstance(frame, dict):
                await client.send(frame)
            else:
                await client.send_raw(frame)
            await client.wait_for(lambda: len(client.errors) > count)
            assert client.errors[-1]["code"] == code, client.errors[-1]
            assert client.errors[-1]["message"]

        await expect_error(idle, "{not json", "bad_json")
        await expect_error(idle, "[1, 2]", "bad_json")
        await expect_error(idle, {"type": "shout", "text": "hi"}, "bad_message")
        await expect_error(
            idle, {"type": "play", "move_id": "x", "tile": "6-6", "extra": 1}, "bad_message"
        )
        await expect_error(idle, {"type": "play", "move_id": "x", "tile": "6-6"}, "not_your_turn")
        missing = next(
            t for t in ("0-0", "0-1", "1-1", "2-3") if t not in (mover.view or {})["hand"]
        )
        await expect_error(
            mover, {"type": "play", "move_id": "y", "tile": missing}, "tile_not_in_hand"
        )
        await expect_error(mover, {"type": "hello", "token": None}, "bad_message")

        spectator = TableClient(server.ws_url(code), None, name="watcher")
        await spectator.connect()
        await expect_error(spectator, {"type": "play", "move_id": "z", "tile": "6-6"}, "spectator")
        await expect_error(spectator, {"type": "start"}, "not_host")

        # Oversized frame: a clear error, then the socket is closed (1009).
        big = TableClient(server.ws_url(code), None, name="big")
        await big.connect()
        await big.send_raw(json.dumps({"type": "ping", "t": "x" * 10_000}))
        await big.wait_for(lambda: not big.connected)
        assert big.errors[-1]["code"] == "frame_too_large"
        assert big._ws.close_code == 1009

        # Flooding: refused with rate_limited, and a socket that keeps on is closed (1008).
        flood = TableClient(server.ws_url(code), None, name="flood")
        await flood.connect()
        for i in range(400):
            try:
                await flood.send({"type": "ping", "t": i})
            except websockets.ConnectionClosed:
                break
        await flood.wait_for(lambda: not flood.connected)
        assert "rate_limited" in [e["code"] for e in flood.errors]
        assert flood._ws.close_code == 1008

        # A bad token is refused and the socket closed; a wrong Origin is refused at the upgrade.
        intruder = TableClient(server.ws_url(code), "not-a-token", name="intruder")
        with pytest.raises((ConnectionError, asyncio.TimeoutError)):
            await intruder.connect()
        assert intruder.errors and intruder.errors[-1]["code"] == "bad_token"
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(server.ws_url(code), origin="https://evil.example")  # type: ignore[arg-type]
        assert refused.value.response.status_code == 403

        # No hello first.
        async with websockets.connect(server.ws_url(code)) as raw:
            await raw.send(json.dumps({"type": "ping"}))
            reply = json.loads(await raw.recv())
            assert reply["code"] == "hello_required"

        # Nothing changed at the table.
        assert await stored(database_url, select(Move.id)) == []
        for client in clients:
            await client.refresh()
            assert client.view == before[client.seat]
    finally:
        for client in clients:
            await client.close()
        await lobby.close()
