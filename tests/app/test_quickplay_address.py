"""Addresses on SQLite and PostgreSQL: every quick-play seat keeps the caller's address mark;
with GAPLE_APART_BY_ADDRESS two accounts from one address never share a quick-play table, and a
tournament takes one entry per address."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.clients import address_mark
from app.settings import Settings
from app.store.models import Seat
from tests.app.test_quickplay import PORDI, _quick
from tests.app.test_rooms import RecordingLive
from tests.app.test_tournaments_api import create, enter, get, organizer, refused


@pytest.fixture
def live_factory() -> Any:
    return lambda app: RecordingLive()


@pytest.fixture(params=[False, True], ids=["together", "apart"])
def settings(settings: Settings, request: pytest.FixtureRequest) -> Settings:
    return settings.model_copy(
        update={
            "apart_by_address": request.param,
            "rate_guests": "1000/minute",
            "rate_tournaments": "1000/minute",
        }
    )


async def test_one_address_is_kept_apart_only_when_asked(
    api: httpx.AsyncClient, app: Any, make_guest: Any, settings: Settings
) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    first, second = await _quick(api, ayu), await _quick(api, budi)  # one test client, one address
    apart = settings.apart_by_address
    assert (first["room"]["code"] != second["room"]["code"]) is apart
    async with app.state.db.session() as session:
        marks = set((await session.execute(select(Seat.client_mark))).scalars())
    # The mark of the test client's address, keyed by the server's secret: never the address.
    assert marks == {address_mark("127.0.0.1", settings.secret)}
    # A third account from another address joins the first table either way.
    other = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app, client=("203.0.113.9", 1234)),
        base_url="http://test",
    )
    async with other:
        cici = await make_guest("Cici")
        third = await other.post("/api/quickplay", json=PORDI, headers=cici.headers)
    assert third.status_code == 200, third.text
    assert third.json()["room"]["code"] == first["room"]["code"]


async def test_a_tournament_takes_one_entry_per_address_only_when_asked(
    api: httpx.AsyncClient, app: Any, make_guest: Any, settings: Settings
) -> None:
    org = await organizer(api, make_guest)
    tid = (await create(api, org))["id"]
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    assert (await enter(api, tid, ayu)).status_code == 201
    second = await enter(api, tid, budi)  # the same test client: the same address
    if settings.apart_by_address:
        refused(second, 409, "same_address")
        assert len((await get(api, tid))["entrants"]) == 1  # nothing changed
        # Withdrawn, the address's entry no longer holds it.
        gone = await api.delete(f"/api/tournaments/{tid}/entries/me", headers=ayu.headers)
        assert gone.status_code in (200, 204), gone.text
        assert (await enter(api, tid, budi)).status_code == 201
    else:
        assert second.status_code == 201, second.text
