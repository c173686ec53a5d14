"""/ws/me across two real nodes on PostgreSQL and Redis: a notification made on one node reaches
the socket on the other, presence crosses nodes, a second socket on another node replaces the
first, and a node that dies takes its players offline within the entries' expiry."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.app.live.client import Lobby, MeClient, TableClient
from tests.app.live.test_cluster import NodeSet, nodes

__all__ = ["nodes"]  # the fixture, used by name

pytestmark = pytest.mark.parametrize("database_url", ["postgres"], indirect=True)


def auth(guest: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {guest['token']}"}


async def test_notifications_and_presence_cross_nodes(nodes: NodeSet) -> None:
    servers = await asyncio.to_thread(nodes, 2)
    urls = [s.base_url.replace("http", "ws") for s in servers]
    async with Lobby(servers[0].base_url) as on_a, Lobby(servers[1].base_url) as on_b:
        ayu, budi = await on_a.guest("Ayu"), await on_b.guest("Budi")
        budis = MeClient(urls[1], budi["token"])
        await budis.connect()
        r = await on_a.http.post(f"/api/friends/{budi['player_id']}", headers=auth(ayu))
        assert r.status_code == 200, r.text
        await budis.wait_for(lambda: bool(budis.of_type("notification")))
        [note] = budis.of_type("notification")
        assert note["kind"] == "friend_request" and note["payload"]["player_id"] == ayu["player_id"]

        # Budi accepts on node B; Ayu, on node A, hears of it and sees Budi online.
        ayus = MeClient(urls[0], ayu["token"])
        await ayus.connect()
        await on_b.http.post(f"/api/friends/{ayu['player_id']}", headers=auth(budi))
        await ayus.wait_for(lambda: bool(ayus.of_type("notification")))
        assert ayus.of_type("notification")[0]["kind"] == "friend_accepted"
        await ayus.wait_for(lambda: ayus.shown(budi["player_id"]) == (True, None))
        await budis.wait_for(lambda: budis.shown(ayu["player_id"]) == (True, None))

        # Budi sits at a table through node A (whichever node runs it): Ayu sees the code.
        room = await on_a.create_room(budi["token"])
        await on_a.sit(budi["token"], room["code"], 0)
        table = TableClient(f"{urls[0]}/ws/rooms/{room['code']}", budi["token"])
        await table.connect()
        await ayus.wait_for(lambda: ayus.shown(budi["player_id"]) == (True, room["code"]))
        r = await on_b.http.get("/api/friends", headers=auth(ayu))
        assert [(f["online"], f["table"]) for f in r.json()["friends"]] == [(True, room["code"])]
        await table.close()
        await ayus.wait_for(lambda: ayus.shown(budi["player_id"]) == (True, None))

        # A second /ws/me of Budi's on node A replaces the one on node B.
        again = MeClient(urls[0], budi["token"])
        await again.connect()
        await budis.wait_closed()
        assert budis.of_type("bye") == [{"type": "bye", "reason": "replaced"}]
        assert budis.closed_with == 4001
        await again.close()
        await ayus.wait_for(lambda: ayus.shown(budi["player_id"]) == (False, None))
        await ayus.close()


async def test_a_dead_nodes_players_go_offline(nodes: NodeSet) -> None:
    servers = await asyncio.to_thread(nodes, 2)
    urls = [s.base_url.replace("http", "ws") for s in servers]
    async with Lobby(servers[0].base_url) as lobby:
        ayu, budi = await lobby.guest("Ayu"), await lobby.guest("Budi")
        for asker, other in ((ayu, budi), (budi, ayu)):
            await lobby.http.post(f"/api/friends/{other['player_id']}", headers=auth(asker))
        ayus, budis = MeClient(urls[0], ayu["token"]), MeClient(urls[1], budi["token"])
        await ayus.connect()
        await budis.connect()
        await ayus.wait_for(lambda: ayus.shown(budi["player_id"]) == (True, None))
        servers[1].kill()  # SIGKILL: node B tells nobody
        # Entries live 1.5 s past their last renewal; node A checks every 0.3 s.
        await ayus.wait_for(lambda: ayus.shown(budi["player_id"]) == (False, None), timeout=20)
        r = await lobby.http.get("/api/friends", headers=auth(ayu))
        assert [f["online"] for f in r.json()["friends"]] == [False]
        await ayus.close()
        await budis.close()
