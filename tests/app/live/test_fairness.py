"""Provably fair deals through the real server (a uvicorn subprocess), with clients written from
docs/PROTOCOL.md: every deal of whole PORDI and Klasik sets is committed to when it opens and its
secret revealed when it ends, and docs/FAIRNESS.md's shuffle of that secret deals exactly the
tiles the table played with. No secret appears in any frame before its deal's end, nor in the
server's log; and a restarted table deals on from the stored secret."""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections import defaultdict
from typing import Any

import pytest
from sqlalchemy import select

import engine
from app.rooms.clock import FakeClock
from app.rooms.protocol import Play
from app.store.models import Deal, GameSet
from engine import fairness
from tests.app.live.client import TableClient
from tests.app.live.conftest import LiveTable, Probe, restarted, to_move
from tests.app.live.leaks import assert_log_keeps_secrets, assert_no_leaks
from tests.app.live.server import ServerProcess
from tests.app.live.test_server import autoplay, seated_table, set_over, stored


def events_of(client: TableClient) -> list[dict[str, Any]]:
    return [m["event"] for m in client.received if m["type"] == "event"]


def by_deal(client: TableClient) -> dict[int, list[dict[str, Any]]]:
    deals: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for event in events_of(client):
        if "deal_number" in event:
            deals[event["deal_number"]].append(event)
    return deals


def check_deal(rules: engine.RuleSet, events: list[dict[str, Any]], seat: int) -> str:
    """The deal's reveal against its commitment, and the secret's shuffle against the tiles.

    Returns the secret."""
    started = next(e for e in events if e["kind"] == "deal_started")
    ended = next(e for e in events if e["kind"] == "deal_ended")
    secret = ended["secret"]
    assert started["shuffle"] == fairness.SHUFFLE_VERSION
    assert hashlib.sha256(secret.encode("ascii")).hexdigest() == started["commitment"]
    dealt = fairness.deal(secret, rules)
    assert started["dealing"] == fairness.dealing(rules, dealt.k)
    assert sum(e["kind"] == "redeal" for e in events) == dealt.k
    assert sorted(started["hand"]) == [str(t) for t in dealt.hands[seat]]
    assert started["start"] == (
        None if dealt.start is None else f"{dealt.start.low}-{dealt.start.high}"
    )
    # Each hand as dealt = what it held at the end + what it played + what it discarded.
    played: dict[int, list[str]] = defaultdict(list)
    for e in events:
        if e["kind"] == "played":
            played[e["seat"]].append(e["tile"])
    for s, hand in enumerate(dealt.hands):
        held = ended["hands"][s] + played[s] + ended["discards"][s]
        assert sorted(held) == [str(t) for t in hand], (s, secret)
    assert sorted(ended["set_aside"]) == sorted(str(t) for t in dealt.set_aside)
    return str(secret)


@pytest.mark.parametrize(
    "settings",
    [
        {"preset": "pordi", "mode": "tunggal", "deals_per_set": 3},
        {"preset": "klasik", "players": 4, "target_points": 15},
    ],
)
async def test_every_deal_of_a_set_is_committed_revealed_and_dealt_by_its_secret(
    server: ServerProcess, database_url: str, settings: dict[str, Any]
) -> None:
    lobby, code, clients, _host = await seated_table(server, turn_seconds=60, **settings)
    spectator = TableClient(server.ws_url(code), None, name="watcher")
    await spectator.connect()
    try:
        await lobby.start(clients[0].token or "", code)
        await asyncio.wait_for(
            asyncio.gather(*(autoplay(c, random.Random(c.seat)) for c in clients)), timeout=240
        )
        await spectator.wait_for(lambda: set_over(spectator))
        [(rules_dict,)] = await stored(database_url, select(GameSet.rules))
        rules = engine.RuleSet.from_dict(rules_dict)
        rows = await stored(database_url, select(Deal.number, Deal.shuffle, Deal.secret))
        assert rows and all(shuffle == "fair" for _, shuffle, _ in rows)
        stored_secrets = {number: secret for number, _, secret in rows}
        for client in clients:
            deals = by_deal(client)
            assert set(deals) == set(stored_secrets)
            for number, events in deals.items():
                assert check_deal(rules, events, client.seat or 0) == stored_secrets[number]
        seen = {
            e["deal_number"]: e["secret"] for e in events_of(spectator) if e["kind"] == "deal_ended"
        }
        assert seen == stored_secrets
        for client in [*clients, spectator]:
            assert assert_no_leaks(client.received, client.seat, stored_secrets.values()) >= 1
        assert_log_keeps_secrets(server.log(), stored_secrets.values())
    finally:
        for client in [*clients, spectator]:
            await client.close()
        await lobby.close()


async def test_a_restarted_table_deals_on_from_the_stored_secret(
    live_table: Any, app: Any, clock: FakeClock
) -> None:
    """A deal in play survives a restart with the same tiles, commitment and secret: the secret
    was stored before its first move, and the rebuilt table re-deals from it."""
    live: LiveTable = await live_table(preset="klasik", players=4, seats=4)
    for turn in range(6):
        probe = to_move(live)
        option = probe.view["legal"][0]
        play = Play(type="play", move_id=f"r{turn}", tile=option["tile"], end=option["end"])
        await live.table.request(probe.conn, play)
        await live.settle()
    assert live.table.state.phase == "playing"
    facts = live.table.state.facts
    assert facts is not None and facts.secret is not None
    commitment = live.probes[0].view["commitment"]
    assert commitment == hashlib.sha256(facts.secret.encode("ascii")).hexdigest()
    hands = [probe.view["hand"] for probe in live.probes]

    async with restarted(app, clock, live.table.room.id) as rebuilt:
        assert rebuilt.state == live.table.state
        back = [Probe() for _ in range(4)]
        for seat, probe in enumerate(back):
            probe.conn.player_id = live.guests[seat].player_id
            await rebuilt.join(probe.conn, None)
        await rebuilt.settle()
        for probe in back:
            await probe.drain()
        assert [probe.view["hand"] for probe in back] == hands
        assert {probe.view["commitment"] for probe in back} == {commitment}
        assert all(probe.view["secret"] is None for probe in back)
        for turn in range(40):  # play the deal out on the rebuilt table
            if rebuilt.state.phase != "playing":
                break
            probe = back[rebuilt.state.turn]
            option = probe.view["legal"][0]
            play = Play(type="play", move_id=f"b{turn}", tile=option["tile"], end=option["end"])
            await rebuilt.request(probe.conn, play)
            await rebuilt.settle()
            for p in back:
                await p.drain()
        ended = [e for e in events_of_probe(back[0]) if e["kind"] == "deal_ended"]
        assert ended and ended[0]["secret"] == facts.secret
        for seat, probe in enumerate(back):
            assert assert_no_leaks(probe.frames, seat, [facts.secret]) == 0


def events_of_probe(probe: Probe) -> list[dict[str, Any]]:
    return [f["event"] for f in probe.of_type("event")]
