"""Stored chat on SQLite and PostgreSQL: a rated table keeps what its players and spectators say
(an unrated one keeps nothing), a report shows the lines around it to a moderator, and the sweeper
removes lines older than GAPLE_CHAT_RETENTION_DAYS."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select

from app.players import fairplay
from app.rooms.sweeper import Sweeper
from app.store import chatlog, rooms
from app.store.models import ChatLogLine, Report
from tests.app.live.client import Lobby, TableClient
from tests.app.live.server import ServerProcess

MOD_TOKEN = "moderator-token-0123456789abcdefgh"
MOD = {"Authorization": f"Bearer {MOD_TOKEN}"}
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


async def test_a_report_shows_the_rated_tables_chat_around_it(
    database_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(
        database_url, tmp_path / "server", GAPLE_ADMIN_TOKENS=f"sari:moderator:{MOD_TOKEN}"
    )
    await asyncio.to_thread(server.start)
    lobby = Lobby(server.base_url)
    clients: list[TableClient] = []
    try:
        ayu, budi, citra = [await lobby.guest(n) for n in ("Ayu", "Budi", "Citra")]
        rated = (await lobby.create_room(ayu["token"], rated=True))["code"]
        casual = (await lobby.create_room(budi["token"]))["code"]
        await lobby.sit(ayu["token"], rated, 0)
        await lobby.sit(budi["token"], rated, 1)
        at_rated = [TableClient(server.ws_url(rated), g["token"]) for g in (ayu, budi, citra)]
        at_casual = TableClient(server.ws_url(casual), budi["token"])
        clients = [*at_rated, at_casual]
        for each in clients:
            await each.connect()
        await at_rated[0].send({"type": "chat", "text": "halo Budi"})
        await at_rated[1].send({"type": "chat", "text": "kamu payah"})
        await at_rated[1].send({"type": "phrase", "id": "ayo_cepat"})
        await at_rated[1].send({"type": "react", "emoji": "😡"})  # fleeting: never stored
        await at_rated[2].send({"type": "chat", "text": "dari penonton"})
        await at_casual.send({"type": "chat", "text": "tidak disimpan"})
        await at_rated[2].wait_for(lambda: "dari penonton" in said(at_rated[2]))
        await at_rated[0].wait_for(lambda: len(said(at_rated[0])) == 2)  # not the spectator
        await at_casual.wait_for(lambda: "tidak disimpan" in said(at_casual))
        filed = await lobby.http.post(
            "/api/reports",
            json={"player_id": budi["player_id"], "category": "abuse", "text": "kasar"},
            headers={"Authorization": f"Bearer {ayu['token']}"},
        )
        assert filed.status_code == 201, filed.text
        for _ in range(50):  # a table stores a line just after it has sent it
            shown = await lobby.http.get(f"/api/admin/reports/{filed.json()['id']}", headers=MOD)
            assert shown.status_code == 200, shown.text
            if len(shown.json()["lines"]) == 4:
                break
            await asyncio.sleep(0.1)
        body = shown.json()
        assert body["report"]["player_id"] == budi["player_id"] and body["replay"] is None
        lines = [(x["name"], x["seat"], x["kind"], x["text"]) for x in body["lines"]]
        assert lines == [
            ("Ayu", 0, "chat", "halo Budi"),
            ("Budi", 1, "chat", "kamu payah"),
            ("Budi", 1, "phrase", "ayo_cepat"),
            ("Citra", None, "chat", "dari penonton"),
        ]
        # Only what was said: no tiles, no hands, no tokens.
        assert set(body["lines"][0]) == {
            *("at", "room_id", "set_id", "player_id", "name", "seat", "kind", "text"),
        }
        assert ayu["token"] not in shown.text and budi["token"] not in shown.text
        missing = await lobby.http.get("/api/admin/reports/999999", headers=MOD)
        assert missing.status_code == 404
        assert (await lobby.http.get(f"/api/admin/reports/{filed.json()['id']}")).status_code == 401
    finally:
        for each in clients:
            await each.close()
        await lobby.close()
        await asyncio.to_thread(server.stop)


async def _room_and_players(app: Any, make_guest: Any, api: Any) -> tuple[str, str, str]:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    room = await api.post("/api/rooms", json={"rated": True}, headers=ayu.headers)
    assert room.status_code == 201, room.text
    async with app.state.db.session() as session:
        found = await rooms.get_room_by_code(session, code=room.json()["code"])
        assert found is not None
        return found.id, ayu.player_id, budi.player_id


async def _say(app: Any, room_id: str, player_id: str, text: str, at: datetime) -> None:
    async with app.state.db.session() as session, session.begin():
        await chatlog.add_line(
            session,
            room_id=room_id,
            set_id=None,
            player_id=player_id,
            name="x",
            seat=0,
            kind="chat",
            text=text,
            at=at,
        )


async def test_the_sweeper_removes_chat_past_its_retention(
    app: Any, api: Any, make_guest: Any
) -> None:
    room_id, ayu, _ = await _room_and_players(app, make_guest, api)
    settings = app.state.settings.model_copy(update={"chat_retention_days": 30.0})
    now = T0 + timedelta(days=40)
    await _say(app, room_id, ayu, "lama sekali", now - timedelta(days=30, seconds=1))
    await _say(app, room_id, ayu, "masih baru", now - timedelta(days=29))
    swept = await Sweeper(app.state.db, app.state.live, settings).sweep(now)
    assert swept.chat_removed == 1
    async with app.state.db.session() as session:
        kept = list((await session.execute(select(ChatLogLine.text))).scalars())
    assert kept == ["masih baru"]
    again = await Sweeper(app.state.db, app.state.live, settings).sweep(now)
    assert again.chat_removed == 0


async def test_the_lines_around_a_report_are_bounded(app: Any, api: Any, make_guest: Any) -> None:
    room_id, ayu, budi = await _room_and_players(app, make_guest, api)
    for n in range(30):
        await _say(app, room_id, budi if n % 2 else ayu, f"line {n}", T0 + timedelta(seconds=n))
    report = Report(
        reporter_id=ayu,
        player_id=budi,
        category="abuse",
        text="",
        set_id=None,
        status="open",
        created_at=T0 + timedelta(seconds=24, milliseconds=500),
    )
    async with app.state.db.session() as session:
        shown = await fairplay.chat_around(session, report=report)
        texts = [line.text for line in shown]
        assert texts == [f"line {n}" for n in range(5, 30)]  # 20 before it, 5 after
        # Budi said nothing in the two hours before this one: nothing to show.
        later = Report(
            reporter_id=ayu,
            player_id=budi,
            category="abuse",
            text="",
            set_id=None,
            status="open",
            created_at=T0 + fairplay.CONTEXT_WINDOW + timedelta(minutes=1),
        )
        assert await fairplay.chat_around(session, report=later) == []


def said(client: TableClient) -> list[Any]:
    return [m.get("text") for m in client.received if m["type"] == "chat"]
