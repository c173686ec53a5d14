"""Draw Domino (Klasik ``stuck: "draw"``) at the live table and through the real server.

The first test drives the room actor in process on a fake clock: the turn clock plays for a seat
that times out, and the draws it leads to happen inside the engine. The second plays a whole Draw
Domino set with four real WebSocket clients and a spectator through the real server (a uvicorn
subprocess), with the leak walker reading every message each of them received.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import select

from app.rooms.clock import FakeClock
from app.store.models import GameSet, Move, Score
from tests.app.live.client import TableClient
from tests.app.live.conftest import CONFIG, LiveTable, stored_moves
from tests.app.live.leaks import assert_no_leaks
from tests.app.live.server import ServerProcess
from tests.app.live.test_server import autoplay, seated_table, set_over, stored


def drew(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f["event"] for f in frames if f["type"] == "event" and f["event"]["kind"] == "drew"]


async def test_the_clock_plays_a_draw_set_for_seats_that_time_out(
    live_table: Callable[..., Awaitable[LiveTable]], app: Any, clock: FakeClock
) -> None:
    live = await live_table(
        seats=4, seed=2, preset="klasik", players=4, stuck="draw", target_points=10
    )
    for _ in range(600):
        phase = live.table.state.phase
        if phase == "set_over":
            break
        clock.advance(CONFIG.deal_pause if phase == "deal_over" else 15.1)  # nobody moves
        await live.settle()
    assert live.table.state.phase == "set_over"
    moves = await stored_moves(app)
    assert moves and all(m.auto and m.end != "discard" for m in moves)
    for seat, probe in enumerate(live.probes):
        await probe.drain()
        mine = drew(probe.frames)
        assert mine, "a whole set without a draw"
        assert all(("tile" in e) == (e["seat"] == seat) for e in mine)
        assert assert_no_leaks(probe.frames, seat) >= 1
    snapshots = [f["view"] for f in live.probes[0].of_type("snapshot")]
    assert {v["boneyard"] for v in snapshots if v["phase"] == "playing"} >= {0, 3}


async def test_a_whole_draw_domino_set_with_four_clients_and_a_spectator(
    server: ServerProcess, database_url: str
) -> None:
    lobby, code, clients, _host = await seated_table(
        server, preset="klasik", stuck="draw", target_points=15, turn_seconds=60
    )
    spectator = TableClient(server.ws_url(code), None, name="watcher")
    await spectator.connect()
    try:
        # A fair deal may see no seat stuck while the boneyard holds tiles (about one 15-point
        # set in 40 plays through without a draw): the host starts another set until one is
        # seen, at most five (all five without a draw: ~1e-8).
        played = 0
        for number in range(1, 6):
            await lobby.start(clients[0].token or "", code)
            for client in [*clients, spectator]:
                await client.wait_for(lambda c=client, n=number: c.set == n)
            moves = await asyncio.wait_for(
                asyncio.gather(*(autoplay(c, random.Random(c.seat)) for c in clients)),
                timeout=240,
            )
            played += sum(moves)
            await spectator.wait_for(lambda: set_over(spectator))
            if drew(spectator.received):
                break
        result = (clients[0].view or {})["set_result"]
        assert result is not None and max(result["scores"]) >= 15
        sets = await stored(
            database_url, select(GameSet.id, GameSet.rules, GameSet.result).order_by(GameSet.id)
        )
        assert len(sets) == number
        set_id, rules, stored_result = sets[-1]
        assert rules["stuck"] == "draw"
        assert {k: v for k, v in stored_result.items() if k in result} == result
        scores = dict(
            await stored(database_url, select(Score.seat, Score.points).filter_by(set_id=set_id))
        )
        assert [scores[s] for s in range(4)] == result["scores"]
        # Only placements are stored: the draws follow from them (the engine makes them).
        ends = [end for (end,) in await stored(database_url, select(Move.end))]
        assert len(ends) == played and "discard" not in ends
        seen = drew(spectator.received)
        assert seen and all("tile" not in e for e in seen)
        for client in [*clients, spectator]:
            assert client.view["set_result"] == result  # type: ignore[index]
            assert assert_no_leaks(client.received, client.seat) >= 1
            got = drew(client.received)
            assert [(e["deal_number"], e["seat"], e["boneyard"]) for e in got] == [
                (e["deal_number"], e["seat"], e["boneyard"]) for e in seen
            ]
            assert all(("tile" in e) == (e["seat"] == client.seat) for e in got)
    finally:
        for client in [*clients, spectator]:
            await client.close()
        await lobby.close()
