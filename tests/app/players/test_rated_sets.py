"""Rated sets through the real server (a uvicorn subprocess) with four WebSocket clients.

The stored ratings are checked against the ``openskill`` package called directly on the results
the clients saw; the ranks are worked out here from the scores, by the rules in docs/API.md.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import select

from app.players.ratings import displayed
from app.store.models import Rating, RatingChange
from tests.app.live.client import Lobby, TableClient
from tests.app.live.server import ServerProcess
from tests.app.live.test_server import autoplay, set_over, stored

MODEL = PlackettLuce()
# Short sets: one deal in Tunggal, first to one point in Ganda.
SHORT = {"deals_per_set": 1, "target_points": 1, "turn_seconds": 60}


@pytest.fixture
async def server(database_url: str, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    process = ServerProcess(database_url, tmp_path / "server")
    await asyncio.to_thread(process.start)
    try:
        yield process
    finally:
        await asyncio.to_thread(process.stop)


class Table:
    """Four seats at one room: guests (``players``) or bots, and a socket per guest."""

    def __init__(self, server: ServerProcess, lobby: Lobby, code: str, host: str) -> None:
        self.server, self.lobby, self.code, self.host = server, lobby, code, host
        self.clients: list[TableClient] = []

    @classmethod
    async def seat(
        cls,
        server: ServerProcess,
        lobby: Lobby,
        players: list[dict[str, Any]],
        *,
        bots: tuple[int, ...] = (),
        host: int = 0,
        **settings: Any,
    ) -> Table:
        """``host``: which player hosts (a guest may host only a few rooms at once)."""
        token = players[host]["token"]
        room = await lobby.create_room(token, **SHORT, **settings)
        table = cls(server, lobby, room["code"], token)
        for seat, player in enumerate(players):
            if seat in bots:
                await lobby.seat_bot(token, table.code, seat)
                continue
            await lobby.sit(player["token"], table.code, seat)
            client = TableClient(server.ws_url(table.code), player["token"], name=f"seat{seat}")
            await client.connect()
            table.clients.append(client)
        return table

    async def play_set(self, rng: random.Random) -> dict[str, Any]:
        """Start a set (the host, over REST) and play it out; returns its result."""
        for client in self.clients:
            client.view = None  # wait for the new set's snapshot
        await self.lobby.start(self.host, self.code)
        for client in self.clients:
            await client.wait_for(lambda c=client: c.view is not None and not set_over(c))
        await asyncio.wait_for(asyncio.gather(*(autoplay(c, rng) for c in self.clients)), 120)
        result = self.clients[0].view["set_result"]  # type: ignore[index]
        assert result is not None
        return dict(result)

    async def close(self) -> None:
        for client in self.clients:
            await client.close()


def expected_ranks(mode: str, scores: list[int]) -> list[int]:
    """PORDI: the higher score ranks first; in Ganda seats 0+2 and 1+3 share one score."""
    if mode == "ganda":
        return [1 + (scores[s ^ 1] > scores[s]) for s in range(4)]  # s ^ 1: the other pair
    return [1 + sum(other > mine for other in scores) for mine in scores]


def openskill_after(mode: str, before: list[Any], ranks: list[int]) -> list[Any]:
    """openskill itself on one set: four one-player teams, or pairs (0, 2) and (1, 3)."""
    if mode == "tunggal":
        return [team[0] for team in MODEL.rate([[r] for r in before], ranks=ranks)]
    even, odd = MODEL.rate(
        [[before[0], before[2]], [before[1], before[3]]], ranks=[ranks[0], ranks[1]]
    )
    return [even[0], odd[0], even[1], odd[1]]


async def ratings_of(database_url: str, players: list[dict[str, Any]], mode: str) -> list[Any]:
    rows = await stored(
        database_url,
        select(Rating.player_id, Rating.mu, Rating.sigma, Rating.sets).where(Rating.mode == mode),
    )
    by_player = {row.player_id: row for row in rows}
    return [by_player.get(p["player_id"]) for p in players]


async def test_rated_sets_in_both_modes_rate_as_openskill_does(
    server: ServerProcess, database_url: str
) -> None:
    rng = random.Random(15)
    async with Lobby(server.base_url) as lobby:
        players = [await lobby.guest(f"Pemain {i}") for i in range(4)]
        for host, (mode, sets) in enumerate((("tunggal", 2), ("ganda", 1))):
            table = await Table.seat(server, lobby, players, host=host, mode=mode, rated=True)
            expected = [MODEL.rating() for _ in range(4)]
            try:
                for number in range(1, sets + 1):
                    result = await table.play_set(rng)
                    ranks = expected_ranks(mode, result["scores"])
                    before = [displayed(r.mu, r.sigma) for r in expected]
                    expected = openskill_after(mode, expected, ranks)
                    # Stored with the move that ended the set: there as soon as the end is seen.
                    answer = await lobby.http.get(f"/api/rooms/{table.code}/sets/{number}/ratings")
                    shown = answer.json()
                    assert shown["rated"] is True and shown["mode"] == mode
                    assert [p["rank"] for p in shown["players"]] == ranks
                    assert [p["before"] for p in shown["players"]] == before
                    assert [p["after"] for p in shown["players"]] == [
                        displayed(r.mu, r.sigma) for r in expected
                    ]
                    rows = await ratings_of(database_url, players, mode)
                    for row, want in zip(rows, expected, strict=True):
                        assert row.mu == pytest.approx(want.mu, abs=1e-9)
                        assert row.sigma == pytest.approx(want.sigma, abs=1e-9)
                        assert row.sets == number
            finally:
                await table.close()
        profile = (await lobby.http.get(f"/api/players/{players[0]['player_id']}")).json()
        assert profile["modes"]["tunggal"]["rated_sets"] == 2
        assert profile["modes"]["ganda"]["rated_sets"] == 1
        assert profile["modes"]["tunggal"]["sets_played"] == 2
        assert len(profile["modes"]["tunggal"]["history"]) == 2


async def test_an_unrated_room_and_a_room_with_a_bot_change_no_rating(
    server: ServerProcess, database_url: str
) -> None:
    rng = random.Random(16)
    async with Lobby(server.base_url) as lobby:
        players = [await lobby.guest(f"Pemain {i}") for i in range(4)]
        rated = await Table.seat(server, lobby, players, mode="tunggal", rated=True)
        try:
            await rated.play_set(rng)
        finally:
            await rated.close()
        before = await ratings_of(database_url, players, "tunggal")
        changes = await stored(database_url, select(RatingChange.set_id))
        assert len(changes) == 4

        others = (((), {"rated": False}), ((3,), {"rated": True}), ((), {}))
        for host, (bots, settings) in enumerate(others, start=1):
            table = await Table.seat(
                server, lobby, players, bots=bots, host=host % 3, mode="tunggal", **settings
            )
            try:
                await table.play_set(rng)
                shown = (await lobby.http.get(f"/api/rooms/{table.code}/sets/1/ratings")).json()
                assert shown["rated"] is False and shown["ended"] is True
                assert {p["change"] for p in shown["players"]} == {None}
                assert len(shown["players"]) == 4 - len(bots)
            finally:
                await table.close()
            assert await ratings_of(database_url, players, "tunggal") == before
            assert len(await stored(database_url, select(RatingChange.set_id))) == 4
        profile = (await lobby.http.get(f"/api/players/{players[0]['player_id']}")).json()
        tunggal = profile["modes"]["tunggal"]
        assert tunggal["sets_played"] == 4 and tunggal["rated_sets"] == 1
