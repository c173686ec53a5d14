"""The fair-play screening (docs/FAIRPLAY.md): its tests against known values, a ladder with a
planted feeder and a planted booster among honest players (each flagged, no honest pair), and
``gaple fairplay`` reading the same ladder back from SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.cli import main
from app.players import screening
from app.settings import Settings, get_settings
from app.store.db import Database
from app.store.models import GameSet, Player, RatingChange, Room, SetPlayer
from app.store.types import utcnow
from bench.fairplay import ALT_A, ALT_B, BOOSTED, BOOSTER, FED, FEEDER, Ladder, simulate
from tests.app.live.client import Lobby, TableClient
from tests.app.live.server import ServerProcess
from tests.app.players.conftest import AT
from tests.conftest import TEST_SECRET_KEY

LADDER = Ladder(players=40, sets=400, together=0.08)
SEED = 27
PLANTED = {frozenset((FED, FEEDER)), frozenset((BOOSTED, BOOSTER))}


def test_the_tests_match_known_values() -> None:
    # Fisher's lady tasting tea: 3 of 4 cups right, one-sided p = 17/70.
    assert screening.fisher_greater(3, 1, 1, 3) == pytest.approx(17 / 70)
    assert screening.fisher_greater(4, 0, 0, 4) == pytest.approx(1 / 70)
    assert screening.fisher_greater(0, 4, 4, 0) == pytest.approx(1.0)
    assert screening.binomial_upper(3, 3, 0.5) == pytest.approx(0.125)
    assert screening.binomial_upper(0, 10, 0.3) == 1.0
    assert screening.binomial_upper(2, 4, 0.5) == pytest.approx(11 / 16)


def test_a_planted_feeder_and_booster_are_flagged_and_no_honest_pair() -> None:
    found = screening.screen(simulate(LADDER, random.Random(SEED)))
    flagged = {frozenset((f.player_id, f.partner_id)) for f in found.flags}
    assert flagged == PLANTED
    fed = next(f for f in found.flags if f.player_id == FED)
    # The feeder's help shows as the fed player's lift, or as the feeder's own last places.
    assert fed.partner_id == FEEDER and fed.p_shared < found.threshold
    assert min(fed.p_lift, fed.p_throw) < found.threshold
    assert fed.shared > 3 * fed.expected_shared and fed.set_ids
    boost = next(f for f in found.flags if frozenset((f.player_id, f.partner_id)) == PLANTED_BOOST)
    assert boost.player_id == BOOSTED  # the one who gains is named first
    assert boost.b_last_with == boost.shared  # the booster threw every shared set
    assert found.threshold == pytest.approx(screening.ALPHA / found.pairs_tested)
    # The two accounts from one address, and nobody else, are listed with their sets.
    [household] = found.shared_address
    assert {household.player_id, household.partner_id} == {ALT_A, ALT_B}
    assert household.sets == len(household.set_ids) > 0


def test_one_address_is_listed_only_for_seats_marked_alike() -> None:
    def seat(player: str, seat: int, mark: str | None) -> screening.SeatResult:
        return screening.SeatResult(player, seat, seat + 1, seat == 0, client_mark=mark)

    sets = [
        screening.RatedSet(1, (seat("a", 0, "x"), seat("b", 1, "x"), seat("c", 2, "y"))),
        screening.RatedSet(2, (seat("a", 0, None), seat("b", 1, None), seat("c", 2, "y"))),
        screening.RatedSet(3, (seat("a", 0, "x"), seat("c", 1, "z"), seat("b", 2, "x"))),
    ]
    [pair] = screening.screen(sets).shared_address
    assert (pair.player_id, pair.partner_id, pair.sets, pair.set_ids) == ("a", "b", 2, [1, 3])


PLANTED_BOOST = frozenset((BOOSTED, BOOSTER))


def test_an_honest_ladder_flags_nobody() -> None:
    honest = Ladder(players=40, sets=400, together=0.0, help=0.0)
    for seed in range(5):
        assert screening.screen(simulate(honest, random.Random(seed))).flags == []


@pytest.fixture
def cli_env(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in list(os.environ):
        if name.startswith("GAPLE_") and not name.startswith("GAPLE_TEST_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("GAPLE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GAPLE_DATABASE_URL", database_url)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


async def _store(db: Database, sets: list[screening.RatedSet]) -> dict[str, str]:
    """The simulated sets as rated Tunggal sets in the database; the players' ids by name."""
    names = sorted({s.player_id for rated in sets for s in rated.seats})
    async with db.session() as session, session.begin():
        players = [Player(name=n, token_hash=f"{i:064d}") for i, n in enumerate(names)]
        session.add_all(players)
        await session.flush()
        ids = {p.name: p.id for p in players}
        room = Room(code="FAIRPL", host_id=players[0].id, settings={"rated": True}, status="open")
        session.add(room)
        await session.flush()
        ended = utcnow() - timedelta(days=1)
        for rated in sets:
            row = GameSet(room_id=room.id, number=rated.set_id, rules={}, ended_at=ended)
            session.add(row)
            await session.flush()
            for seat in rated.seats:
                pid = ids[seat.player_id]
                session.add(
                    SetPlayer(
                        set_id=row.id,
                        seat=seat.team,
                        player_id=pid,
                        mode="tunggal",
                        rated=True,
                        won=seat.won,
                        rank=seat.rank,
                        client_mark=seat.client_mark,
                    )
                )
                session.add(
                    RatingChange(
                        set_id=row.id,
                        player_id=pid,
                        mode="tunggal",
                        rank=seat.rank,
                        mu_before=25.0,
                        sigma_before=8.0,
                        mu_after=25.0 + seat.gain,
                        sigma_after=7.9,
                        at=AT,
                    )
                )
        # A set that ended long ago is left out of a screening of the last 90 days.
        old = GameSet(room_id=room.id, number=10_000, rules={}, ended_at=utcnow() - timedelta(400))
        session.add(old)
    return ids


