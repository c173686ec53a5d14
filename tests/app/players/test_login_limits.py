"""Logins are rate-limited per client address and per username (app/api/ratelimit.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from app.main import create_app
from app.settings import Settings

PASSWORD = "kartu-balak-66"


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[Any]:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


def client(app: Any, address: str) -> httpx.AsyncClient:
    """A client whose requests arrive from ``address`` (documentation addresses, RFC 5737)."""
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


async def account(http: httpx.AsyncClient, username: str) -> str:
    guest = (await http.post("/api/guests", json={"name": username})).json()
    saved = await http.post(
        "/api/accounts",
        json={"username": username, "password": PASSWORD},
        headers={"Authorization": f"Bearer {guest['token']}"},
    )
    assert saved.status_code == 201, saved.text
    return str(guest["player_id"])


async def log_in(http: httpx.AsyncClient, username: str, password: str) -> httpx.Response:
    return await http.post("/api/sessions", json={"username": username, "password": password})


def assert_limited(response: httpx.Response) -> None:
    assert response.status_code == 429, response.text
    assert response.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(response.headers["Retry-After"]) <= 60
    assert "token" not in response.json()


async def test_logins_per_address(settings: Settings) -> None:
    limits = {"rate_login": "3/minute", "rate_login_user": "50/minute"}
    async with (
        running(settings.model_copy(update=limits)) as app,
        client(app, "192.0.2.99") as setup,
        client(app, "192.0.2.10") as me,
        client(app, "192.0.2.20") as other,
    ):
        await account(setup, "ayu")
        await account(setup, "budi")
        assert (await log_in(me, "ayu", "wrong-password")).status_code == 401
        assert (await log_in(me, "budi", "wrong-password")).status_code == 401
        assert (await log_in(me, "nobody", PASSWORD)).status_code == 401
        # The fourth attempt from this address is refused, even with the right password.
        assert_limited(await log_in(me, "ayu", PASSWORD))
        # Another address has a budget of its own.
        assert (await log_in(other, "ayu", PASSWORD)).status_code == 201


async def test_logins_per_username_from_any_address(settings: Settings) -> None:
    limits = {"rate_login": "50/minute", "rate_login_user": "2/minute"}
    async with running(settings.model_copy(update=limits)) as app:
        async with client(app, "192.0.2.99") as setup:
            await account(setup, "citra")
            await account(setup, "dewi")
        for address, username in (("192.0.2.1", "citra"), ("192.0.2.2", "CITRA ")):
            async with client(app, address) as http:
                assert (await log_in(http, username, "wrong-password")).status_code == 401
        async with client(app, "192.0.2.3") as fresh:
            # A third try at the same username, from a third address, in any case: refused.
            assert_limited(await log_in(fresh, "Citra", PASSWORD))
            # Other usernames are not held up by it.
            assert (await log_in(fresh, "dewi", PASSWORD)).status_code == 201
        async with client(app, "192.0.2.4") as later:
            assert_limited(await log_in(later, "citra", PASSWORD))
