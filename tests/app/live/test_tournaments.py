"""Tournaments played live on both databases: the real REST app, the real table manager on a
fake clock, the sweeper and the runner. Nobody connects: each absent entrant's seat is played by
the clock twice, then by a bot, as at any table, and every round runs to its end.

A 16-player Tunggal Swiss of 3 rounds and a 16-pair Ganda knockout (pools, then the bracket) go
to the end with standings equal to the stored results; the start at ``starts_at`` (and the cancel
with too few entrants); a withdrawal mid-tournament; a result sent twice is stored once and
never pairs a round twice; a tournament's table is run by the tournament only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import func, null, select, update

from app.rooms import tournament_play
from app.rooms.clock import FakeClock
from app.rooms.manager import TableManager
from app.rooms.tournament_live import TournamentRunner
from app.settings import Settings
from app.store.models import GameSet, Notification, Room, Tournament, TournamentRound
from app.store.models import TournamentTable as TableRow
from app.tournaments.formats import BYE_POINTS, Bye, Table, TableResult
from app.tournaments.standings import standings
from tests.conftest import Guest

MakeGuest = Callable[..., Awaitable[Guest]]
PASSWORD = "kartu-balak-66"
SET = {"preset": "pordi", "turn_seconds": 15, "target_points": 1}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={
            "rate_guests": "1000/minute",
            "rate_tournaments": "1000/minute",
            "rate_tournament_entries": "1000/minute",
        }
    )


def soon(hours: float = 24) -> str:
    return (datetime.now(UTC) + timedelta(hours=hours)).isoformat()


async def organizer(api: httpx.AsyncClient, make_guest: MakeGuest) -> Guest:
    guest = await make_guest("Org")
    saved = await api.post(
        "/api/accounts",
        json={"username": "org_live", "password": PASSWORD},
        headers=guest.headers,
    )
    assert saved.status_code == 201, saved.text
    return guest


async def create(api: httpx.AsyncClient, org: Guest, **changes: Any) -> int:
    body: dict[str, Any] = {
        "name": "Piala Desa",
        "format": "swiss",
        "mode": "tunggal",
        "rounds": 3,
        "settings": SET,
        "starts_at": soon(),
        "min_entrants": 4,
        "max_entrants": 64,
        "rated": False,
        "public": True,
        **changes,
    }
    made = await api.post("/api/tournaments", json=body, headers=org.headers)
    assert made.status_code == 201, made.text
    return int(made.json()["id"])


async def entrants(
    api: httpx.AsyncClient, make_guest: MakeGuest, tid: int, count: int, *, ganda: bool = False
) -> list[list[Guest]]:
    """``count`` entrants: players, or pairs whose partner confirmed."""
    out = []
    for n in range(count):
        player = await make_guest(f"P{n}")
        if not ganda:
            r = await api.post(f"/api/tournaments/{tid}/entries", headers=player.headers)
            assert r.status_code == 201, r.text
            out.append([player])
            continue
        partner = await make_guest(f"Q{n}")
        r = await api.post(
            f"/api/tournaments/{tid}/entries",
            json={"partner_id": partner.player_id},
            headers=player.headers,
        )
        assert r.status_code == 201, r.text
        entry = r.json()["entrant"]["id"]
        r = await api.post(
            f"/api/tournaments/{tid}/entries/{entry}/confirm", headers=partner.headers
        )
        assert r.status_code == 200, r.text
        out.append([player, partner])
    return out


async def play_out(app: Any, clock: FakeClock, tid: int, *, limit: int = 6000) -> None:
    """Run the clock until the tournament is over: every table's timers, the runner's work."""
    manager: TableManager = app.state.live
    runner: TournamentRunner = app.state.tournaments
    for _ in range(limit):
        clock.advance(1.0)
        for table in list(manager.tables.values()):
            await table.settle()
        await runner.idle()
        async with app.state.db.session() as session:
            status = await session.scalar(select(Tournament.status).where(Tournament.id == tid))
        if status in ("finished", "cancelled"):
            return
    raise AssertionError("the tournament did not end")


def recomputed(body: dict[str, Any]) -> list[tuple[int, Any]]:
    """The standings the documented rules give the stored results and byes."""
    results = [
        TableResult(
            Table(r["number"], t["number"], tuple(t["entrants"])),
            tuple(t["result"]["places"]),
            tuple(t["result"]["deal_points"]),
        )
        for r in body["rounds"]
        for t in r["tables"]
    ]
    byes = [Bye(r["number"], e) for r in body["rounds"] for e in r["byes"]]
    ids = [e["id"] for e in body["entrants"]]
    ranked = standings(body["mode"], ids, results, byes)
    return [(s.entrant, float(s.points)) for s in ranked]


async def test_a_swiss_of_sixteen_players_runs_to_the_end(
    api: httpx.AsyncClient, app: Any, clock: FakeClock, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    tid = await create(api, org)
    players = await entrants(api, make_guest, tid, 16)
    started = await api.post(f"/api/tournaments/{tid}/start", headers=org.headers)
    assert started.status_code == 200, started.text
    first = started.json()["rounds"][0]
    assert first["status"] == "playing" and len(first["tables"]) == 4
    codes = [t["code"] for t in first["tables"]]
    assert all(codes) and len(set(codes)) == 4
    # Each table is an ordinary room, private, playing, every entrant seated, named.
    room = (await api.get(f"/api/rooms/{codes[0]}")).json()
    assert room["status"] == "playing" and room["settings"]["public"] is False
    seats = first["tables"][0]["seats"]
    assert [s["seat"] for s in seats] == [0, 1, 2, 3]
    assert [s["entrant"] for s in seats] == first["tables"][0]["entrants"]
    assert all(s["name"].startswith("P") for s in seats)
    listed = (await api.get("/api/rooms")).json()
    assert not {r["code"] for r in listed.get("rooms", [])} & set(codes)
    # The tournament runs the table: its host can neither close it nor start another set.
    host = next(g for [g] in players if g.player_id == room["host"]["player_id"])
    closing = await api.delete(f"/api/rooms/{codes[0]}", headers=host.headers)
    assert closing.status_code == 409 and closing.json()["error"]["code"] == "tournament_room"
    # Every entrant is told their table.
    async with app.state.db.session() as session:
        told = await session.scalar(
            select(func.count()).where(Notification.kind == "tournament_round")
        )
    assert told == 16

    await play_out(app, clock, tid)
    body = (await api.get(f"/api/tournaments/{tid}")).json()
    assert body["status"] == "finished"
    assert [r["number"] for r in body["rounds"]] == [1, 2, 3]
    assert all(r["status"] == "finished" for r in body["rounds"])
    for r in body["rounds"]:
        assert len(r["tables"]) == 4 and not r["byes"]
        assert sorted(e for t in r["tables"] for e in t["entrants"]) == sorted(
            e["id"] for e in body["entrants"]
        )
        for t in r["tables"]:
            assert t["code"] and t["result"] is not None
            assert sum(t["result"]["points"]) == 6  # 3 + 2 + 1 + 0, shared by tied places
            replay = await api.get(f"/api/sets/{t['set_id']}")  # what the page links
            assert replay.status_code == 200 and replay.json()["room"]["code"] == t["code"]
    shown = [(s["entrant"], float(s["points"])) for s in body["standings"]]
    assert shown == recomputed(body)
    assert sum(p for _, p in shown) == 3 * 4 * 6  # three rounds of four tables
    # Nobody was connected: each seat was played by the clock, then went to a bot that the
    # player may take back; the tables were never abandoned (once over, a table nobody is at
    # is closed, as any room nobody attends).
    for t in body["rounds"][0]["tables"]:
        room = (await api.get(f"/api/rooms/{t['code']}")).json()
        assert room["status"] in ("open", "closed")
        assert [(s["bot"] is not None, s["left_by"]) for s in room["seats"]] == [
            (True, s["player_id"]) for s in t["seats"]
        ]


async def test_a_ganda_knockout_of_sixteen_pairs_runs_to_the_end(
    api: httpx.AsyncClient, app: Any, clock: FakeClock, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    bracket = {**SET, "target_points": 2}
    tid = await create(
        api,
        org,
        format="knockout",
        mode="ganda",
        rounds=None,
        bracket_settings=bracket,
    )
    await entrants(api, make_guest, tid, 16, ganda=True)
    started = await api.post(f"/api/tournaments/{tid}/start", headers=org.headers)
    assert started.status_code == 200, started.text
    first = started.json()["rounds"][0]
    assert len(first["tables"]) == 8
    assert [s["seat"] for s in first["tables"][0]["seats"]] == [0, 1, 2, 3]
    a, b = first["tables"][0]["entrants"]
    assert [s["entrant"] for s in first["tables"][0]["seats"]] == [a, b, a, b]

    await play_out(app, clock, tid)
    body = (await api.get(f"/api/tournaments/{tid}")).json()
    assert body["status"] == "finished"
    # Four pools of four: three rounds of eight tables; then 8 go on: 4 tables, 2, the final.
    assert [len(r["tables"]) for r in body["rounds"]] == [8, 8, 8, 4, 2, 1]
    final = body["rounds"][-1]["tables"][0]
    assert final["result"] is not None
    async with app.state.db.session() as session:
        final_room = await session.scalar(select(Room).where(Room.code == final["code"]))
        assert final_room is not None
        assert final_room.settings["target_points"] == 2  # the bracket's longer set
        assert final_room.tournament_id == tid and final_room.round == 6
        pool_room = await session.scalar(
            select(Room).where(Room.code == body["rounds"][0]["tables"][0]["code"])
        )
        assert pool_room is not None and pool_room.settings["target_points"] == 1
    shown = [(s["entrant"], float(s["points"])) for s in body["standings"]]
    assert shown == recomputed(body)


async def test_it_starts_by_itself_at_its_time_or_is_cancelled(
    api: httpx.AsyncClient, app: Any, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    full = await create(api, org)
    await entrants(api, make_guest, full, 5)
    empty = await create(api, org, min_entrants=8)
    await entrants(api, make_guest, empty, 3)
    later = datetime.now(UTC) + timedelta(days=2)
    # Not due yet: nothing happens.
    assert (await app.state.sweeper.sweep()).tournaments == []
    swept = await app.state.sweeper.sweep(later)
    assert sorted(swept.tournaments) == sorted([full, empty])
    running = (await api.get(f"/api/tournaments/{full}")).json()
    assert running["status"] == "running"
    assert len(running["rounds"][0]["tables"]) == 1 and len(running["rounds"][0]["byes"]) == 1
    assert (await api.get(f"/api/tournaments/{empty}")).json()["status"] == "cancelled"
    # A second sweep (another node's, say) finds nothing left to do.
    assert (await app.state.sweeper.sweep(later)).tournaments == []
    async with app.state.db.session() as session:
        made = await session.scalar(select(func.count()).where(Room.tournament_id == full))
    assert made == 1


async def test_a_withdrawn_entrant_is_paired_no_more(
    api: httpx.AsyncClient, app: Any, clock: FakeClock, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    tid = await create(api, org, rounds=2)
    players = await entrants(api, make_guest, tid, 8)
    started = await api.post(f"/api/tournaments/{tid}/start", headers=org.headers)
    assert started.status_code == 200
    leaver = players[0][0]
    gone = await api.delete(f"/api/tournaments/{tid}/entries/me", headers=leaver.headers)
    assert gone.status_code == 204
    await play_out(app, clock, tid)
    body = (await api.get(f"/api/tournaments/{tid}")).json()
    mine = next(e["id"] for e in body["entrants"] if e["player"]["player_id"] == leaver.player_id)
    first, second = body["rounds"]
    assert any(mine in t["entrants"] for t in first["tables"])  # it played the round it was in
    assert mine not in [e for t in second["tables"] for e in t["entrants"]] + second["byes"]
    assert len(second["byes"]) == 3  # seven left: one table, three byes
    assert any(s["entrant"] == mine for s in body["standings"])  # it keeps what it scored
    assert float(next(s for s in body["standings"] if s["entrant"] == mine)["points"]) <= 3
    assert BYE_POINTS["tunggal"] == 1.5


async def test_a_result_sent_twice_is_stored_once_and_pairs_once(
    api: httpx.AsyncClient, app: Any, clock: FakeClock, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    tid = await create(api, org, rounds=2)
    await entrants(api, make_guest, tid, 4)
    assert (await api.post(f"/api/tournaments/{tid}/start", headers=org.headers)).status_code == 200
    manager: TableManager = app.state.live
    runner: TournamentRunner = app.state.tournaments
    for _ in range(3000):
        clock.advance(1.0)
        for table in list(manager.tables.values()):
            await table.settle()
        await runner.idle()
        async with app.state.db.session() as session:
            rounds = await session.scalar(
                select(func.count()).where(TournamentRound.tournament_id == tid)
            )
        if rounds == 2:
            break
    async with app.state.db.session() as session:
        row = await session.scalar(select(TableRow).where(TableRow.round == 1))
        assert row is not None and row.result is not None
        stored = dict(row.result)
        set_id = await session.scalar(select(GameSet.id).where(GameSet.room_id == row.room_id))
        result = await session.scalar(select(GameSet.result).where(GameSet.id == set_id))
    assert set_id is not None and result is not None
    # The same end of set again (a node restarted, a resend): nothing changes.
    async with app.state.db.engine.begin() as conn:
        assert not await tournament_play.record_set(conn, set_id=set_id, result=result)
    # Its result cleared and sent again: stored once more, the same, and round 2 not paired twice.
    async with app.state.db.session() as session, session.begin():
        await session.execute(update(TableRow).where(TableRow.round == 1).values(result=null()))
    async with app.state.db.engine.begin() as conn:
        assert await tournament_play.record_set(conn, set_id=set_id, result=result)
        assert not await tournament_play.record_set(conn, set_id=set_id, result=result)
    assert await runner.advance(tid) is None
    assert await runner.advance(tid) is None
    async with app.state.db.session() as session:
        row = await session.scalar(select(TableRow).where(TableRow.round == 1))
        assert row is not None and row.result == stored
        assert (
            await session.scalar(select(func.count()).where(TournamentRound.tournament_id == tid))
            == 2
        )
        assert await session.scalar(select(func.count()).where(TableRow.tournament_id == tid)) == 2


async def test_a_pair_withdrawn_from_a_knockout_forfeits_its_pool_rounds_and_the_bracket(
    api: httpx.AsyncClient, app: Any, clock: FakeClock, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    tid = await create(api, org, format="knockout", mode="ganda", rounds=None)
    pairs = await entrants(api, make_guest, tid, 8, ganda=True)
    started = await api.post(f"/api/tournaments/{tid}/start", headers=org.headers)
    assert started.status_code == 200, started.text
    leaver, partner = pairs[0]
    gone = await api.delete(f"/api/tournaments/{tid}/entries/me", headers=partner.headers)
    assert gone.status_code == 204  # the partner withdraws the pair's entry
    await play_out(app, clock, tid)
    body = (await api.get(f"/api/tournaments/{tid}")).json()
    assert body["status"] == "finished"
    mine = next(e["id"] for e in body["entrants"] if e["player"]["player_id"] == leaver.player_id)
    # Two pools of four pairs: three rounds of two tables each; the top two of each go on, but
    # never the pair that withdrew (three pairs: the best seed has a bye), then the final.
    assert len(body["rounds"]) == 5 and [len(r["tables"]) for r in body["rounds"][:3]] == [4] * 3
    bracket = body["rounds"][3]
    going_on = [e for t in bracket["tables"] for e in t["entrants"]] + bracket["byes"]
    assert mine not in going_on
    assert (len(going_on), len(bracket["tables"])) in ((4, 2), (3, 1))
    assert len(body["rounds"][4]["tables"]) == 1
    for r in body["rounds"][1:3]:  # its fixed pool rounds: bots in its seats, placed last
        [table] = [t for t in r["tables"] if mine in t["entrants"]]
        room = (await api.get(f"/api/rooms/{table['code']}")).json()
        index = table["entrants"].index(mine)
        assert [s["bot"] is not None for s in room["seats"]][index::2] == [True, True]
        assert table["result"]["places"][index] == 2
    for r in body["rounds"][3:]:
        assert all(mine not in t["entrants"] for t in r["tables"])
    assert [(s["entrant"], float(s["points"])) for s in body["standings"]] == recomputed(body)


async def test_a_late_entrant_plays_from_the_next_round_and_a_cancel_stops_the_rounds(
    api: httpx.AsyncClient, app: Any, clock: FakeClock, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    tid = await create(api, org, rounds=3)
    await entrants(api, make_guest, tid, 4)
    assert (await api.post(f"/api/tournaments/{tid}/start", headers=org.headers)).status_code == 200
    late = await make_guest("Telat")
    joined = await api.post(f"/api/tournaments/{tid}/entries", headers=late.headers)
    assert joined.status_code == 201, joined.text  # 2 x 1 started < 3 rounds
    entry = joined.json()["entrant"]["id"]
    manager: TableManager = app.state.live
    runner: TournamentRunner = app.state.tournaments

    async def rounds_paired() -> int:
        async with app.state.db.session() as session:
            found = await session.scalar(
                select(func.count()).where(TournamentRound.tournament_id == tid)
            )
        return int(found or 0)

    for _ in range(3000):
        clock.advance(1.0)
        for table in list(manager.tables.values()):
            await table.settle()
        await runner.idle()
        if await rounds_paired() == 2:
            break
    second = (await api.get(f"/api/tournaments/{tid}")).json()["rounds"][1]
    assert entry in [e for t in second["tables"] for e in t["entrants"]] + second["byes"]
    assert len(second["tables"]) == 1 and len(second["byes"]) == 1  # five: one table, a bye
    cancelled = await api.post(f"/api/tournaments/{tid}/cancel", headers=org.headers)
    assert cancelled.status_code == 200
    for _ in range(600):  # round 2's table plays on to its end; no round 3 is paired
        clock.advance(1.0)
        for table in list(manager.tables.values()):
            await table.settle()
        await runner.idle()
    await runner.sweep()
    body = (await api.get(f"/api/tournaments/{tid}")).json()
    assert body["status"] == "cancelled" and len(body["rounds"]) == 2
