"""Clubs over REST on both databases: founding (name rules, guests refused, the limit), joining an
open club and asking to join a closed one, the leaders' answers, removals and new leaders, the
last leader's rule, a leader's edit, the moderators' rename and close; club tables and events that
refuse outsiders and admit members (quick play never seats an outsider at one), the members'
notifications when a club event is made and starts, a player's clubs on their profile, and a
team battle played to its end with bots whose club ranking equals the documented sum of each
club's best entrants' stored points."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app.rooms.clock import FakeClock
from app.rooms.manager import TableManager
from app.rooms.store import SqlGameStore
from app.rooms.tournament_live import TournamentRunner
from app.settings import Settings
from app.store.models import Club, ClubMember, ClubRequest, Notification, Tournament
from tests.app.live.conftest import CONFIG
from tests.app.test_rooms import set_online
from tests.conftest import Guest

MakeGuest = Callable[..., Awaitable[Guest]]
PASSWORD = "kartu-balak-66"
MOD_TOKEN = "m" * 32
MOD = {"Authorization": f"Bearer {MOD_TOKEN}"}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    operators = Settings.model_validate({"admin_tokens": f"sari:moderator:{MOD_TOKEN}"})
    return settings.model_copy(
        update={
            "rate_guests": "1000/minute",
            "rate_clubs": "1000/minute",
            "rate_club_members": "1000/minute",
            "rate_rooms": "1000/minute",
            "rate_tournaments": "1000/minute",
            "rate_tournament_entries": "1000/minute",
            "rooms_per_player": 20,
            "max_clubs": 3,
            "admin_tokens": operators.admin_tokens,
        }
    )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def live_factory(clock: FakeClock) -> Callable[[Any], TableManager]:
    """The real tables on a fake clock: a team battle is played to its end by the clock."""
    return lambda app: TableManager(SqlGameStore(app.state.db), clock=clock, config=CONFIG)


_accounts = iter(range(10**6))


async def account(api: httpx.AsyncClient, make_guest: MakeGuest, name: str) -> Guest:
    """A guest who saved an account: only accounts found or join clubs."""
    guest = await make_guest(name)
    saved = await api.post(
        "/api/accounts",
        json={"username": f"{name.lower()}_{next(_accounts)}", "password": PASSWORD},
        headers=guest.headers,
    )
    assert saved.status_code == 201, saved.text
    return guest


async def found(
    api: httpx.AsyncClient, leader: Guest, name: str = "Gardu Melati", *, open: bool = True
) -> dict[str, Any]:
    made = await api.post(
        "/api/clubs",
        json={"name": name, "description": "Main tiap malam Jumat", "open": open},
        headers=leader.headers,
    )
    assert made.status_code == 201, made.text
    body: dict[str, Any] = made.json()
    return body


async def club(api: httpx.AsyncClient, club_id: int) -> dict[str, Any]:
    got = await api.get(f"/api/clubs/{club_id}")
    assert got.status_code == 200, got.text
    body: dict[str, Any] = got.json()
    return body


def roles(body: dict[str, Any]) -> dict[str, str]:
    return {m["player_id"]: m["role"] for m in body["members"]}


def refused(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    return error


async def count(app: Any, model: Any) -> int:
    async with app.state.db.session() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def stored(app: Any) -> tuple[int, int, int]:
    return (await count(app, Club), await count(app, ClubMember), await count(app, ClubRequest))


async def join(api: httpx.AsyncClient, club_id: int, guest: Guest) -> httpx.Response:
    return await api.post(f"/api/clubs/{club_id}/members", headers=guest.headers)


# --- founding -----------------------------------------------------------------------------------


async def test_founding_makes_the_founder_its_leader(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu = await account(api, make_guest, "Ayu")
    body = await found(api, ayu)
    assert body["name"] == "Gardu Melati" and body["open"] is True and body["closed_at"] is None
    assert body["description"] == "Main tiap malam Jumat"
    assert roles(body) == {ayu.player_id: "leader"}
    assert set(body["members"][0]["ratings"]) == {"tunggal", "ganda"}
    assert [r["player_id"] for r in body["leaderboard"]["tunggal"]] == [ayu.player_id]
    assert body["events"] == [] and body["tables"] == []
    listed = (await api.get("/api/clubs", params={"q": "MELATI"})).json()
    assert listed["clubs"] == [
        {
            "id": body["id"],
            "name": "Gardu Melati",
            "description": "Main tiap malam Jumat",
            "open": True,
            "members": 1,
        }
    ]
    assert (await api.get("/api/clubs", params={"q": "mawar"})).json()["clubs"] == []


@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("ab", "name"),
        ("   ", "name"),
        ("x" * 41, "name"),
        ("Gardu\u0007Bel", "name"),
        ("Gardu\u200bHalus", "name"),
    ],
)
async def test_bad_names_are_refused_and_store_nothing(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest, name: str, field: str
) -> None:
    ayu = await account(api, make_guest, "Ayu")
    response = await api.post("/api/clubs", json={"name": name}, headers=ayu.headers)
    assert refused(response, 422, "invalid")["field"] == field
    assert await stored(app) == (0, 0, 0)


async def test_names_are_unique_in_any_case_and_descriptions_are_plain(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi = await account(api, make_guest, "Ayu"), await account(api, make_guest, "Budi")
    await found(api, ayu, "Gardu Melati")
    again = await api.post("/api/clubs", json={"name": "  GARDU melati "}, headers=budi.headers)
    assert refused(again, 409, "club_name_taken")["field"] == "name"
    control = await api.post(
        "/api/clubs", json={"name": "Gardu Mawar", "description": "a\u0000b"}, headers=budi.headers
    )
    assert refused(control, 422, "invalid")["field"] == "description"
    assert await stored(app) == (1, 1, 0)


async def test_guests_cannot_found_or_join(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, guest = await account(api, make_guest, "Ayu"), await make_guest("Tamu")
    made = await api.post("/api/clubs", json={"name": "Gardu Tamu"}, headers=guest.headers)
    refused(made, 403, "account_required")
    body = await found(api, ayu)
    refused(await join(api, body["id"], guest), 403, "account_required")
    assert await stored(app) == (1, 1, 0)
    assert (await api.post("/api/clubs", json={"name": "Gardu X"})).status_code == 401


async def test_a_player_belongs_to_at_most_max_clubs(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi = await account(api, make_guest, "Ayu"), await account(api, make_guest, "Budi")
    ids = [(await found(api, ayu, f"Gardu {n}"))["id"] for n in ("Satu", "Dua", "Tiga")]
    fourth = await api.post("/api/clubs", json={"name": "Gardu Empat"}, headers=ayu.headers)
    refused(fourth, 409, "club_limit")
    other = await found(api, budi, "Gardu Budi", open=False)
    # A request may wait, but its acceptance is refused while the player is full.
    assert (await join(api, other["id"], ayu)).json()["state"] == "requested"
    accept = f"/api/clubs/{other['id']}/requests/{ayu.player_id}/accept"
    refused(await api.post(accept, headers=budi.headers), 409, "club_limit")
    # Leaving one makes room.
    assert (
        await api.delete(f"/api/clubs/{ids[0]}/members/me", headers=ayu.headers)
    ).status_code == 204
    assert (await api.post(accept, headers=budi.headers)).status_code == 200
    assert ayu.player_id in roles(await club(api, other["id"]))


# --- membership ---------------------------------------------------------------------------------


async def test_an_open_club_is_joined_at_once_and_again_changes_nothing(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi = await account(api, make_guest, "Ayu"), await account(api, make_guest, "Budi")
    body = await found(api, ayu)
    for _ in range(2):
        joined = await join(api, body["id"], budi)
        assert joined.status_code == 200 and joined.json() == {
            "club_id": body["id"],
            "state": "member",
        }
    assert roles(await club(api, body["id"])) == {ayu.player_id: "leader", budi.player_id: "member"}
    assert await stored(app) == (1, 2, 0)
    refused(await api.post("/api/clubs/999/members", headers=budi.headers), 404, "club_not_found")


async def test_a_closed_club_takes_requests_that_leaders_answer(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, cici = [await account(api, make_guest, n) for n in ("Ayu", "Budi", "Cici")]
    body = await found(api, ayu, open=False)
    cid = body["id"]
    for guest in (budi, cici, budi):
        assert (await join(api, cid, guest)).json()["state"] == "requested"
    assert await stored(app) == (1, 1, 2)
    # Only leaders see and answer the requests.
    refused(await api.get(f"/api/clubs/{cid}/requests", headers=budi.headers), 403, "not_leader")
    waiting = (await api.get(f"/api/clubs/{cid}/requests", headers=ayu.headers)).json()
    assert [r["player_id"] for r in waiting["requests"]] == [budi.player_id, cici.player_id]
    accept = f"/api/clubs/{cid}/requests/{budi.player_id}/accept"
    refused(await api.post(accept, headers=cici.headers), 403, "not_leader")
    assert (await api.post(accept, headers=ayu.headers)).status_code == 200
    decline = f"/api/clubs/{cid}/requests/{cici.player_id}/decline"
    refused(await api.post(decline, headers=budi.headers), 403, "not_leader")  # a member only
    assert (await api.post(decline, headers=ayu.headers)).status_code == 200
    refused(await api.post(decline, headers=ayu.headers), 404, "request_not_found")
    assert roles(await club(api, cid)) == {ayu.player_id: "leader", budi.player_id: "member"}
    assert await stored(app) == (1, 2, 0)
    # A declined player may ask again.
    assert (await join(api, cid, cici)).json()["state"] == "requested"


async def test_leaders_remove_members_and_make_leaders(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, cici = [await account(api, make_guest, n) for n in ("Ayu", "Budi", "Cici")]
    cid = (await found(api, ayu))["id"]
    for guest in (budi, cici):
        await join(api, cid, guest)
    remove = f"/api/clubs/{cid}/members/{cici.player_id}"
    refused(await api.delete(remove, headers=budi.headers), 403, "not_leader")
    promote = f"/api/clubs/{cid}/leaders"
    made = await api.post(promote, json={"player_id": cici.player_id}, headers=budi.headers)
    refused(made, 403, "not_leader")
    made = await api.post(promote, json={"player_id": budi.player_id}, headers=ayu.headers)
    assert made.status_code == 200 and roles(made.json())[budi.player_id] == "leader"
    assert made.json()["members"][0]["role"] == "leader"  # leaders first
    # The new leader removes a member; a leader cannot be removed.
    assert (await api.delete(remove, headers=budi.headers)).status_code == 204
    refused(await api.delete(remove, headers=budi.headers), 404, "member_not_found")
    other_leader = f"/api/clubs/{cid}/members/{ayu.player_id}"
    refused(await api.delete(other_leader, headers=budi.headers), 409, "member_is_leader")
    nobody = await api.post(promote, json={"player_id": cici.player_id}, headers=ayu.headers)
    refused(nobody, 404, "member_not_found")
    assert roles(await club(api, cid)) == {ayu.player_id: "leader", budi.player_id: "leader"}


async def test_the_last_leader_names_another_before_leaving(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, cici = [await account(api, make_guest, n) for n in ("Ayu", "Budi", "Cici")]
    cid = (await found(api, ayu))["id"]
    for guest in (budi, cici):
        await join(api, cid, guest)
    leave = f"/api/clubs/{cid}/members/me"
    error = refused(await api.delete(leave, headers=ayu.headers), 409, "last_leader")
    assert error["field"] == "successor"
    stranger = await account(api, make_guest, "Dodi")
    named = await api.delete(leave, params={"successor": stranger.player_id}, headers=ayu.headers)
    refused(named, 404, "member_not_found")
    # A member cannot name a leader on the way out.
    by_member = await api.delete(leave, params={"successor": cici.player_id}, headers=budi.headers)
    refused(by_member, 403, "not_leader")
    assert roles(await club(api, cid))[ayu.player_id] == "leader"
    named = await api.delete(leave, params={"successor": budi.player_id}, headers=ayu.headers)
    assert named.status_code == 204
    assert roles(await club(api, cid)) == {budi.player_id: "leader", cici.player_id: "member"}
    refused(await api.delete(leave, headers=ayu.headers), 404, "member_not_found")
    # A member leaves freely; the last member leaving closes the club.
    assert (await api.delete(leave, headers=cici.headers)).status_code == 204
    assert (await api.delete(leave, headers=budi.headers)).status_code == 204
    body = await club(api, cid)
    assert body["members"] == [] and body["closed_at"] is not None
    refused(await join(api, cid, cici), 409, "club_closed")
    assert (await api.get("/api/clubs")).json()["clubs"] == []


async def test_a_leader_edits_the_description_and_openness(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi = await account(api, make_guest, "Ayu"), await account(api, make_guest, "Budi")
    cid = (await found(api, ayu))["id"]
    await join(api, cid, budi)
    patch = {"description": "Gardu baru", "open": False}
    refused(
        await api.patch(f"/api/clubs/{cid}", json=patch, headers=budi.headers), 403, "not_leader"
    )
    done = await api.patch(f"/api/clubs/{cid}", json=patch, headers=ayu.headers)
    assert done.status_code == 200
    assert (done.json()["description"], done.json()["open"]) == ("Gardu baru", False)
    long = await api.patch(
        f"/api/clubs/{cid}", json={"description": "x" * 501}, headers=ayu.headers
    )
    assert refused(long, 422, "invalid")["field"] == "description"
    name = await api.patch(f"/api/clubs/{cid}", json={"name": "Lain"}, headers=ayu.headers)
    refused(name, 422, "invalid")  # only a moderator renames
    assert (await club(api, cid))["name"] == "Gardu Melati"


async def test_moderators_rename_and_close_a_club(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu = await account(api, make_guest, "Ayu")
    cid = (await found(api, ayu))["id"]
    await found(api, ayu, "Gardu Mawar")
    rename = f"/api/admin/clubs/{cid}"
    assert (await api.patch(rename, json={"name": "Gardu Baru"})).status_code == 401
    taken = await api.patch(rename, json={"name": "gardu MAWAR"}, headers=MOD)
    refused(taken, 409, "club_name_taken")
    done = await api.patch(rename, json={"name": "Gardu Baru"}, headers=MOD)
    assert done.status_code == 200 and done.json()["name"] == "Gardu Baru"
    refused(await api.patch(rename, json={"name": "ab"}, headers=MOD), 422, "invalid")
    refused(await api.post("/api/admin/clubs/999/close", headers=MOD), 404, "club_not_found")
    closed = await api.post(f"/api/admin/clubs/{cid}/close", headers=MOD)
    assert closed.status_code == 200 and closed.json()["closed_at"] is not None
    budi = await account(api, make_guest, "Budi")
    refused(await join(api, cid, budi), 409, "club_closed")
    room = await api.post("/api/rooms", json={"club_id": cid}, headers=ayu.headers)
    refused(room, 409, "club_closed")
    # A closed club is no longer on the member's profile nor in the list.
    profile = (await api.get(f"/api/players/{ayu.player_id}")).json()
    assert [c["name"] for c in profile["clubs"]] == ["Gardu Mawar"]
    assert [c["name"] for c in (await api.get("/api/clubs")).json()["clubs"]] == ["Gardu Mawar"]
    audit = (await api.get("/api/admin/audit", headers=MOD)).json()
    actions = {e["action"] for e in audit["entries"]}
    assert {"rename_club", "close_club"} <= actions


async def test_the_profile_lists_the_players_clubs(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi = await account(api, make_guest, "Ayu"), await account(api, make_guest, "Budi")
    one = await found(api, ayu, "Gardu Satu")
    two = await found(api, budi, "Gardu Dua")
    await join(api, two["id"], ayu)
    profile = (await api.get(f"/api/players/{ayu.player_id}")).json()
    assert profile["clubs"] == [
        {"id": one["id"], "name": "Gardu Satu", "role": "leader"},
        {"id": two["id"], "name": "Gardu Dua", "role": "member"},
    ]


async def test_the_list_pages_by_name(api: httpx.AsyncClient, make_guest: MakeGuest) -> None:
    names = ["Gardu C", "gardu a", "Gardu B"]
    for n, name in enumerate(names):
        await found(api, await account(api, make_guest, f"L{n}"), name)
    first = (await api.get("/api/clubs", params={"limit": 2})).json()
    assert [c["name"] for c in first["clubs"]] == ["gardu a", "Gardu B"]
    rest = (await api.get("/api/clubs", params={"limit": 2, "cursor": first["next_cursor"]})).json()
    assert [c["name"] for c in rest["clubs"]] == ["Gardu C"] and rest["next_cursor"] is None
    refused(await api.get("/api/clubs", params={"cursor": "nonsense"}), 422, "invalid")


# --- club tables --------------------------------------------------------------------------------


async def test_a_club_table_seats_members_only(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, tamu = (
        await account(api, make_guest, "Ayu"),
        await account(api, make_guest, "Budi"),
        await make_guest("Tamu"),
    )
    cid = (await found(api, ayu))["id"]
    outsider = await api.post("/api/rooms", json={"club_id": cid}, headers=budi.headers)
    refused(outsider, 403, "not_club_member")
    refused(
        await api.post("/api/rooms", json={"club_id": 999}, headers=ayu.headers),
        404,
        "club_not_found",
    )
    made = await api.post(
        "/api/rooms", json={"club_id": cid, "preset": "pordi"}, headers=ayu.headers
    )
    assert made.status_code == 201, made.text
    room = made.json()
    assert room["club"] == {"id": cid, "name": "Gardu Melati"}
    assert "club_id" not in room["settings"]
    code = room["code"]
    # The club's page lists its tables in use.
    assert (await club(api, cid))["tables"] == [
        {
            "code": code,
            "status": "open",
            "host": {"player_id": ayu.player_id, "name": "Ayu"},
            "seats_taken": 0,
            "seats": 4,
        }
    ]
    for guest in (budi, tamu):
        refused(
            await api.post(f"/api/rooms/{code}/seats/1", headers=guest.headers),
            403,
            "not_club_member",
        )
    await join(api, cid, budi)
    assert (await api.post(f"/api/rooms/{code}/seats/1", headers=budi.headers)).status_code == 200
    # The lobby lists a public club table as any other, naming its club (anyone may watch).
    await set_online(app, code)
    lobby = (await api.get("/api/rooms")).json()["rooms"]
    assert [(r["code"], r["club"]) for r in lobby] == [(code, {"id": cid, "name": "Gardu Melati"})]
    # Anyone may still watch: the room is read by its code.
    watched = await api.get(f"/api/rooms/{code}")
    assert [s.get("player_id") for s in watched.json()["seats"]][:2] == [None, budi.player_id]
    # Quick play never seats an outsider at the club's table.
    quick = await api.post("/api/quickplay", json={}, headers=tamu.headers)
    assert quick.status_code in (200, 201), quick.text
    assert quick.json()["room"]["code"] != code and quick.json()["room"]["club"] is None


# --- club events and notifications --------------------------------------------------------------


def soon(hours: float = 24) -> str:
    return (datetime.now(UTC) + timedelta(hours=hours)).isoformat()


def swiss(**changes: Any) -> dict[str, Any]:
    return {
        "name": "Piala Gardu",
        "format": "swiss",
        "mode": "tunggal",
        "rounds": 2,
        "settings": {"preset": "pordi", "turn_seconds": 15, "target_points": 1},
        "starts_at": soon(),
        "min_entrants": 4,
        "max_entrants": 16,
        "rated": False,
        "public": True,
        **changes,
    }


async def notices(app: Any, player_id: str) -> list[tuple[str, dict[str, Any]]]:
    async with app.state.db.session() as session:
        rows = await session.scalars(
            select(Notification)
            .where(Notification.player_id == player_id)
            .order_by(Notification.id)
        )
        return [(n.kind, n.payload) for n in rows]


async def test_a_club_event_takes_members_only_and_tells_them(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu = await account(api, make_guest, "Ayu")
    members = [await account(api, make_guest, f"M{n}") for n in range(3)]
    outsider = await account(api, make_guest, "Luar")
    cid = (await found(api, ayu))["id"]
    for member in members:
        await join(api, cid, member)
    not_member = await api.post(
        "/api/tournaments", json=swiss(club_id=cid), headers=outsider.headers
    )
    refused(not_member, 403, "not_club_member")
    assert await count(app, Tournament) == 0
    made = await api.post("/api/tournaments", json=swiss(club_id=cid), headers=ayu.headers)
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    assert made.json()["club"] == {"id": cid, "name": "Gardu Melati"}
    for player in (ayu, *members):
        kinds = [k for k, _ in await notices(app, player.player_id)]
        assert kinds == ["club_tournament"]
    _kind, payload = (await notices(app, members[0].player_id))[0]
    assert payload["tournament_id"] == tid and payload["club_id"] == cid
    assert payload["tournament"] == "Piala Gardu" and payload["player_id"] == ayu.player_id
    assert await notices(app, outsider.player_id) == []
    refused(
        await api.post(f"/api/tournaments/{tid}/entries", headers=outsider.headers),
        403,
        "not_club_member",
    )
    for player in (ayu, *members):
        entered = await api.post(f"/api/tournaments/{tid}/entries", headers=player.headers)
        assert entered.status_code == 201, entered.text
    assert (await club(api, cid))["events"][0]["id"] == tid
    started = await api.post(f"/api/tournaments/{tid}/start", headers=ayu.headers)
    assert started.status_code == 200, started.text
    for player in (ayu, *members):
        kinds = [k for k, _ in await notices(app, player.player_id)]
        assert kinds.count("club_tournament_started") == 1
    assert await notices(app, outsider.player_id) == []


async def test_a_battle_entry_names_its_club_when_it_must(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    org = await account(api, make_guest, "Org")
    a, b = await account(api, make_guest, "LeadA"), await account(api, make_guest, "LeadB")
    both, outsider = await account(api, make_guest, "Dua"), await account(api, make_guest, "Luar")
    ca, cb = (await found(api, a, "Gardu A"))["id"], (await found(api, b, "Gardu B"))["id"]
    third = (await found(api, outsider, "Gardu C"))["id"]
    for cid in (ca, cb):
        await join(api, cid, both)
    bad = swiss(club_battle={"clubs": [ca, ca], "best": 2})
    refused(await api.post("/api/tournaments", json=bad, headers=org.headers), 422, "invalid")
    bad = swiss(club_id=ca, club_battle={"clubs": [ca, cb], "best": 2})
    refused(await api.post("/api/tournaments", json=bad, headers=org.headers), 422, "invalid")
    bad = swiss(club_battle={"clubs": [ca, 999], "best": 2})
    refused(
        await api.post("/api/tournaments", json=bad, headers=org.headers), 404, "club_not_found"
    )
    made = await api.post(
        "/api/tournaments",
        json=swiss(club_battle={"clubs": [ca, cb], "best": 2}),
        headers=org.headers,
    )
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    assert made.json()["club_battle"] == {
        "clubs": [{"id": ca, "name": "Gardu A"}, {"id": cb, "name": "Gardu B"}],
        "best": 2,
    }
    # Members of both listed clubs are told; the third club's are not.
    assert [k for k, _ in await notices(app, both.player_id)] == ["club_tournament"]
    assert await notices(app, outsider.player_id) == []
    entries = f"/api/tournaments/{tid}/entries"
    refused(await api.post(entries, headers=outsider.headers), 403, "not_club_member")
    named = await api.post(entries, json={"club_id": third}, headers=outsider.headers)
    refused(named, 422, "invalid")
    assert (
        refused(await api.post(entries, headers=both.headers), 422, "invalid")["field"] == "club_id"
    )
    entered = await api.post(entries, json={"club_id": cb}, headers=both.headers)
    assert entered.status_code == 201 and entered.json()["entrant"]["club"]["id"] == cb
    entered = await api.post(entries, headers=a.headers)
    assert entered.status_code == 201 and entered.json()["entrant"]["club"]["id"] == ca
    assert (await club(api, cb))["events"][0] == {
        "id": tid,
        "name": "Piala Gardu",
        "format": "swiss",
        "mode": "tunggal",
        "status": "registering",
        "starts_at": made.json()["starts_at"],
        "battle": True,
    }


# --- a team battle played to its end ------------------------------------------------------------


async def play_out(app: Any, clock: FakeClock, tid: int, *, limit: int = 6000) -> None:
    """Run the clock until the tournament is over: every table's timers, the runner's work."""
    manager: TableManager = app.state.live
    runner: TournamentRunner = app.state.tournaments
    for _ in range(limit):
        clock.advance(1.0)
        for table in list(manager.tables.values()):
            await table.settle()
        await runner.idle()
        async with app.state.db.session() as session:
            status = await session.scalar(select(Tournament.status).where(Tournament.id == tid))
        if status in ("finished", "cancelled"):
            return
    raise AssertionError("the tournament did not end")


async def test_a_team_battle_ranks_clubs_by_their_best_entrants_stored_points(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest, clock: FakeClock
) -> None:
    org = await account(api, make_guest, "Org")
    leaders = [await account(api, make_guest, f"Lead{n}") for n in range(3)]
    ids = [(await found(api, lead, f"Gardu {n}"))["id"] for n, lead in enumerate(leaders)]
    made = await api.post(
        "/api/tournaments",
        json=swiss(club_battle={"clubs": ids, "best": 2}, max_entrants=16),
        headers=org.headers,
    )
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    assert made.json()["club_standings"] == []
    # 3, 3 and 2 entrants: the last club counts all it has.
    sizes = [3, 3, 2]
    for n, (cid, lead, size) in enumerate(zip(ids, leaders, sizes, strict=True)):
        players = [lead] + [await account(api, make_guest, f"C{n}P{k}") for k in range(size - 1)]
        for player in players:
            if player is not lead:
                await join(api, cid, player)
            entered = await api.post(f"/api/tournaments/{tid}/entries", headers=player.headers)
            assert entered.status_code == 201, entered.text
    started = await api.post(f"/api/tournaments/{tid}/start", headers=org.headers)
    assert started.status_code == 200, started.text
    await play_out(app, clock, tid)
    body = (await api.get(f"/api/tournaments/{tid}")).json()
    assert body["status"] == "finished"
    # The documented sum, recomputed from the stored results: each entrant's points (their
    # table points and byes, as the standings give them), then each club's best two.
    points = {s["entrant"]: Fraction(s["points"]) for s in body["standings"]}
    rank = {s["entrant"]: s["rank"] for s in body["standings"]}
    club_of = {e["id"]: e["club"]["id"] for e in body["entrants"]}
    expected = {}
    for cid in ids:
        mine = sorted((e for e in club_of if club_of[e] == cid), key=lambda e: rank[e])
        expected[cid] = (sum((points[e] for e in mine[:2]), Fraction(0)), mine[:2])
    ranked = body["club_standings"]
    assert [c["rank"] for c in ranked] == [1, 2, 3]
    for row in ranked:
        total, counted = expected[row["club"]["id"]]
        assert Fraction(row["points"]) == total
        assert row["counted"] == counted
    assert [Fraction(c["points"]) for c in ranked] == sorted(
        (t for t, _ in expected.values()), reverse=True
    )
    assert sum(points.values()) > 0
    # Every entrant's points are the stored results': the table points of every table they
    # sat at and the byes (the standings' own check is tests/app/live/test_tournaments.py).
    from_tables: dict[int, Fraction] = dict.fromkeys(points, Fraction(0))
    for r in body["rounds"]:
        for t in r["tables"]:
            for entrant, award in zip(t["entrants"], t["result"]["points"], strict=True):
                from_tables[entrant] += Fraction(award)
        for e in r["byes"]:
            from_tables[e] += Fraction(body["scoring"]["bye_points"])
    assert from_tables == points


# --- races --------------------------------------------------------------------------------------


async def test_joins_at_once_never_pass_the_limit(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    leaders = [await account(api, make_guest, f"L{n}") for n in range(6)]
    ids = [(await found(api, lead, f"Gardu {n}"))["id"] for n, lead in enumerate(leaders)]
    budi = await account(api, make_guest, "Budi")
    answers = await asyncio.gather(*(join(api, cid, budi) for cid in ids))
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] * 3 + [409] * 3, [a.text for a in answers]
    assert all(a.json()["error"]["code"] == "club_limit" for a in answers if a.status_code == 409)
    profile = (await api.get(f"/api/players/{budi.player_id}")).json()
    assert len(profile["clubs"]) == 3


async def test_two_leaders_answering_one_request_at_once_make_one_member(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, cici = [await account(api, make_guest, n) for n in ("Ayu", "Budi", "Cici")]
    cid = (await found(api, ayu, open=False))["id"]
    await join(api, cid, budi)
    await api.post(f"/api/clubs/{cid}/requests/{budi.player_id}/accept", headers=ayu.headers)
    await api.post(
        f"/api/clubs/{cid}/leaders", json={"player_id": budi.player_id}, headers=ayu.headers
    )
    await join(api, cid, cici)
    base = f"/api/clubs/{cid}/requests/{cici.player_id}"
    answers = await asyncio.gather(
        api.post(f"{base}/accept", headers=ayu.headers),
        api.post(f"{base}/decline", headers=budi.headers),
    )
    assert sorted(a.status_code for a in answers) == [200, 404], [a.text for a in answers]
    member = cici.player_id in roles(await club(api, cid))
    accepted = next(a for a in answers if a.status_code == 200).url.path.endswith("accept")
    assert member == accepted
    assert await count(app, ClubRequest) == 0
