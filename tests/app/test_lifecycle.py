"""The room lifecycle: every transition, allowed and refused, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from app.rooms import lifecycle
from app.rooms.lifecycle import LifecycleError
from app.store import players, rooms
from app.store.db import Database
from app.store.models import Room

ALL = ("open", "playing", "closed", "abandoned")
ALLOWED = {("open", "playing"), ("open", "closed"), ("playing", "open")}
ALLOWED |= {("playing", "closed"), ("playing", "abandoned")}


@pytest.mark.parametrize("current", ALL)
@pytest.mark.parametrize("new", ALL)
def test_the_transition_table(current: str, new: lifecycle.Status) -> None:
    if (current, new) in ALLOWED:
        lifecycle.check_transition(current, new)
        return
    with pytest.raises(LifecycleError) as refused:
        lifecycle.check_transition(current, new)
    expected = {
        "closed": "room_closed",
        "abandoned": "room_closed",
    }.get(current) or {
        ("playing", "playing"): "set_in_progress",
        ("open", "open"): "not_playing",
        ("open", "abandoned"): "not_playing",
    }[(current, new)]
    assert refused.value.code == expected


def test_statuses_are_the_check_constraint() -> None:
    constraint = next(c for c in Room.__table__.constraints if c.name == "ck_rooms_status")
    assert str(constraint.sqltext) == "status IN ('open', 'playing', 'closed', 'abandoned')"  # type: ignore[attr-defined]
    assert lifecycle.ROOM_STATUSES == ALL and lifecycle.LISTED == ("open", "playing")


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = Database(database_url, secret_key="k")
    yield database
    await database.dispose()


async def _room(db: Database, *, status: str = "open", seated: int = 0, players_: int = 4) -> str:
    """A room whose host sits in seat 0 (when ``seated`` > 0), bots in the next seats."""
    async with db.session() as s:
        host = await players.create_player(s, name="Host", token_hash=f"h-{status}-{seated}")
        settings = {"preset": "pordi", "mode": "tunggal", "turn_seconds": 15}
        if players_ == 5:
            settings = {"preset": "klasik", "players": 5}
        room = await rooms.create_room(s, code="ABCDEF", host_id=host.id, settings=settings)
        for seat in range(seated):
            if seat == 0:
                await rooms.put_in_seat(s, room_id=room.id, seat=0, player_id=host.id)
            else:
                await rooms.put_in_seat(s, room_id=room.id, seat=seat, bot="heuristic")
        await rooms.set_status(s, room=room, status=status)
        await s.commit()
        return room.id


async def _status(db: Database, room_id: str) -> tuple[str, str | None, str]:
    async with db.session() as s:
        room = await rooms.get_room(s, room_id=room_id)
        assert room is not None
        return room.status, room.closed_reason, room.host_id


async def _host(db: Database, room_id: str) -> str:
    return (await _status(db, room_id))[2]


async def test_start_set(db: Database) -> None:
    room_id = await _room(db, seated=3)
    host = await _host(db, room_id)
    async with db.session() as s:
        with pytest.raises(LifecycleError, match="all 4 seats") as refused:
            await lifecycle.start_set(s, room_id=room_id, by=host)
        assert refused.value.code == "seats_not_filled"
        await rooms.put_in_seat(s, room_id=room_id, seat=3, bot="random")
        with pytest.raises(LifecycleError) as refused:
            await lifecycle.start_set(s, room_id=room_id, by="someone-else")
        assert refused.value.code == "not_host"
        await lifecycle.start_set(s, room_id=room_id, by=host)
        await s.commit()
    assert (await _status(db, room_id))[0] == "playing"
    async with db.session() as s:
        with pytest.raises(LifecycleError) as refused:
            await lifecycle.start_set(s, room_id=room_id, by=None)
        assert refused.value.code == "set_in_progress"


async def test_a_table_of_five_needs_five(db: Database) -> None:
    room_id = await _room(db, seated=4, players_=5)
    async with db.session() as s:
        with pytest.raises(LifecycleError, match="all 5 seats"):
            await lifecycle.start_set(s, room_id=room_id, by=None)
        await rooms.put_in_seat(s, room_id=room_id, seat=4, bot="random")
        await lifecycle.start_set(s, room_id=room_id, by=None)  # None: the server starts it


async def test_end_set_and_the_next(db: Database) -> None:
    room_id = await _room(db, status="playing", seated=4)
    async with db.session() as s:
        await lifecycle.end_set(s, room_id=room_id)
        await s.commit()
        assert (await _status(db, room_id))[0] == "open"
        with pytest.raises(LifecycleError) as refused:
            await lifecycle.end_set(s, room_id=room_id)
        assert refused.value.code == "not_playing"
        await lifecycle.start_set(s, room_id=room_id, by=None)  # the next set
        await s.commit()
    assert (await _status(db, room_id))[0] == "playing"


@pytest.mark.parametrize("status", ["open", "playing"])
async def test_close(db: Database, status: str) -> None:
    room_id = await _room(db, status=status, seated=4)
    host = await _host(db, room_id)
    async with db.session() as s:
        with pytest.raises(LifecycleError) as refused:
            await lifecycle.close(s, room_id=room_id, reason="host_closed", by="not-the-host")
        assert refused.value.code == "not_host"
        await lifecycle.close(s, room_id=room_id, reason="host_closed", by=host)
        await s.commit()
    assert (await _status(db, room_id))[:2] == ("closed", "host_closed")


@pytest.mark.parametrize("final", ["closed", "abandoned"])
async def test_final_statuses_refuse_everything(db: Database, final: str) -> None:
    room_id = await _room(db, status=final, seated=4)
    host = await _host(db, room_id)
    calls = [
        lambda s: lifecycle.start_set(s, room_id=room_id, by=host),
        lambda s: lifecycle.start_set(s, room_id=room_id, by="not-the-host"),
        lambda s: lifecycle.end_set(s, room_id=room_id),
        lambda s: lifecycle.close(s, room_id=room_id, reason="idle"),
        lambda s: lifecycle.abandon(s, room_id=room_id),
        lambda s: lifecycle.hand_over_host(s, room_id=room_id),
    ]
    async with db.session() as s:
        for call in calls:
            with pytest.raises(LifecycleError) as refused:
                await call(s)
            assert refused.value.code == "room_closed"
    assert (await _status(db, room_id))[0] == final


async def test_abandon(db: Database) -> None:
    open_id = await _room(db, status="open", seated=4)
    async with db.session() as s:
        with pytest.raises(LifecycleError) as refused:
            await lifecycle.abandon(s, room_id=open_id)
        assert refused.value.code == "not_playing"
        await rooms.set_status(s, room=(await rooms.get_room(s, room_id=open_id)), status="playing")  # type: ignore[arg-type]
        await lifecycle.abandon(s, room_id=open_id)
        await s.commit()
    assert (await _status(db, open_id))[0] == "abandoned"


async def test_unknown_room(db: Database) -> None:
    async with db.session() as s:
        with pytest.raises(LifecycleError) as refused:
            await lifecycle.start_set(s, room_id="nope", by=None)
        assert refused.value.code == "room_not_found"


async def test_hand_over_host_to_the_earliest_seated_human(db: Database) -> None:
    room_id = await _room(db, seated=1)
    host = await _host(db, room_id)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    async with db.session() as s:
        late = await players.create_player(s, name="Late", token_hash="late")
        early = await players.create_player(s, name="Early", token_hash="early")
        seat_late = await rooms.put_in_seat(s, room_id=room_id, seat=1, player_id=late.id)
        seat_early = await rooms.put_in_seat(s, room_id=room_id, seat=3, player_id=early.id)
        seat_late.sat_at, seat_early.sat_at = start + timedelta(seconds=9), start
        await s.commit()
        assert await lifecycle.hand_over_host(s, room_id=room_id) == early.id
        await s.commit()
    assert await _host(db, room_id) == early.id
    # The current host is never a candidate; a former host still seated is.
    async with db.session() as s:
        assert await lifecycle.hand_over_host(s, room_id=room_id) == late.id
        await s.commit()
    async with db.session() as s:
        assert await lifecycle.hand_over_host(s, room_id=room_id) == early.id
        await rooms.vacate_seat(s, room_id=room_id, seat=1)  # Late stands up
        await s.commit()
    async with db.session() as s:
        assert await lifecycle.hand_over_host(s, room_id=room_id) == host  # sat at creation
        await s.commit()


async def test_hand_over_host_alone_or_nobody(db: Database) -> None:
    alone = await _room(db, seated=1)
    host = await _host(db, alone)
    async with db.session() as s:
        # The host sits alone: nobody to pass to, nothing changes.
        assert await lifecycle.hand_over_host(s, room_id=alone) is None
        await s.commit()
    assert await _status(db, alone) == ("open", None, host)
    async with db.session() as s:
        # The host stood up and nobody sits: the room closes.
        await rooms.vacate_seat(s, room_id=alone, seat=0)
        assert await lifecycle.hand_over_host(s, room_id=alone) is None
        await s.commit()
    assert (await _status(db, alone))[:2] == ("closed", "no_host")


async def test_touch_is_presence_not_status(db: Database) -> None:
    room_id = await _room(db, status="playing", seated=4)
    at = datetime(2026, 12, 1, 10, 0, 0, 123456, tzinfo=UTC)
    async with db.session() as s:
        await lifecycle.touch(s, room_id=room_id, humans_online=2, at=at)
        await s.commit()
    async with db.session() as s:
        room = await rooms.get_room(s, room_id=room_id)
        assert room is not None
        assert (room.humans_online, room.active_at, room.status) == (2, at, "playing")
