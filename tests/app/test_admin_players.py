"""Finding players and listing bans under /api/admin on SQLite and PostgreSQL: by id, by a part of
the name or username (any case, wildcards taken literally), each with their reports, warnings,
mutes and ban; bans for an admin only; every refusal changes nothing."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.settings import Settings

MOD_TOKEN = "moderator-token-0123456789abcdefgh"
BOSS_TOKEN = "boss-admin-token-0123456789abcdefg"
MOD = {"Authorization": f"Bearer {MOD_TOKEN}"}
BOSS = {"Authorization": f"Bearer {BOSS_TOKEN}"}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    operators = Settings.model_validate(
        {"admin_tokens": f"sari:moderator:{MOD_TOKEN},tono:admin:{BOSS_TOKEN}"}
    ).admin_tokens
    return settings.model_copy(update={"admin_tokens": operators, "rate_guests": "1000/minute"})


async def find(api: httpx.AsyncClient, q: str) -> list[dict[str, Any]]:
    response = await api.get("/api/admin/players", params={"q": q}, headers=MOD)
    assert response.status_code == 200, response.text
    return list(response.json()["players"])


async def test_players_are_found_by_id_name_or_username(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    budi, budiman, ayu = (
        await make_guest("Budi"),
        await make_guest("Budiman"),
        await make_guest("Ayu"),
    )
    await make_guest("50%_off")
    saved = await api.post(
        "/api/accounts",
        json={"username": "sang_ratu", "password": "a long enough password"},
        headers=ayu.headers,
    )
    assert saved.status_code == 201, saved.text
    assert {p["name"] for p in await find(api, "bUdI")} == {"Budi", "Budiman"}
    by_id = await find(api, budi.player_id)
    assert [p["player_id"] for p in by_id] == [budi.player_id] and by_id[0]["username"] is None
    by_username = await find(api, "RATU")
    assert [(p["name"], p["username"]) for p in by_username] == [("Ayu", "sang_ratu")]
    assert [p["name"] for p in await find(api, "%")] == ["50%_off"]  # a literal %
    assert [p["name"] for p in await find(api, "_")] == [
        "50%_off",
        "Ayu",
    ]  # sang_ratu, newest first
    assert await find(api, "nobody") == []
    assert budiman.player_id in {p["player_id"] for p in await find(api, "budi")}
    empty = await api.get("/api/admin/players", params={"q": ""}, headers=MOD)
    assert empty.status_code == 422
    assert (await api.get("/api/admin/players", params={"q": "budi"})).status_code == 401


async def test_a_found_player_shows_reports_warnings_mutes_and_ban(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    ayu, budi, citra = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("Cit")
    for reporter in (ayu, citra):
        filed = await api.post(
            "/api/reports",
            json={"player_id": budi.player_id, "category": "spam"},
            headers=reporter.headers,
        )
        assert filed.status_code == 201, filed.text
    (fresh,) = await find(api, budi.player_id)
    assert fresh["reports"] == {"open": 2} and fresh["warnings"] == 0 and fresh["mutes"] == 0
    assert fresh["banned"] is False and fresh["muted_until"] is None
    target = f"/api/admin/players/{budi.player_id}"
    warned = await api.post(f"{target}/warn", json={"reason": "spam"}, headers=MOD)
    assert warned.status_code == 200
    assert (await api.post(f"{target}/mute", headers=MOD)).status_code == 200
    assert (
        await api.post(f"{target}/ban", json={"reason": "bot"}, headers=BOSS)
    ).status_code == 200
    (seen,) = await find(api, budi.player_id)
    assert seen["reports"] == {"actioned": 2} and seen["warnings"] == 1 and seen["mutes"] == 1
    assert seen["muted_until"] is not None
    assert seen["banned"] is True and seen["banned_reason"] == "bot"


async def test_bans_are_listed_for_an_admin_latest_first(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    ayu, budi, _ = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("Citra")
    for player in (ayu, budi):
        done = await api.post(f"/api/admin/players/{player.player_id}/ban", headers=BOSS)
        assert done.status_code == 200
    listed = await api.get("/api/admin/bans", headers=BOSS)
    assert listed.status_code == 200, listed.text
    assert [p["name"] for p in listed.json()["players"]] == ["Budi", "Ayu"]
    moderator = await api.get("/api/admin/bans", headers=MOD)
    assert moderator.status_code == 403 and moderator.json()["error"]["code"] == "forbidden_role"
    unban = await api.delete(f"/api/admin/players/{budi.player_id}/ban", headers=BOSS)
    assert unban.status_code == 200
    again = (await api.get("/api/admin/bans", headers=BOSS)).json()["players"]
    assert [p["name"] for p in again] == ["Ayu"]
    audit = (await api.get("/api/admin/audit", headers=BOSS)).json()["entries"]
    assert [e["action"] for e in audit][:3] == ["unban", "ban", "ban"]
