"""Helpers for the players tests: a room seated straight in the database, and sets played
through the real store (SqlGameStore) as the table actor writes them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

import engine
from app.rooms.store import SqlGameStore
from app.store.db import Database
from app.store.models import Player, Room, Seat
from app.store.records import MoveRecord
from tests.conftest import TEST_SECRET_KEY

AT = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = Database(database_url, secret_key=TEST_SECRET_KEY)
    try:
        yield database
    finally:
        await database.dispose()


async def seated_room(
    db: Database,
    *,
    mode: str,
    rated: bool,
    bots: tuple[int, ...] = (),
    code: str = "ABCDEF",
    players: list[str] | None = None,
) -> tuple[str, list[str]]:
    """A room whose four seats are taken (by ``players``, new ones by default; bots in ``bots``);
    returns (room id, the players by seat)."""
    async with db.session() as session, session.begin():
        if players is None:
            made = [Player(name=f"P{i}", token_hash=f"{code}{i:058d}") for i in range(4)]
            session.add_all(made)
            await session.flush()
            players = [p.id for p in made]
        room = Room(
            code=code,
            host_id=players[0],
            settings={"preset": "pordi", "mode": mode, "turn_seconds": 15, "rated": rated},
            status="playing",
        )
        session.add(room)
        await session.flush()
        for seat, player in enumerate(players):
            bot = "heuristic" if seat in bots else None
            session.add(
                Seat(room_id=room.id, seat=seat, player_id=None if bot else player, bot=bot)
            )
        return room.id, players


async def play_set(
    store: SqlGameStore,
    room_id: str,
    mode: str,
    scores: list[int],
    *,
    number: int = 1,
    deals: tuple[tuple[int, str], ...] = ((0, "balak"),),
) -> int:
    """A set created and ended as the table does it: each deal's last move carries its result
    (``deals``: (winner seat, kind) per deal), the last one the set's result too."""
    at = AT + timedelta(minutes=number)
    rules = engine.pordi(mode).to_dict()
    set_id = await store.create_set(room_id=room_id, number=number, rules=rules, at=at)
    for index, (winner, kind) in enumerate(deals, start=1):
        deal_id = await store.create_deal(
            set_id=set_id, number=index, secret="1" * 64, opener=0, at=at
        )
        last = index == len(deals)
        await store.record_move(
            MoveRecord(
                deal_id=deal_id,
                seq=1,
                seat=winner,
                tile="6-6",
                end=None,
                auto=False,
                client_move_id=None,
                at=at,
                deal_result={"end": "domi", "result": kind, "winner": winner},
                set_id=set_id,
                set_result={"mode": mode, "scores": scores, "deals": len(deals)} if last else None,
                scores=scores,
            )
        )
    return set_id
