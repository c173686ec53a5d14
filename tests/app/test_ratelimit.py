"""Rate limits per client address on the REST calls that create or move things (both databases;
the Redis-backed limiter against the real Redis)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from limits.aio.storage import MemoryStorage
from pydantic import ValidationError
from redis.asyncio import Redis
from sqlalchemy import func, select

from app.api.ratelimit import Limiter, RateLimited, rate_limit
from app.main import create_app
from app.settings import Settings
from app.store.models import Player, Room

Client = httpx.AsyncClient
ME = "192.0.2.10"  # documentation addresses (RFC 5737): never a real peer
OTHER = "192.0.2.20"


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[Any]:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


def client(app: Any, address: str = ME, headers: dict[str, str] | None = None) -> Client:
    """A client whose requests arrive from ``address`` (the peer the ASGI server reports)."""
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver", headers=headers)


async def guest(http: Client, name: str = "Ayu") -> dict[str, str]:
    response = await http.post("/api/guests", json={"name": name})
    assert response.status_code == 201, response.text
    token = response.json()["token"]
    return {"Authorization": f"Bearer {token}"}


async def new_room(http: Client, host: dict[str, str]) -> str:
    response = await http.post("/api/rooms", json={}, headers=host)
    assert response.status_code == 201, response.text
    return str(response.json()["code"])


def assert_limited(response: httpx.Response, window: int = 60) -> int:
    assert response.status_code == 429, response.text
    error = response.json()["error"]
    assert error["code"] == "rate_limited"
    assert "too many requests" in error["message"]
    retry = int(response.headers["Retry-After"])
    assert 1 <= retry <= window
    return retry


async def count(app: Any, model: Any) -> int:
    async with app.state.db.session() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


# --- every limited route ----------------------------------------------------------------------

Call = Callable[[Client, dict[str, str], str], Awaitable[httpx.Response]]


async def _create_guest(http: Client, _host: dict[str, str], _code: str) -> httpx.Response:
    return await http.post("/api/guests", json={"name": "Budi"})


async def _create_room(http: Client, host: dict[str, str], _code: str) -> httpx.Response:
    return await http.post("/api/rooms", json={}, headers=host)


async def _sit(http: Client, host: dict[str, str], code: str) -> httpx.Response:
    return await http.post(f"/api/rooms/{code}/seats/0", headers=host)


async def _leave(http: Client, host: dict[str, str], code: str) -> httpx.Response:
    return await http.delete(f"/api/rooms/{code}/seats/0", headers=host)


async def _bot(http: Client, host: dict[str, str], code: str) -> httpx.Response:
    return await http.post(f"/api/rooms/{code}/bots/1", json={}, headers=host)


ROUTES: dict[str, tuple[str, list[Call], Call]] = {
    # route -> (its rate setting, calls that spend the budget of 2, the call then refused)
    "guests": ("guests", [_create_guest, _create_guest], _create_guest),
    "rooms": ("rooms", [_create_room, _create_room], _create_room),
    "sit": ("seats", [_sit, _leave], _sit),
    "leave": ("seats", [_sit, _bot], _leave),
    "bot": ("seats", [_sit, _leave], _bot),
}


async def state(app: Any, http: Client, code: str) -> tuple[int, int, Any]:
    seats = (await http.get(f"/api/rooms/{code}")).json()["seats"]
    return await count(app, Player), await count(app, Room), seats


@pytest.mark.parametrize("route", list(ROUTES))
async def test_each_limited_route_answers_429_after_its_budget(
    settings: Settings, route: str
) -> None:
    name, spend, refused_call = ROUTES[route]
    # A budget of 2 for the route under test; the set-up's own calls come from elsewhere.
    limits: dict[str, Any] = {f"rate_{n}": "50/minute" for n in ("guests", "rooms", "seats")}
    limits |= {f"rate_{name}": "2/minute", "rooms_per_player": 10}
    async with (
        running(settings.model_copy(update=limits)) as app,
        client(app, "192.0.2.99") as setup,
        client(app) as me,
    ):
        host = await guest(setup)
        code = await new_room(setup, host)
        for call in spend:
            response = await call(me, host, code)
            assert response.status_code in (200, 201), response.text
        before = await state(app, setup, code)
        assert_limited(await refused_call(me, host, code))
        assert await state(app, setup, code) == before  # the refused call changed nothing
        async with client(app, OTHER) as other:
            # Another address has a budget of its own.
            response = await refused_call(other, host, code)
            assert response.status_code in (200, 201), response.text
            assert await state(app, setup, code) != before


async def test_seat_changes_share_one_budget(settings: Settings) -> None:
    async with (
        running(settings.model_copy(update={"rate_seats": "3/minute"})) as app,
        client(app) as me,
    ):
        host = await guest(me)
        code = await new_room(me, host)
        assert (await _sit(me, host, code)).status_code == 200
        assert (await _bot(me, host, code)).status_code == 200
        assert (await _leave(me, host, code)).status_code == 200
        assert_limited(await _sit(me, host, code))
        assert_limited(await _bot(me, host, code))
        seats = (await me.get(f"/api/rooms/{code}")).json()["seats"]
        assert seats[0]["player_id"] is None and seats[1]["bot"] is not None  # as left
        # Reading is never limited.
        assert (await me.get("/api/rooms")).status_code == 200


async def test_retry_after_is_when_the_budget_comes_back(settings: Settings) -> None:
    async with (
        running(settings.model_copy(update={"rate_guests": "2/second"})) as app,
        client(app) as me,
    ):
        await guest(me)
        await guest(me)
        retry = assert_limited(await me.post("/api/guests", json={"name": "C"}), window=1)
        await asyncio.sleep(retry)  # the limiter counts real time (limits has no clock)
        await guest(me)


async def test_every_part_of_a_rate_holds(settings: Settings) -> None:
    async with (
        running(settings.model_copy(update={"rate_guests": "5/minute;2/second"})) as app,
        client(app) as me,
    ):
        await guest(me)
        await guest(me)
        assert_limited(await me.post("/api/guests", json={"name": "C"}), window=1)


# --- whose address ----------------------------------------------------------------------------


async def test_forwarded_for_is_ignored_outside_production(settings: Settings) -> None:
    assert not settings.production
    async with running(settings.model_copy(update={"rate_guests": "2/minute"})) as app:
        # From the loopback, i.e. from where a proxy would be: still not believed.
        for n, spoofed in enumerate(["203.0.113.1", "203.0.113.2", "203.0.113.3"]):
            async with client(app, "127.0.0.1", {"X-Forwarded-For": spoofed}) as http:
                response = await http.post("/api/guests", json={"name": "Spoof"})
                assert response.status_code == (201 if n < 2 else 429)


async def test_production_counts_the_address_a_trusted_proxy_names(settings: Settings) -> None:
    production = settings.model_copy(update={"production": True, "rate_guests": "2/minute"})
    async with running(production) as app:
        # The proxy (127.0.0.1, trusted by default) forwards for two different clients.
        async with client(app, "127.0.0.1", {"X-Forwarded-For": "203.0.113.1"}) as first:
            await guest(first)
            await guest(first)
            assert_limited(await first.post("/api/guests", json={"name": "C"}))
        async with client(app, "127.0.0.1", {"X-Forwarded-For": "203.0.113.2"}) as second:
            await guest(second)
        # A peer that is not a trusted proxy is counted as itself, whatever it claims.
        for n, spoofed in enumerate(["203.0.113.3", "203.0.113.4", "203.0.113.5"]):
            async with client(app, OTHER, {"X-Forwarded-For": spoofed}) as untrusted:
                response = await untrusted.post("/api/guests", json={"name": "Spoof"})
                assert response.status_code == (201 if n < 2 else 429)


async def test_trusted_proxies_are_a_setting(settings: Settings) -> None:
    production = settings.model_copy(
        update={"production": True, "rate_guests": "1/minute", "forwarded_allow_ips": OTHER}
    )
    async with running(production) as app:
        async with client(app, OTHER, {"X-Forwarded-For": "203.0.113.1"}) as proxied:
            await guest(proxied)
        async with client(app, OTHER, {"X-Forwarded-For": "203.0.113.2"}) as proxied:
            await guest(proxied)
        # The loopback is no longer a trusted proxy: its header is ignored.
        async with client(app, "127.0.0.1", {"X-Forwarded-For": "203.0.113.3"}) as direct:
            await guest(direct)
            assert_limited(await direct.post("/api/guests", json={"name": "C"}))


async def test_an_ipv6_client_counts_as_its_64(settings: Settings) -> None:
    async with running(settings.model_copy(update={"rate_guests": "2/minute"})) as app:
        async with client(app, "2001:db8:1:2::1") as a, client(app, "2001:db8:1:2:ffff::9") as b:
            await guest(a)
            await guest(b)
            assert_limited(await a.post("/api/guests", json={"name": "C"}))
        async with client(app, "2001:db8:1:3::1") as next_network:
            await guest(next_network)
        # An IPv4 client seen through an IPv6 socket is that IPv4 address.
        async with client(app, "::ffff:192.0.2.50") as mapped, client(app, "192.0.2.50") as v4:
            await guest(mapped)
            await guest(v4)
            assert_limited(await mapped.post("/api/guests", json={"name": "C"}))


# --- several nodes ----------------------------------------------------------------------------


async def test_nodes_sharing_redis_share_the_budget(
    settings: Settings, redis_url: str, redis_prefix: str
) -> None:
    shared = settings.model_copy(
        update={"redis_url": redis_url, "redis_prefix": redis_prefix, "rate_guests": "3/minute"}
    )
    async with running(shared) as node_a, running(shared) as node_b:
        async with client(node_a) as a, client(node_b) as b:
            await guest(a)
            await guest(b)
            await guest(a)
            assert_limited(await b.post("/api/guests", json={"name": "C"}))
            assert_limited(await a.post("/api/guests", json={"name": "C"}))
        async with client(node_b, OTHER) as other:
            await guest(other)
        redis = Redis.from_url(redis_url)
        try:
            keys = [key async for key in redis.scan_iter(match=f"{redis_prefix}ratelimit:*")]
        finally:
            await redis.aclose()
        assert len(keys) == 2  # one per address, under the nodes' prefix
    # A node with another prefix (another deployment on the same Redis) has its own budget.
    elsewhere = shared.model_copy(update={"redis_prefix": redis_prefix + "other:"})
    async with running(elsewhere) as node_c, client(node_c) as c:
        await guest(c)


# --- the helpers and the settings -------------------------------------------------------------


async def test_the_limiter_limits_any_key() -> None:
    """What a login limit per user name would use: any name, any rate, any key."""
    limiter = Limiter(MemoryStorage())
    try:
        await limiter.hit("login_user", "2/minute", "ayu")
        await limiter.hit("login_user", "2/minute", "ayu")
        with pytest.raises(RateLimited) as refused:
            await limiter.hit("login_user", "2/minute", "ayu")
        assert refused.value.status == 429 and refused.value.code == "rate_limited"
        assert refused.value.headers is not None
        assert 1 <= int(refused.value.headers["Retry-After"]) <= 60
        await limiter.hit("login_user", "2/minute", "budi")  # another key
        await limiter.hit("login_address", "2/minute", "ayu")  # another name
    finally:
        await limiter.aclose()


def test_a_rate_limit_needs_its_setting() -> None:
    with pytest.raises(ValueError, match="rate_logins"):
        rate_limit("logins")


def test_rate_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    for name in ("GAPLE_RATE_GUESTS", "GAPLE_MAX_SOCKETS_PER_ADDRESS", "FORWARDED_ALLOW_IPS"):
        monkeypatch.delenv(name, raising=False)
    defaults = Settings(data_dir=tmp_path)
    assert (defaults.rate_guests, defaults.rate_rooms) == ("10/minute", "10/minute")
    assert (defaults.rate_quickplay, defaults.rate_seats) == ("20/minute", "60/minute")
    assert defaults.max_sockets_per_address == 50
    assert defaults.forwarded_allow_ips == "127.0.0.1,::1"
    monkeypatch.setenv("GAPLE_RATE_GUESTS", "100/hour;5/minute")
    monkeypatch.setenv("GAPLE_MAX_SOCKETS_PER_ADDRESS", "8")
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")
    env = Settings(data_dir=tmp_path)
    assert (env.rate_guests, env.max_sockets_per_address) == ("100/hour;5/minute", 8)
    assert env.forwarded_allow_ips == "*"
    with pytest.raises(ValidationError, match="'lots' is not a rate limit"):
        Settings(data_dir=tmp_path, rate_seats="lots")
    with pytest.raises(ValidationError):
        Settings(data_dir=tmp_path, max_sockets_per_address=0)


async def test_openapi_documents_the_429(api: Client) -> None:
    paths = (await api.get("/openapi.json")).json()["paths"]
    assert "/api/guests" in paths and "/api/rooms/{code}/bots/{seat}" in paths
    limited = {
        ("/api/guests", "post"),
        ("/api/rooms", "post"),
        ("/api/rooms/{code}/seats/{seat}", "post"),
        ("/api/rooms/{code}/seats/{seat}", "delete"),
        ("/api/rooms/{code}/bots/{seat}", "post"),
        ("/api/rooms/{code}/again", "post"),  # "play again" and "start now": the seats' limit
        ("/api/rooms/{code}/fill", "post"),
        ("/api/quickplay", "post"),  # where the app has quick play, it is limited too
        ("/api/practice", "post"),  # each call opens a table
        ("/api/records/replay", "post"),  # each call re-plays a whole set
        ("/api/sessions", "post"),  # logins, per address (and per username inside the call)
        ("/api/friends/{player_id}", "post"),  # per address (and per player inside the call)
        ("/api/blocks/{player_id}", "post"),
        ("/api/blocks/{player_id}", "delete"),
        ("/api/players/by-username/{username}", "get"),  # finding players by name
        ("/api/challenges", "post"),  # per address (and per player inside the call)
        ("/api/parties", "post"),  # per address (and per player inside the call)
        ("/api/reports", "post"),  # per address
        # the operators' API, every call (before its token is checked)
        ("/api/admin/tables", "get"),
        ("/api/admin/rooms/{code}", "delete"),
        ("/api/admin/rooms/{code}/seats/{seat}", "delete"),
        ("/api/admin/players/{player_id}/ban", "post"),
        ("/api/admin/players/{player_id}/ban", "delete"),
        # tournaments: creating one, and entering, confirming, withdrawing (one budget)
        ("/api/tournaments", "post"),
        ("/api/tournaments/{tournament_id}/entries", "post"),
        ("/api/tournaments/{tournament_id}/entries/{entry_id}/confirm", "post"),
        ("/api/tournaments/{tournament_id}/entries/me", "delete"),
        # clubs: founding one, and joining, leaving, a leader's answers and changes (one budget)
        ("/api/clubs", "post"),
        ("/api/clubs/{club_id}", "patch"),
        ("/api/clubs/{club_id}/members", "post"),
        ("/api/clubs/{club_id}/members/me", "delete"),
        ("/api/clubs/{club_id}/members/{player_id}", "delete"),
        ("/api/clubs/{club_id}/leaders", "post"),
        ("/api/clubs/{club_id}/requests/{player_id}/accept", "post"),
        ("/api/clubs/{club_id}/requests/{player_id}/decline", "post"),
    }
    for path, methods in paths.items():
        for method, operation in methods.items():
            if (path, method) in limited:
                answer = operation["responses"]["429"]
                assert "Retry-After" in answer["headers"]
                assert "GAPLE_RATE_" in answer["description"]
            else:
                assert "429" not in operation["responses"], (path, method)
