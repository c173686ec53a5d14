"""Named operators with roles on SQLite and PostgreSQL: who may call what under /api/admin (401
without a known token, 403 ``forbidden_role`` for a moderator on an admin's route), the single
GAPLE_ADMIN_TOKEN still an admin, the settings refusing bad operator lists, and one audit row
per action, written with the action."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pydantic import SecretStr, ValidationError

from app.settings import Settings
from tests.conftest import TEST_SECRET_KEY

ADMIN_TOKEN = "legacy-admin-token-0123456789abcdef"
MOD_TOKEN = "moderator-token-0123456789abcdefgh"
BOSS_TOKEN = "boss-admin-token-0123456789abcdefg"
LEGACY = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
MOD = {"Authorization": f"Bearer {MOD_TOKEN}"}
BOSS = {"Authorization": f"Bearer {BOSS_TOKEN}"}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    operators = Settings.model_validate(
        {"admin_tokens": f"sari:moderator:{MOD_TOKEN},tono:admin:{BOSS_TOKEN}"}
    ).admin_tokens
    return settings.model_copy(
        update={"admin_token": SecretStr(ADMIN_TOKEN), "admin_tokens": operators}
    )


async def audit(api: httpx.AsyncClient) -> list[dict[str, Any]]:
    response = await api.get("/api/admin/audit", headers=BOSS)
    assert response.status_code == 200, response.text
    return list(response.json()["entries"])


async def test_a_moderator_may_not_do_an_admins_work(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    guest = await make_guest("Ayu")
    target = f"/api/admin/players/{guest.player_id}"
    for method, path in (("POST", f"{target}/ban"), ("DELETE", f"{target}/ban")):
        response = await api.request(method, path, headers=MOD)
        assert response.status_code == 403, response.text
        assert response.json()["error"]["code"] == "forbidden_role"
    assert (await api.delete("/api/admin/rooms/ABC234", headers=MOD)).status_code == 403
    assert (await api.get(f"/api/players/{guest.player_id}")).status_code == 200  # not banned
    assert await audit(api) == []  # nothing was done
    # A moderator's own work: tables, reports, mutes.
    assert (await api.get("/api/admin/tables", headers=MOD)).status_code == 200
    assert (await api.get("/api/admin/reports", headers=MOD)).status_code == 200
    assert (await api.post(f"{target}/mute", json={}, headers=MOD)).status_code == 200
    assert (await api.delete(f"{target}/mute", headers=MOD)).status_code == 200
    # ...and kicks: taking a player off a seat (here a room that does not exist: 404, not 403).
    kick = await api.delete("/api/admin/rooms/ABC234/seats/0", headers=MOD)
    assert kick.status_code == 404, kick.text


async def test_no_or_a_wrong_token_is_401(api: httpx.AsyncClient, make_guest: Any) -> None:
    guest = await make_guest("Ayu")
    for headers in ({}, {"Authorization": f"Bearer {MOD_TOKEN}x"}, guest.headers):
        for path in ("/api/admin/reports", "/api/admin/audit", "/api/admin/tables"):
            response = await api.get(path, headers=headers)
            assert response.status_code == 401, response.text
            assert response.json()["error"]["code"] == "unauthorized"


async def test_the_single_admin_token_is_an_admin_named_admin(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    guest = await make_guest("Ayu")
    response = await api.post(
        f"/api/admin/players/{guest.player_id}/ban", json={"reason": "spam"}, headers=LEGACY
    )
    assert response.status_code == 200, response.text
    response = await api.delete(f"/api/admin/players/{guest.player_id}/ban", headers=BOSS)
    assert response.status_code == 200
    entries = await audit(api)
    assert [(e["operator"], e["action"], e["reason"]) for e in entries] == [
        ("tono", "unban", None),
        ("admin", "ban", "spam"),
    ]
    assert entries[1]["target"] == f"player {guest.player_id}"
    assert entries[1]["client"] and entries[1]["at"]


async def test_every_action_writes_one_audit_row_and_a_refusal_none(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    guest = await make_guest("Ayu")
    target = f"/api/admin/players/{guest.player_id}"
    calls = [
        ("POST", f"{target}/warn", {"reason": "be kind"}, "warn"),
        ("POST", f"{target}/mute", {"reason": "abuse"}, "mute"),
        ("DELETE", f"{target}/mute", None, "unmute"),
        ("POST", f"{target}/ban", {}, "ban"),
        ("DELETE", f"{target}/ban", None, "unban"),
    ]
    for method, path, body, _ in calls:
        response = await api.request(method, path, json=body, headers=BOSS)
        assert response.status_code == 200, (path, response.text)
    nobody = await api.post(f"/api/admin/players/{'0' * 32}/mute", json={}, headers=BOSS)
    assert nobody.status_code == 404
    bad = await api.post(f"{target}/warn", json={"reason": ""}, headers=BOSS)
    assert bad.status_code == 422
    entries = await audit(api)
    assert [e["action"] for e in entries] == [c[3] for c in reversed(calls)]
    assert all(e["operator"] == "tono" for e in entries)


async def test_the_audit_log_pages_with_a_cursor(api: httpx.AsyncClient, make_guest: Any) -> None:
    guest = await make_guest("Ayu")
    for _ in range(5):
        await api.post(f"/api/admin/players/{guest.player_id}/mute", json={}, headers=MOD)
    seen: list[int] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 2} | ({"cursor": cursor} if cursor else {})
        page = (await api.get("/api/admin/audit", params=params, headers=MOD)).json()
        seen += [e["id"] for e in page["entries"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == 5 and seen == sorted(seen, reverse=True)
    bad = await api.get("/api/admin/audit", params={"cursor": "nope"}, headers=MOD)
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "cursor"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("sari:moderator", "name:role:token"),
        ("sari:boss:" + "x" * 40, "role must be one of"),
        (":admin:" + "x" * 40, "name has 1 to 40"),
        (f"a:admin:{'x' * 40},a:moderator:{'y' * 40}", "name of their own"),
        (f"a:admin:{'x' * 40},b:moderator:{'x' * 40}", "token of their own"),
    ],
)
def test_bad_operator_lists_are_refused_without_the_token(value: str, problem: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(secret_key=SecretStr(TEST_SECRET_KEY), admin_tokens=value)  # type: ignore[arg-type]
    assert problem in str(caught.value)
    assert "x" * 40 not in str(caught.value)


def test_production_wants_long_operator_tokens() -> None:
    with pytest.raises(ValidationError, match="GAPLE_ADMIN_TOKENS \\(sari\\)"):
        Settings(
            secret_key=SecretStr(TEST_SECRET_KEY),
            production=True,
            admin_tokens="sari:moderator:short",  # type: ignore[arg-type]
        )
