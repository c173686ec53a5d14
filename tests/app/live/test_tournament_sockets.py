"""Tournaments over real sockets (uvicorn subprocesses): ``/ws/tournaments/{id}`` as
docs/PROTOCOL.md describes it, entrants who follow ``round_started`` to their tables and play
there, the ``tournament_round`` notification on /ws/me; and on two nodes (PostgreSQL + Redis),
the node running a round's table killed mid-set: the round completes on the other node, the
next round is paired there, and the watchers on it hear everything."""

from __future__ import annotations

import asyncio
import json
import random
import signal
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import websockets

from tests.app.live.client import Lobby, MeClient, TableClient
from tests.app.live.server import ServerProcess
from tests.app.live.test_cluster import Player, check_history, owner_of
from tests.app.live.test_server import set_over

PASSWORD = "kartu-balak-66"
RATES = {
    "GAPLE_RATE_GUESTS": "1000/minute",
    "GAPLE_RATE_TOURNAMENTS": "1000/minute",
    "GAPLE_RATE_TOURNAMENT_ENTRIES": "1000/minute",
}


@dataclass
class Watcher:
    """A tournament's socket: no hello, frames only."""

    url: str
    received: list[dict[str, Any]] = field(default_factory=list)
    _ws: Any = None
    _reader: asyncio.Task[None] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def connect(self) -> None:
        self._ws = await websockets.connect(self.url, max_size=2**22)
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            async for frame in self._ws:
                self.received.append(json.loads(frame))
                self._changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self._changed.set()

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [f for f in self.received if f["type"] == kind]

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 60) -> None:
        async def loop() -> None:
            while not predicate():
                self._changed.clear()
                if self._reader is not None and self._reader.done():
                    raise AssertionError(f"the socket closed; received {self.received[-3:]}")
                await self._changed.wait()

        await asyncio.wait_for(loop(), timeout)

    def started(self, number: int) -> dict[str, Any] | None:
        return next((f for f in self.of_type("round_started") if f["round"] == number), None)


async def tournament_for(lobby: Lobby, players: int, rounds: int) -> tuple[int, str, list[Any]]:
    """A Swiss with ``players`` entrants: (id, the organizer's token, the entrants' guests)."""
    org = await lobby.guest("Org")
    auth = {"Authorization": f"Bearer {org['token']}"}
    saved = await lobby.http.post(
        "/api/accounts", json={"username": "org_sockets", "password": PASSWORD}, headers=auth
    )
    assert saved.status_code == 201, saved.text
    body = {
        "name": "Piala Soket",
        "format": "swiss",
        "mode": "tunggal",
        "rounds": rounds,
        "settings": {"preset": "pordi", "turn_seconds": 60, "target_points": 1},
        "starts_at": "2099-01-01T00:00:00Z",
        "min_entrants": 4,
        "max_entrants": 16,
        "rated": False,
        "public": True,
    }
    made = await lobby.http.post("/api/tournaments", json=body, headers=auth)
    assert made.status_code == 201, made.text
    tid = int(made.json()["id"])
    guests = []
    for n in range(players):
        guest = await lobby.guest(f"Pemain {n}")
        entered = await lobby.http.post(
            f"/api/tournaments/{tid}/entries",
            headers={"Authorization": f"Bearer {guest['token']}"},
        )
        assert entered.status_code == 201, entered.text
        guests.append(guest)
    return tid, org["token"], guests


async def sit_down(
    frame: dict[str, Any], guests: list[dict[str, Any]], urls: list[str]
) -> list[Player]:
    """Every entrant goes to their table, as a round_started frame names it, and connects."""
    by_id = {g["player_id"]: g for g in guests}
    out = []
    for table in frame["tables"]:
        for seat in table["seats"]:
            guest = by_id[seat["player_id"]]
            paths = [f"{u}/ws/rooms/{table['code']}" for u in urls]
            client = TableClient(paths[0], guest["token"], name=f"{table['code']}-{seat['seat']}")
            await client.connect()
            assert client.seat == seat["seat"]
            # The table's room says which tournament and round it plays.
            [welcome] = [m for m in client.received if m["type"] == "welcome"]
            told = welcome["room"]["tournament"]
            assert (told["id"], told["round"]) == (frame["tournament"]["id"], frame["round"])
            assert told["name"] == frame["tournament"]["name"]
            out.append(Player(client, paths, random.Random(seat["seat"])))
    return out