async def test_gaple_fairplay_screens_the_stored_sets(
    db: Database, cli_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    sets = simulate(LADDER, random.Random(SEED))
    ids = await _store(db, sets)  # the command runs its own event loop: in a thread here
    assert await asyncio.to_thread(main, ["fairplay", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["sets"] == LADDER.sets and printed["players"] == LADDER.players
    flagged = {frozenset((f["player_id"], f["partner_id"])) for f in printed["flags"]}
    assert flagged == {frozenset(ids[n] for n in pair) for pair in PLANTED}
    # The same numbers as screening the sets in memory: the stored results were read faithfully.
    direct = screening.screen(sets)
    assert printed["pairs_tested"] == direct.pairs_tested
    assert sorted(f["p_lift"] for f in printed["flags"]) == pytest.approx(
        sorted(f.p_lift for f in direct.flags)
    )
    assert await asyncio.to_thread(main, ["fairplay"]) == 0
    text = capsys.readouterr().out
    assert "2 flagged" in text and f"{ids[FED]} gained from {ids[FEEDER]}" in text
    assert "shared address:" in text
    households = printed["shared_address"]
    assert [{h["player_id"], h["partner_id"]} for h in households] == [{ids[ALT_A], ids[ALT_B]}]
    assert await asyncio.to_thread(main, ["fairplay", "--mode", "ganda"]) == 0
    assert "0 rated ganda sets" in capsys.readouterr().out


MOD_TOKEN = "moderator-token-0123456789abcdefgh"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    operators = Settings.model_validate({"admin_tokens": f"sari:moderator:{MOD_TOKEN}"})
    return settings.model_copy(update={"admin_tokens": operators.admin_tokens})


async def test_operators_screen_on_demand(app: Any, api: httpx.AsyncClient) -> None:
    sets = simulate(LADDER, random.Random(SEED))
    ids = await _store(app.state.db, sets)
    mod = {"Authorization": f"Bearer {MOD_TOKEN}"}
    answer = await api.get("/api/admin/fairplay", params={"days": 30}, headers=mod)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["sets"] == LADDER.sets
    flagged = {frozenset((f["player_id"], f["partner_id"])) for f in body["flags"]}
    assert flagged == {frozenset(ids[n] for n in pair) for pair in PLANTED}
    assert all(f["set_ids"] and f["p_shared"] < body["threshold"] for f in body["flags"])
    assert (await api.get("/api/admin/fairplay")).status_code == 401
    bad = await api.get("/api/admin/fairplay", params={"mode": "solo"}, headers=mod)
    assert bad.status_code == 422


async def test_a_rated_set_keeps_its_seats_address_marks(database_url: str, tmp_path: Path) -> None:
    """Four players at one rated table, all from this machine's address: the set's line-up keeps
    one and the same mark for each (a keyed hash, not the address)."""
    server = ServerProcess(database_url, tmp_path / "server")
    await asyncio.to_thread(server.start)
    lobby = Lobby(server.base_url)
    clients: list[TableClient] = []
    try:
        guests = [await lobby.guest(n) for n in ("Ayu", "Budi", "Citra", "Dewi")]
        code = (await lobby.create_room(guests[0]["token"], rated=True))["code"]
        for seat, guest in enumerate(guests):
            await lobby.sit(guest["token"], code, seat)
        clients = [TableClient(server.ws_url(code), g["token"]) for g in guests]
        for each in clients:
            await each.connect()
        await lobby.start(guests[0]["token"], code)
        await clients[0].wait_for(lambda: (clients[0].view or {}).get("phase") == "playing")
    finally:
        for each in clients:
            await each.close()
        await lobby.close()
        await asyncio.to_thread(server.stop)
    db = Database(database_url, secret_key=TEST_SECRET_KEY)
    try:
        async with db.session() as session:
            rows = (await session.execute(select(SetPlayer))).scalars().all()
    finally:
        await db.dispose()
    assert len(rows) == 4 and all(r.rated for r in rows)
    marks = {r.client_mark for r in rows}
    assert len(marks) == 1
    (mark,) = marks
    assert mark is not None and len(mark) == 16 and int(mark, 16) >= 0  # hex, not an address
