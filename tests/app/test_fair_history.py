"""Fair deals on the record (SQLite and PostgreSQL): a deal in play never shows its secret, a
finished one shows the commitment its players were shown and the secret that deals its hands,
and deals dealt from a seed before docs/FAIRNESS.md still replay exactly."""

from __future__ import annotations

import hashlib
import json
import random
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

import engine
from app.rooms.clock import FakeClock
from app.store.models import Deal, GameSet, Move, Room
from engine import fairness
from engine.match import deal_tiles
from engine.tiles import names
from tests.app.live import conftest as live
from tests.app.live.conftest import LiveTable
from tests.app.test_history import play_moves, play_set, seen_by

clock = live.clock
live_factory = live.live_factory
live_table = live.live_table
AT = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


async def stored_deals(app: Any) -> list[Deal]:
    async with app.state.db.session() as session:
        return list(await session.scalars(select(Deal).order_by(Deal.set_id, Deal.number)))


async def test_a_fair_deal_in_play_shows_no_secret_and_a_finished_one_proves_itself(
    live_table: Any, api: Any, app: Any, clock: FakeClock
) -> None:
    table: LiveTable = await live_table(preset="klasik", players=5, seats=5, deals_per_set=2)
    await play_moves(table, clock, 3)
    [deal] = await stored_deals(app)
    assert deal.shuffle == "fair" and deal.seed is None
    assert deal.secret is not None and fairness.check_hex(deal.secret)
    body = (await api.get(f"/api/sets/{table.table.core.set_id}")).json()
    assert body["deals"][0]["status"] == "in_play" and body["deals"][0]["fairness"] is None
    assert deal.secret not in json.dumps(body)

    await play_set(table, clock)
    body = (await api.get(f"/api/sets/{table.table.core.set_id}")).json()
    rules = engine.RuleSet.from_dict(body["rules"])
    started = seen_by(table, 0, "deal_started")
    ended = seen_by(table, 0, "deal_ended")
    rows = await stored_deals(app)
    assert len(body["deals"]) == len(started) == len(ended) == len(rows)
    for shown, opening, closing, row in zip(body["deals"], started, ended, rows, strict=True):
        secret = shown["fairness"]["secret"]
        assert shown["fairness"] == {
            "shuffle": "fair",
            "version": fairness.SHUFFLE_VERSION,
            "seed": None,
            "commitment": opening["commitment"],
            "dealing": opening["dealing"],
            "secret": row.secret,
        }
        assert hashlib.sha256(secret.encode()).hexdigest() == opening["commitment"]
        assert closing["secret"] == secret
        dealt = fairness.deal(secret, rules)
        assert shown["hands"] == [[str(t) for t in hand] for hand in dealt.hands]
        assert shown["redeals"] == dealt.k
        assert shown["fairness"]["dealing"] == fairness.dealing(rules, dealt.k)
        assert "secret" not in shown["result"]


async def test_deals_dealt_from_a_seed_still_replay(
    live_table: Any, api: Any, app: Any, clock: FakeClock
) -> None:
    """A set stored before fair deals (``shuffle = 'seed'``) replays from its seeds exactly."""
    table: LiveTable = await live_table(deals_per_set=2)
    await play_set(table, clock)
    room_id = table.table.room.id
    rules = engine.pordi("tunggal")
    seeds = [20251, 20252]
    state = engine.new_match(rules)
    rng = random.Random(5)
    async with app.state.db.session() as session, session.begin():
        room = await session.get(Room, room_id)
        assert room is not None
        game_set = GameSet(room_id=room_id, number=9, rules=rules.to_dict(), started_at=AT)
        session.add(game_set)
        await session.flush()
        for number, seed in enumerate(seeds, start=1):
            state, events = engine.start_deal(state, seed)
            deal = Deal(
                set_id=game_set.id,
                number=number,
                seed=seed,
                opener=state.facts.opener,
                started_at=AT,
            )
            session.add(deal)
            await session.flush()
            seq = 0
            while state.phase == "playing":
                move = engine.random_legal_move(state, rng)
                state, more = engine.play(state, state.turn, move)
                seq += 1
                session.add(
                    Move(
                        deal_id=deal.id,
                        seq=seq,
                        seat=more[0].data["seat"],
                        tile=str(move.tile),
                        end=move.end,
                        created_at=AT,
                    )
                )
                events += more
            deal.ended_at = AT
            deal.result = next(e for e in events if e.kind == "deal_ended").to_dict()
        set_id = game_set.id
    body = (await api.get(f"/api/sets/{set_id}")).json()
    assert [d["status"] for d in body["deals"]] == ["finished", "finished"]
    for shown, seed in zip(body["deals"], seeds, strict=True):
        assert shown["fairness"] == {
            "shuffle": "seed",
            "version": None,
            "seed": seed,
            "commitment": None,
            "dealing": None,
            "secret": None,
        }
        dealt = deal_tiles(rules, seed)
        assert shown["hands"] == [names(h) for h in dealt.hands]
        assert shown["redeals"] == dealt.redeals
