"""Reports on SQLite and PostgreSQL: the rules (one open report per reporter and player, not
oneself, a known player and set, the rate limit), the reported player told nothing, and the
moderators' queue: grouped by player, dismissed, actioned by acting on the player."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest

from app.settings import Settings
from app.store.models import GameSet, Room, SetPlayer
from app.store.types import utcnow

MOD_TOKEN = "moderator-token-0123456789abcdefgh"
MOD = {"Authorization": f"Bearer {MOD_TOKEN}"}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    operators = Settings.model_validate({"admin_tokens": f"sari:moderator:{MOD_TOKEN}"})
    return settings.model_copy(
        update={
            "admin_tokens": operators.admin_tokens,
            "rate_reports": "6/minute",
            "rate_guests": "1000/minute",
        }
    )


async def report(api: httpx.AsyncClient, me: Any, player_id: str, **body: Any) -> httpx.Response:
    payload = {"player_id": player_id, "category": "abuse", "text": "rude"} | body
    return await api.post("/api/reports", json=payload, headers=me.headers)


async def queue(api: httpx.AsyncClient, status: str = "open") -> list[dict[str, Any]]:
    response = await api.get("/api/admin/reports", params={"status": status}, headers=MOD)
    assert response.status_code == 200, response.text
    return list(response.json()["players"])


async def test_one_open_report_per_reporter_and_player(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    ayu, budi, citra = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("C")
    first = await report(api, ayu, budi.player_id, category="cheating", text="  peeks  ")
    assert first.status_code == 201, first.text
    assert first.json()["text"] == "peeks" and first.json()["status"] == "open"
    again = await report(api, ayu, budi.player_id, category="spam")
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_reported"
    assert (await report(api, citra, budi.player_id, category="spam")).status_code == 201
    found = await queue(api)
    assert len(found) == 1
    assert found[0]["player_id"] == budi.player_id and found[0]["name"] == "Budi"
    assert found[0]["count"] == 2 and found[0]["categories"] == {"cheating": 1, "spam": 1}
    assert found[0]["latest"]["reporter_id"] == citra.player_id
    # The reported player is told nothing.
    inbox = (await api.get("/api/notifications", headers=budi.headers)).json()
    assert inbox["notifications"] == []
    # Dismissed, Ayu may report Budi again.
    dismissed = await api.post(f"/api/admin/reports/{first.json()['id']}/dismiss", headers=MOD)
    assert dismissed.status_code == 200 and dismissed.json()["status"] == "dismissed"
    assert dismissed.json()["closed_by"] == "sari"
    assert (await report(api, ayu, budi.player_id)).status_code == 201
    missing = await api.post("/api/admin/reports/999999/dismiss", headers=MOD)
    assert missing.status_code == 404


async def test_bad_reports_change_nothing(api: httpx.AsyncClient, make_guest: Any) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    anonymous = await api.post(
        "/api/reports", json={"player_id": budi.player_id, "category": "spam"}
    )
    assert anonymous.status_code == 401
    mine = await report(api, ayu, ayu.player_id)
    assert mine.status_code == 422 and mine.json()["error"]["code"] == "not_yourself"
    nobody = await report(api, ayu, "0" * 32)
    assert nobody.status_code == 404 and nobody.json()["error"]["code"] == "player_not_found"
    no_set = await report(api, ayu, budi.player_id, set_id=987654)
    assert no_set.status_code == 404 and no_set.json()["error"]["field"] == "set_id"
    for body in ({"category": "rude"}, {"text": "x" * 501}):  # the 6/minute budget is spent
        assert (await report(api, ayu, budi.player_id, **body)).status_code == 422
    assert await queue(api) == []


async def test_reports_are_rate_limited(api: httpx.AsyncClient, make_guest: Any) -> None:
    me = await make_guest("Ayu")
    others = [await make_guest(f"P{i}") for i in range(7)]
    answers = [(await report(api, me, other.player_id)).status_code for other in others]
    assert answers[:6] == [201] * 6
    assert answers[6] == 429


async def test_acting_on_a_player_closes_their_open_reports(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    ayu, budi, citra = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("C")
    await report(api, ayu, budi.player_id)
    await report(api, ayu, citra.player_id)
    warned = await api.post(
        f"/api/admin/players/{budi.player_id}/warn", json={"reason": "be kind"}, headers=MOD
    )
    assert warned.status_code == 200 and warned.json()["reports_actioned"] == 1
    assert [p["player_id"] for p in await queue(api)] == [citra.player_id]
    assert [p["player_id"] for p in await queue(api, "actioned")] == [budi.player_id]
    inbox = (await api.get("/api/notifications", headers=budi.headers)).json()
    assert [(n["kind"], n["payload"]) for n in inbox["notifications"]] == [
        ("warning", {"reason": "be kind"})
    ]
    await api.post(f"/api/admin/players/{citra.player_id}/mute", json={}, headers=MOD)
    assert await queue(api) == []


async def test_a_report_from_a_table_names_the_set_played_together(
    api: httpx.AsyncClient, app: Any, make_guest: Any
) -> None:
    ayu, budi, citra = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("C")
    async with app.state.db.session() as session, session.begin():
        room = Room(code="RPTSET", host_id=ayu.player_id, settings={}, status="playing")
        session.add(room)
        await session.flush()
        old = GameSet(room_id=room.id, number=1, rules={}, started_at=utcnow() - timedelta(hours=3))
        new = GameSet(room_id=room.id, number=2, rules={}, started_at=utcnow())
        session.add_all([old, new])
        await session.flush()
        for game_set, players in ((old, (ayu, citra)), (new, (ayu, budi))):
            for seat, who in enumerate(players):
                session.add(
                    SetPlayer(
                        set_id=game_set.id, seat=seat, player_id=who.player_id, mode="tunggal"
                    )
                )
        new_id = new.id
    together = await report(api, ayu, budi.player_id)
    assert together.status_code == 201 and together.json()["set_id"] == new_id
    # Citra played with Ayu only three hours ago: too long ago to name that set.
    apart = await report(api, ayu, citra.player_id)
    assert apart.status_code == 201 and apart.json()["set_id"] is None