@pytest.fixture
async def server(database_url: str, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    process = ServerProcess(database_url, tmp_path / "server", **RATES)
    await asyncio.to_thread(process.start)
    try:
        yield process
    finally:
        await asyncio.to_thread(process.stop)


async def test_watchers_see_the_rounds_as_entrants_play_them(server: ServerProcess) -> None:
    ws = server.base_url.replace("http", "ws")
    async with Lobby(server.base_url) as lobby:
        tid, org_token, guests = await tournament_for(lobby, 4, 2)
        nobody = Watcher(f"{ws}/ws/tournaments/999999")
        await nobody.connect()
        await nobody.wait_for(lambda: bool(nobody.received) and nobody._reader.done())  # type: ignore[union-attr]
        assert [f["code"] for f in nobody.of_type("error")] == ["tournament_not_found"]
        watcher = Watcher(f"{ws}/ws/tournaments/{tid}")
        await watcher.connect()
        await watcher.wait_for(lambda: bool(watcher.received))
        first = watcher.received[0]
        assert first["type"] == "tournament"
        assert first["tournament"] == (await lobby.http.get(f"/api/tournaments/{tid}")).json()
        me = MeClient(ws, guests[0]["token"])
        await me.connect()
        players: list[Player] = []
        try:
            started = await lobby.http.post(
                f"/api/tournaments/{tid}/start",
                headers={"Authorization": f"Bearer {org_token}"},
            )
            assert started.status_code == 200, started.text
            await watcher.wait_for(lambda: watcher.started(1) is not None)
            one = watcher.started(1)
            assert one is not None
            [table] = one["tables"]
            assert {s["player_id"] for s in table["seats"]} == {g["player_id"] for g in guests}

            def round_notices() -> list[dict[str, Any]]:
                return [n for n in me.of_type("notification") if n["kind"] == "tournament_round"]

            await me.wait_for(lambda: bool(round_notices()))
            [told] = round_notices()
            assert told["payload"]["table"] == table["code"]
            assert told["payload"]["tournament_id"] == tid
            players = await sit_down(one, guests, [ws])
            await asyncio.wait_for(asyncio.gather(*(p.play_set() for p in players)), 120)
            await watcher.wait_for(lambda: watcher.started(2) is not None)
            for player in players:
                await player.client.close()
            players = await sit_down(watcher.started(2) or {}, guests, [ws])
            await asyncio.wait_for(asyncio.gather(*(p.play_set() for p in players)), 120)
            await watcher.wait_for(lambda: bool(watcher.of_type("tournament_finished")))
        finally:
            for player in players:
                await player.client.close()
            await me.close()
        kinds = [f["type"] for f in watcher.received]
        assert kinds == [
            "tournament",
            "round_started",
            "table_finished",
            "standings",
            "round_started",
            "table_finished",
            "tournament_finished",
        ]
        finished = watcher.of_type("table_finished")
        assert [f["round"] for f in finished] == [1, 2]
        assert all(f["result"] is not None and sorted(f["result"]["places"]) for f in finished)
        final = watcher.received[-1]
        body = (await lobby.http.get(f"/api/tournaments/{tid}")).json()
        assert final["tournament"] == body and body["status"] == "finished"
        assert final["standings"] == body["standings"]
        # The node going away sends its watchers to reconnect.
        await asyncio.to_thread(server.stop)
        await watcher.wait_for(lambda: watcher._reader is not None and watcher._reader.done())
        assert watcher.received[-1] == {"type": "bye", "reason": "draining"}
        await watcher.close()


async def test_watchers_see_entries_withdrawals_and_a_cancel(server: ServerProcess) -> None:
    ws = server.base_url.replace("http", "ws")
    async with Lobby(server.base_url) as lobby:
        tid, org_token, guests = await tournament_for(lobby, 1, 2)
        watcher = Watcher(f"{ws}/ws/tournaments/{tid}")
        await watcher.connect()
        await watcher.wait_for(lambda: len(watcher.received) == 1)

        def entrants(frame: dict[str, Any]) -> list[bool]:
            return [e["withdrawn"] for e in frame["tournament"]["entrants"]]

        late = await lobby.guest("Telat")
        entered = await lobby.http.post(
            f"/api/tournaments/{tid}/entries", headers={"Authorization": f"Bearer {late['token']}"}
        )
        assert entered.status_code == 201, entered.text
        await watcher.wait_for(lambda: len(watcher.received) == 2)
        assert entrants(watcher.received[1]) == [False, False]
        gone = await lobby.http.delete(
            f"/api/tournaments/{tid}/entries/me",
            headers={"Authorization": f"Bearer {guests[0]['token']}"},
        )
        assert gone.status_code == 204, gone.text
        await watcher.wait_for(lambda: len(watcher.received) == 3)
        assert entrants(watcher.received[2]) == [False]  # removed before the start
        cancelled = await lobby.http.post(
            f"/api/tournaments/{tid}/cancel", headers={"Authorization": f"Bearer {org_token}"}
        )
        assert cancelled.status_code == 200, cancelled.text
        await watcher.wait_for(lambda: len(watcher.received) == 4)
        last = watcher.received[3]
        assert last["type"] == "tournament" and last["tournament"]["status"] == "cancelled"
        assert last["tournament"] == (await lobby.http.get(f"/api/tournaments/{tid}")).json()
        assert [f["type"] for f in watcher.received] == ["tournament"] * 4
        await watcher.close()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_round_whose_node_dies_completes_on_the_other(
    database_url: str, redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    servers = [
        ServerProcess(
            database_url,
            tmp_path / f"node{i}",
            GAPLE_REDIS_URL=redis_url,
            GAPLE_REDIS_PREFIX=redis_prefix,
            GAPLE_LEASE_TTL_SECONDS="1.5",
            GAPLE_CLUSTER_CHECK_SECONDS="0.3",
            **RATES,
        )
        for i in range(2)
    ]
    for node in servers:
        await asyncio.to_thread(node.start)
    urls = [s.base_url.replace("http", "ws") for s in servers]
    watchers = [Watcher(f"{u}/ws/tournaments/0") for u in urls]
    players: list[Player] = []
    lobby = Lobby(servers[0].base_url)
    try:
        tid, org_token, guests = await tournament_for(lobby, 4, 2)
        for watcher, url in zip(watchers, urls, strict=True):
            watcher.url = f"{url}/ws/tournaments/{tid}"
            await watcher.connect()
        started = await lobby.http.post(
            f"/api/tournaments/{tid}/start", headers={"Authorization": f"Bearer {org_token}"}
        )
        assert started.status_code == 200, started.text
        for watcher in watchers:  # the frame reaches the watchers of both nodes
            await watcher.wait_for(lambda w=watcher: w.started(1) is not None)
        one = watchers[0].started(1)
        assert one is not None and watchers[1].started(1) == one
        code = one["tables"][0]["code"]
        owner_id = await owner_of(redis_url, redis_prefix, code, lobby)
        ids = []
        for node in servers:
            ids.append((await lobby.http.get(f"{node.base_url}/api/health")).json()["node"])
        owner = servers[ids.index(owner_id)]
        survivor_index = 1 - ids.index(owner_id)
        survivor = servers[survivor_index]
        # Everyone plays through the owner's node, which dies a few moves into the set.
        first_urls = [urls[1 - survivor_index], urls[survivor_index]]
        players = await sit_down(one, guests, first_urls)

        async def kill_mid_set() -> None:
            await players[0].client.wait_for(
                lambda: len((players[0].client.view or {}).get("line", [])) >= 4, timeout=60
            )
            owner.kill(signal.SIGKILL)

        await asyncio.wait_for(
            asyncio.gather(kill_mid_set(), *(p.play_set() for p in players)), 180
        )
        assert sum(p.reconnects for p in players) >= 1
        assert all(set_over(p.client) for p in players)
        await check_history(database_url, players)
        watcher = watchers[survivor_index]
        await watcher.wait_for(lambda: watcher.started(2) is not None, timeout=60)
        for player in players:
            await player.client.close()
        players = await sit_down(watcher.started(2) or {}, guests, [urls[survivor_index]])
        await asyncio.wait_for(asyncio.gather(*(p.play_set() for p in players)), 120)
        await watcher.wait_for(lambda: bool(watcher.of_type("tournament_finished")))
        async with Lobby(survivor.base_url) as other:
            body = (await other.http.get(f"/api/tournaments/{tid}")).json()
        assert body["status"] == "finished"
        assert [len(r["tables"]) for r in body["rounds"]] == [1, 1]
        assert all(t["result"] is not None for r in body["rounds"] for t in r["tables"])
        assert [f["round"] for f in watcher.of_type("round_started")] == [1, 2]
        assert watcher.received[-1]["tournament"] == body
    finally:
        for player in players:
            await player.client.close()
        for watcher in watchers:
            await watcher.close()
        await lobby.close()
        for node in servers:
            await asyncio.to_thread(node.stop)
