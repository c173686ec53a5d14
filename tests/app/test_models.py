"""The schema's own guarantees, on both backends: UTC round-trips, JSON, constraints."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import event, select
from sqlalchemy.exc import IntegrityError, StatementError

from app.store import players, rooms, social
from app.store.db import Database
from app.store.models import Deal, Friendship, GameSet, Move, Score


@pytest.fixture
async def db(database_url: str):  # type: ignore[no-untyped-def]
    database = Database(database_url, secret_key="k")
    yield database
    await database.dispose()


async def test_history_round_trip_keeps_utc_and_json(db: Database) -> None:
    wib = timezone(timedelta(hours=7))  # Jakarta: stored as UTC, read back aware
    async with db.session() as s:
        host = await players.create_player(s, name="Ayu", token_hash="h1")
        room = await rooms.create_room(
            s, code="ABC234", host_id=host.id, settings={"mode": "ganda"}
        )
        game_set = GameSet(room_id=room.id, number=1, rules={"preset": "pordi"})
        s.add(game_set)
        await s.flush()
        deal = Deal(set_id=game_set.id, number=1, seed=2**40, opener=2)
        s.add(deal)
        await s.flush()
        when = datetime(2025, 1, 2, 10, 0, tzinfo=wib)
        s.add(Move(deal_id=deal.id, seq=1, seat=2, tile="6-6", end=None, created_at=when))
        s.add(Score(set_id=game_set.id, seat=0, points=3))
        await s.commit()

    async with db.session() as s:
        move = (await s.execute(select(Move))).scalar_one()
        assert move.created_at == datetime(2025, 1, 2, 3, 0, tzinfo=UTC)
        assert move.created_at.tzinfo is not None and move.auto is False
        stored = await rooms.get_room_by_code(s, code="abc234")
        assert stored is not None and stored.settings == {"mode": "ganda"}
        assert (await s.get(Deal, deal.id)).seed == 2**40  # type: ignore[union-attr]


async def test_constraints(db: Database) -> None:
    async with db.session() as s:
        host = await players.create_player(s, name="Ayu", token_hash="h1")
        room = await rooms.create_room(s, code="ABC234", host_id=host.id, settings={})
        await rooms.put_in_seat(s, room_id=room.id, seat=0, player_id=host.id)
        await s.commit()
        room_id, host_id = room.id, host.id  # a rollback expires the loaded objects
        with pytest.raises(IntegrityError):  # one seat per player per room
            await rooms.put_in_seat(s, room_id=room_id, seat=1, player_id=host_id)
        await s.rollback()
        with pytest.raises(IntegrityError):  # a seat holds a player or a bot, not nobody
            await rooms.put_in_seat(s, room_id=room_id, seat=2)
        await s.rollback()
        with pytest.raises(IntegrityError):  # foreign keys are enforced on SQLite too
            await rooms.put_in_seat(s, room_id="nope", seat=0, bot="heuristic")
        await s.rollback()
        host = await players.get_player(s, player_id=host_id)
        assert host is not None
        with pytest.raises(StatementError, match="naive"):
            await players.touch_player(s, player=host, now=datetime(2025, 1, 1))


async def test_social_constraints_and_notifications_kept(db: Database) -> None:
    async with db.session() as s:
        a = await players.create_player(s, name="Ayu", token_hash="h1")
        b = await players.create_player(s, name="Budi", token_hash="h2")
        await s.commit()
        ids = sorted([a.id, b.id])
        a_id = a.id
        with pytest.raises(IntegrityError):  # one row per pair: the ids in order
            s.add(Friendship(low_id=ids[1], high_id=ids[0], requester_id=ids[0], state="friends"))
            await s.flush()
        await s.rollback()
        with pytest.raises(IntegrityError):  # the requester is one of the pair
            s.add(Friendship(low_id=ids[0], high_id=ids[1], requester_id="x", state="requested"))
            await s.flush()
        await s.rollback()
        with pytest.raises(IntegrityError):  # no other state
            s.add(Friendship(low_id=ids[0], high_id=ids[1], requester_id=ids[0], state="maybe"))
            await s.flush()
        await s.rollback()
        with pytest.raises(IntegrityError):  # nobody blocks themselves
            await social.add_block(s, blocker_id=a_id, blocked_id=a_id)
        await s.rollback()
        for n in range(7):
            await social.add_notification(
                s, player_id=a_id, kind="friend_request", payload={"n": n}, keep=5
            )
        await s.commit()
        kept = await social.notifications_of(s, player_id=a_id)
        assert [row.payload["n"] for row in kept] == [6, 5, 4, 3, 2]  # the last 5, newest first


async def test_notifications_stored_together_keep_each_players_last(db: Database) -> None:
    statements: list[str] = []

    def seen(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        statements.append(statement.split()[0].upper())

    async with db.session() as s:
        a = await players.create_player(s, name="Ayu", token_hash="h1")
        b = await players.create_player(s, name="Budi", token_hash="h2")
        c = await players.create_player(s, name="Citra", token_hash="h3")
        for n in range(4):
            await social.add_notification(
                s, player_id=a.id, kind="friend_request", payload={"n": n}, keep=5
            )
        await social.add_notification(
            s, player_id=c.id, kind="friend_request", payload={"n": 0}, keep=5
        )
        await s.commit()
        rows = [(a.id, "tournament_round", {"n": n}) for n in (4, 5, 6)]
        rows.append((b.id, "tournament_round", {"n": 9}))
        event.listen(db.engine.sync_engine, "before_cursor_execute", seen)
        try:
            made = await social.add_notifications(s, rows=rows, keep=5)
        finally:
            event.remove(db.engine.sync_engine, "before_cursor_execute", seen)
        await s.commit()
        assert statements == ["INSERT", "DELETE"]  # however many players
        assert sorted((row.player_id, row.payload["n"]) for row in made) == sorted(
            (p, payload["n"]) for p, _, payload in rows
        )
        assert all(row.id is not None for row in made)
        kept_a = await social.notifications_of(s, player_id=a.id)
        assert [row.payload["n"] for row in kept_a] == [6, 5, 4, 3, 2]  # the last 5 of 7
        assert [r.payload["n"] for r in await social.notifications_of(s, player_id=b.id)] == [9]
        # a player not notified now keeps theirs
        assert [r.payload["n"] for r in await social.notifications_of(s, player_id=c.id)] == [0]
        assert await social.add_notifications(s, rows=[], keep=5) == []
