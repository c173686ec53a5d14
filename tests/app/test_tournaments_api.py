"""Tournaments over REST on both databases: creating (every bad field refused, nothing stored),
the list and its cursor, entries (Tunggal, Ganda with the partner's confirmation), withdrawing,
the organizer's start and cancel, the body of GET, entries racing for the last places, floods."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import event, func, select

from app.main import create_app
from app.settings import Settings
from app.store import tournaments as store
from app.store.models import Tournament, TournamentEntry, TournamentRound, TournamentTable
from app.tournaments.formats import BYE_POINTS, PLACE_POINTS, TIEBREAKS
from tests.conftest import Guest

MakeGuest = Callable[..., Awaitable[Guest]]
PASSWORD = "kartu-balak-66"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """Guests and tournaments unthrottled: these tests make many from one address (the flood
    test below sets its own budget)."""
    return settings.model_copy(
        update={
            "rate_guests": "1000/minute",
            "rate_tournaments": "1000/minute",
            "rate_tournament_entries": "1000/minute",
        }
    )


def soon(hours: int = 24) -> str:
    return (datetime.now(UTC) + timedelta(hours=hours)).isoformat()


def swiss(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "Piala Desa",
        "format": "swiss",
        "mode": "tunggal",
        "rounds": 5,
        "settings": {"preset": "pordi", "turn_seconds": 30},
        "starts_at": soon(),
        "min_entrants": 4,
        "max_entrants": 16,
        "rated": True,
        "public": True,
    }
    body.update(changes)
    return body


async def organizer(api: httpx.AsyncClient, make_guest: MakeGuest, name: str = "Org") -> Guest:
    """A guest who saved an account: only accounts organize."""
    guest = await make_guest(name)
    saved = await api.post(
        "/api/accounts",
        json={"username": name.lower() + "_org", "password": PASSWORD},
        headers=guest.headers,
    )
    assert saved.status_code == 201, saved.text
    return guest


async def create(api: httpx.AsyncClient, org: Guest, **changes: Any) -> dict[str, Any]:
    response = await api.post("/api/tournaments", json=swiss(**changes), headers=org.headers)
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def enter(
    api: httpx.AsyncClient, tid: int, guest: Guest, partner: Guest | None = None
) -> httpx.Response:
    body = {"partner_id": partner.player_id} if partner else {}
    return await api.post(f"/api/tournaments/{tid}/entries", json=body, headers=guest.headers)


async def get(api: httpx.AsyncClient, tid: int) -> dict[str, Any]:
    response = await api.get(f"/api/tournaments/{tid}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def refused(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    return error


async def rows(app: Any, model: Any) -> int:
    async with app.state.db.session() as session:
        return int((await session.execute(select(func.count()).select_from(model))).scalar_one())


async def stored(app: Any) -> tuple[int, ...]:
    return tuple(
        [
            await rows(app, model)
            for model in (Tournament, TournamentEntry, TournamentRound, TournamentTable)
        ]
    )


# --- creating -----------------------------------------------------------------------------------

PAST = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
BAD_BODIES: list[tuple[str, dict[str, Any], str]] = [
    ("short name", {"name": "ab"}, "name"),
    ("blank name", {"name": "   "}, "name"),
    ("long name", {"name": "x" * 61}, "name"),
    ("control char", {"name": "Piala\x07"}, "name"),
    ("name not text", {"name": 7}, "name"),
    ("format", {"format": "round_robin"}, "format"),
    ("mode", {"mode": "trio"}, "mode"),
    ("no rounds", {"rounds": None}, "rounds"),
    ("rounds 0", {"rounds": 0}, "rounds"),
    ("rounds 16", {"rounds": 16}, "rounds"),
    ("knockout rounds", {"format": "knockout", "rounds": 3}, "rounds"),
    ("swiss bracket", {"bracket_settings": {"target_points": 11}}, "bracket_settings"),
    ("past start", {"starts_at": PAST}, "starts_at"),
    ("naive start", {"starts_at": "2999-01-01T10:00:00"}, "starts_at"),
    ("start not a time", {"starts_at": "tomorrow"}, "starts_at"),
    ("max 3", {"max_entrants": 3}, "max_entrants"),
    ("max 1025", {"max_entrants": 1025}, "max_entrants"),
    ("min over max", {"min_entrants": 17}, "min_entrants"),
    ("min below a table", {"min_entrants": 3}, "min_entrants"),
    ("min 1", {"min_entrants": 1}, "min_entrants"),
    ("turn seconds", {"settings": {"turn_seconds": 20}}, "settings.turn_seconds"),
    ("settings mode", {"settings": {"mode": "ganda"}}, "settings.mode"),
    ("target range", {"settings": {"target_points": 100}}, "settings.target_points"),
    ("klasik option in pordi", {"settings": {"stuck": "pass"}}, "settings.stuck"),
    (
        "five seats",
        {"settings": {"preset": "klasik", "players": 5}},
        "settings.players",
    ),
    (
        "klasik ganda",
        {"mode": "ganda", "settings": {"preset": "klasik"}},
        "settings.mode",
    ),
    (
        "bracket target",
        {"format": "knockout", "rounds": None, "bracket_settings": {"target_points": 0}},
        "bracket_settings.target_points",
    ),
    ("unknown field", {"prize": 100}, "prize"),
    ("rated not bool", {"rated": "yes"}, "rated"),
]


@pytest.mark.parametrize(("case", "changes", "field"), BAD_BODIES, ids=[c for c, *_ in BAD_BODIES])
async def test_every_bad_field_is_refused_and_nothing_is_stored(
    api: httpx.AsyncClient,
    app: Any,
    make_guest: MakeGuest,
    case: str,
    changes: dict[str, Any],
    field: str,
) -> None:
    org = await organizer(api, make_guest)
    response = await api.post("/api/tournaments", json=swiss(**changes), headers=org.headers)
    error = refused(response, 422, "invalid")
    assert error["field"] == field, (case, error)
    assert await stored(app) == (0, 0, 0, 0)


async def test_a_guest_cannot_organize_and_a_stranger_must_sign_in(
    api: httpx.AsyncClient, app: Any, make_guest: MakeGuest
) -> None:
    guest = await make_guest("Ayu")
    refused(
        await api.post("/api/tournaments", json=swiss(), headers=guest.headers),
        403,
        "account_required",
    )
    refused(await api.post("/api/tournaments", json=swiss()), 401, "unauthorized")
    assert await stored(app) == (0, 0, 0, 0)


async def test_the_body_of_a_new_tournament(api: httpx.AsyncClient, make_guest: MakeGuest) -> None:
    org = await organizer(api, make_guest)
    made = await create(api, org)
    assert made == await get(api, made["id"])
    assert set(made) == {
        *("id", "name", "format", "mode", "status", "starts_at", "created_at", "organizer"),
        *("settings", "bracket_settings", "round_count", "min_entrants", "max_entrants"),
        *("rated", "public", "entries_open", "entrants", "pools", "rounds", "standings"),
        "scoring",
        *("club", "club_battle", "club_standings"),
    }
    assert (made["club"], made["club_battle"], made["club_standings"]) == (None, None, [])
    assert made["name"] == "Piala Desa" and made["status"] == "registering"
    assert (made["format"], made["mode"], made["round_count"]) == ("swiss", "tunggal", 5)
    assert made["organizer"] == {"player_id": org.player_id, "name": "Org"}
    # Room settings with the preset's defaults, in the tournament's mode; its tables are rated
    # as it is and never listed in the lobby.
    assert made["settings"]["preset"] == "pordi" and made["settings"]["turn_seconds"] == 30
    assert made["settings"]["deals_per_set"] == 7
    assert (made["settings"]["mode"], made["settings"]["rated"]) == ("tunggal", True)
    assert made["settings"]["public"] is False
    assert made["entries_open"] is True
    assert (made["entrants"], made["rounds"], made["standings"], made["pools"]) == (
        [],
        [],
        [],
        None,
    )
    assert made["scoring"] == {
        "place_points": list(PLACE_POINTS["tunggal"]),
        "bye_points": float(BYE_POINTS["tunggal"]),
        "tiebreaks": list(TIEBREAKS),
    }
    assert datetime.fromisoformat(made["starts_at"]) > datetime.now(UTC)


async def test_a_knockout_takes_bracket_settings(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    made = await create(
        api,
        org,
        format="knockout",
        mode="ganda",
        rounds=None,
        min_entrants=2,
        settings={},
        bracket_settings={"target_points": 11},
    )
    assert made["round_count"] is None
    assert made["settings"]["mode"] == "ganda" and made["settings"]["target_points"] == 7
    assert made["bracket_settings"]["target_points"] == 11
    assert made["scoring"]["place_points"] == [2, 0] and made["scoring"]["bye_points"] == 1


async def test_unknown_tournaments(api: httpx.AsyncClient, make_guest: MakeGuest) -> None:
    guest = await make_guest("Ayu")
    refused(await api.get("/api/tournaments/999"), 404, "tournament_not_found")
    refused(await enter(api, 999, guest), 404, "tournament_not_found")
    refused(await api.get("/api/tournaments/abc"), 422, "invalid")


# --- the list -----------------------------------------------------------------------------------


async def test_the_list_filters_by_status_and_pages_with_a_cursor(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    later = [await create(api, org, name=f"Piala {n}", starts_at=soon(10 - n)) for n in range(3)]
    hidden = await create(api, org, name="Private", public=False)
    running = await create(api, org, name="Running", min_entrants=4)
    players = [await make_guest(f"P{n}") for n in range(4)]
    for guest in players:
        assert (await enter(api, running["id"], guest)).status_code == 201
    started = await api.post(f"/api/tournaments/{running['id']}/start", headers=org.headers)
    assert started.status_code == 200, started.text
    called_off = await create(api, org, name="Called off")
    cancel = await api.post(f"/api/tournaments/{called_off['id']}/cancel", headers=org.headers)
    assert cancel.status_code == 200, cancel.text

    async def names(query: str) -> list[str]:
        response = await api.get(f"/api/tournaments{query}")
        assert response.status_code == 200, response.text
        return [t["name"] for t in response.json()["tournaments"]]

    # Upcoming: soonest first, the private one left out.
    assert await names("?status=upcoming") == ["Piala 2", "Piala 1", "Piala 0"]
    assert await names("?status=running") == ["Running"]
    assert await names("?status=cancelled") == ["Called off"]
    assert await names("?status=finished") == []
    everything = await names("")
    assert set(everything) == {"Piala 0", "Piala 1", "Piala 2", "Running", "Called off"}
    assert hidden["name"] not in everything
    # Pages of one, cursor to cursor, give the same list.
    paged: list[str] = []
    cursor = None
    while True:
        query = "?status=upcoming&limit=1" + (f"&cursor={cursor}" if cursor else "")
        page = (await api.get(f"/api/tournaments{query}")).json()
        paged.extend(t["name"] for t in page["tournaments"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert paged == ["Piala 2", "Piala 1", "Piala 0"]
    summary = (await api.get("/api/tournaments?status=running")).json()["tournaments"][0]
    assert summary == {
        "id": running["id"],
        "name": "Running",
        "format": "swiss",
        "mode": "tunggal",
        "status": "running",
        "starts_at": summary["starts_at"],
        "organizer": {"player_id": org.player_id, "name": "Org"},
        "entries": 4,
        "max_entrants": 16,
        "rated": True,
    }
    assert later[0]["id"] != later[1]["id"]
    refused(await api.get("/api/tournaments?cursor=nonsense"), 422, "invalid")
    refused(await api.get("/api/tournaments?status=soon"), 422, "invalid")
    refused(await api.get("/api/tournaments?limit=0"), 422, "invalid")


# --- entries ------------------------------------------------------------------------------------


async def test_tunggal_entries_duplicates_full_and_withdrawing(
    api: httpx.AsyncClient, app: Any, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    tid = (await create(api, org, max_entrants=4))["id"]
    players = [await make_guest(f"P{n}") for n in range(5)]
    first = await enter(api, tid, players[0])
    assert first.status_code == 201, first.text
    entry = first.json()
    assert entry["tournament_id"] == tid
    assert entry["entrant"] == {
        "id": entry["entrant"]["id"],
        "player": {"player_id": players[0].player_id, "name": "P0"},
        "partner": None,
        "partner_confirmed": False,
        "withdrawn": False,
        "club": None,
    }
    refused(await enter(api, tid, players[0]), 409, "already_entered")
    refused(await enter(api, tid, players[1], players[2]), 422, "invalid")  # no partner in Tunggal
    bare = await api.post(f"/api/tournaments/{tid}/entries", headers=players[1].headers)
    assert bare.status_code == 201, bare.text  # no body at all is a Tunggal entry too
    for guest in players[2:4]:
        assert (await enter(api, tid, guest)).status_code == 201
    before = await stored(app)
    refused(await enter(api, tid, players[4]), 409, "tournament_full")
    assert await stored(app) == before
    # Withdrawing before the start frees the place.
    gone = await api.delete(f"/api/tournaments/{tid}/entries/me", headers=players[0].headers)
    assert gone.status_code == 204, gone.text
    refused(
        await api.delete(f"/api/tournaments/{tid}/entries/me", headers=players[0].headers),
        409,
        "not_entered",
    )
    assert (await enter(api, tid, players[4])).status_code == 201
    body = await get(api, tid)
    assert [e["player"]["name"] for e in body["entrants"]] == ["P1", "P2", "P3", "P4"]


async def test_a_ganda_pair_enters_and_the_partner_confirms(
    api: httpx.AsyncClient, app: Any, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    tid = (await create(api, org, mode="ganda", min_entrants=2, settings={}))["id"]
    ayu, budi, citra, dewi, eko = [
        await make_guest(n) for n in ("Ayu", "Budi", "Citra", "Dewi", "Eko")
    ]
    refused(await enter(api, tid, ayu), 422, "invalid")  # a pair needs its partner
    refused(await enter(api, tid, ayu, ayu), 422, "invalid")
    nobody = await api.post(
        f"/api/tournaments/{tid}/entries", json={"partner_id": "0" * 32}, headers=ayu.headers
    )
    assert refused(nobody, 422, "invalid")["field"] == "partner_id"
    made = await enter(api, tid, ayu, budi)
    assert made.status_code == 201, made.text
    entrant = made.json()["entrant"]
    assert entrant["partner"] == {"player_id": budi.player_id, "name": "Budi"}
    assert entrant["partner_confirmed"] is False
    # Budi already holds a place, as Ayu's partner: neither enters again, nor does anyone name them.
    refused(await enter(api, tid, budi, citra), 409, "already_entered")
    refused(await enter(api, tid, citra, budi), 409, "partner_entered")
    refused(await enter(api, tid, citra, ayu), 409, "partner_entered")
    confirm = f"/api/tournaments/{tid}/entries/{entrant['id']}/confirm"
    refused(await api.post(confirm, headers=citra.headers), 403, "not_partner")
    refused(await api.post(confirm, headers=ayu.headers), 403, "not_partner")
    refused(
        await api.post(f"/api/tournaments/{tid}/entries/99999/confirm", headers=budi.headers),
        404,
        "entry_not_found",
    )
    confirmed = await api.post(confirm, headers=budi.headers)
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["entrant"]["partner_confirmed"] is True
    assert (await api.post(confirm, headers=budi.headers)).status_code == 200  # again: the same
    # A second pair; its partner never confirms, so it is not an entrant when the start comes.
    assert (await enter(api, tid, citra, dewi)).status_code == 201
    refused(
        await api.post(f"/api/tournaments/{tid}/start", headers=org.headers),
        409,
        "too_few_entrants",
    )
    third = await enter(api, tid, eko, org)
    confirm_third = f"/api/tournaments/{tid}/entries/{third.json()['entrant']['id']}/confirm"
    assert (await api.post(confirm_third, headers=org.headers)).status_code == 200
    started = await api.post(f"/api/tournaments/{tid}/start", headers=org.headers)
    assert started.status_code == 200, started.text
    body = started.json()
    pairs = [e["id"] for e in body["entrants"]]
    assert len(pairs) == 2  # Citra and Dewi's unconfirmed entry went at the start
    assert body["rounds"][0]["tables"][0]["entrants"] in (pairs, pairs[::-1])
    assert body["rounds"][0]["byes"] == []


async def test_the_partner_can_decline_by_withdrawing(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    tid = (await create(api, org, mode="ganda", min_entrants=2, settings={}))["id"]
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    assert (await enter(api, tid, ayu, budi)).status_code == 201
    gone = await api.delete(f"/api/tournaments/{tid}/entries/me", headers=budi.headers)
    assert gone.status_code == 204, gone.text
    assert (await get(api, tid))["entrants"] == []


# --- start, late join, withdrawing while running, cancel ----------------------------------------


async def test_the_organizer_starts_with_enough_entrants_and_round_one_is_stored(
    api: httpx.AsyncClient, app: Any, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    tid = (await create(api, org, min_entrants=6, rounds=5))["id"]
    players = [await make_guest(f"P{n}") for n in range(8)]
    for guest in players[:5]:
        assert (await enter(api, tid, guest)).status_code == 201
    start = f"/api/tournaments/{tid}/start"
    refused(await api.post(start, headers=players[0].headers), 403, "not_organizer")
    before = await stored(app)
    refused(await api.post(start, headers=org.headers), 409, "too_few_entrants")
    assert await stored(app) == before and (await get(api, tid))["status"] == "registering"
    assert (await enter(api, tid, players[5])).status_code == 201
    started = await api.post(start, headers=org.headers)
    assert started.status_code == 200, started.text
    body = started.json()
    assert body["status"] == "running"
    ids = [e["id"] for e in body["entrants"]]
    [round_one] = body["rounds"]
    assert (round_one["number"], round_one["status"], round_one["stage"]) == (1, "playing", "swiss")
    [table] = round_one["tables"]
    assert (table["number"], table["result"]) == (1, None)
    # Its room is made, every entrant seated, its set started (tests/app/live/test_tournaments.py)
    room = (await api.get(f"/api/rooms/{table['code']}")).json()
    assert room["status"] == "playing"
    # The room says whose table it is; the table names the set its room plays (the replay's).
    assert room["tournament"] == {"id": tid, "round": 1, "name": body["name"]}
    assert isinstance(table["set_id"], int)
    assert (await api.get(f"/api/sets/{table['set_id']}")).json()["room"]["code"] == table["code"]
    assert [s["player_id"] for s in table["seats"]] == [s["player_id"] for s in room["seats"]]
    # Six players: one table of four and the fewest byes, two; everyone exactly once.
    assert len(table["entrants"]) == 4 and len(round_one["byes"]) == 2
    assert sorted(table["entrants"] + round_one["byes"]) == sorted(ids)
    # Standings from the stored round: the byes have scored theirs already.
    standings = body["standings"]
    assert [s["rank"] for s in standings] == [1, 2, 3, 4, 5, 6]
    assert {s["entrant"] for s in standings} == set(ids)
    points = {s["entrant"]: s["points"] for s in standings}
    assert all(points[e] == 1.5 for e in round_one["byes"])
    assert all(points[e] == 0 for e in table["entrants"])
    assert standings[0]["tiebreaks"] == {"deal_points": 0, "buchholz": 0}
    assert body == await get(api, tid)
    refused(await api.post(start, headers=org.headers), 409, "tournament_started")
    # A Swiss of five rounds takes late entries while fewer than half have started.
    assert body["entries_open"] is True
    late = await enter(api, tid, players[6])
    assert late.status_code == 201, late.text
    # Withdrawing now keeps the entry, marked: it forfeits the rounds left.
    gone = await api.delete(f"/api/tournaments/{tid}/entries/me", headers=players[0].headers)
    assert gone.status_code == 204
    after = await get(api, tid)
    mine = next(e for e in after["entrants"] if e["player"]["player_id"] == players[0].player_id)
    assert mine["withdrawn"] is True
    assert mine["id"] in {s["entrant"] for s in after["standings"]}
    refused(
        await api.delete(f"/api/tournaments/{tid}/entries/me", headers=players[0].headers),
        409,
        "not_entered",
    )
    refused(await enter(api, tid, players[0]), 409, "already_entered")


async def test_a_running_knockout_or_short_swiss_takes_no_late_entry(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    knockout = (await create(api, org, format="knockout", rounds=None, min_entrants=4))["id"]
    short = (await create(api, org, rounds=2, min_entrants=4))["id"]
    players = [await make_guest(f"P{n}") for n in range(13)]
    for guest in players[:12]:
        assert (await enter(api, knockout, guest)).status_code == 201
    for guest in players[:4]:
        assert (await enter(api, short, guest)).status_code == 201
    for tid in (knockout, short):
        started = await api.post(f"/api/tournaments/{tid}/start", headers=org.headers)
        assert started.status_code == 200, started.text
        assert started.json()["entries_open"] is False
        refused(await enter(api, tid, players[12]), 409, "tournament_closed")
    body = await get(api, knockout)
    # Twelve players: two pools of six, drawn in a snake by rating, each playing its first
    # round (one table of four and two byes a pool).
    assert [p["name"] for p in body["pools"]] == ["A", "B"]
    assert sorted(len(p["members"]) for p in body["pools"]) == [6, 6]
    [round_one] = body["rounds"]
    assert len(round_one["tables"]) == 2 and len(round_one["byes"]) == 4
    assert round_one["stage"] == "pool"


async def test_four_entrants_of_a_knockout_play_the_final_at_once(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    tid = (await create(api, org, format="knockout", rounds=None, min_entrants=4))["id"]
    for n in range(4):
        assert (await enter(api, tid, await make_guest(f"P{n}"))).status_code == 201
    body = (await api.post(f"/api/tournaments/{tid}/start", headers=org.headers)).json()
    assert body["pools"] == []
    assert len(body["rounds"][0]["tables"]) == 1 and body["rounds"][0]["byes"] == []
    # No pools: the one round is the bracket's (its final).
    assert body["rounds"][0]["stage"] == "bracket"


async def test_the_organizer_cancels(
    api: httpx.AsyncClient, app: Any, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    tid = (await create(api, org))["id"]
    ayu = await make_guest("Ayu")
    assert (await enter(api, tid, ayu)).status_code == 201
    cancel = f"/api/tournaments/{tid}/cancel"
    refused(await api.post(cancel, headers=ayu.headers), 403, "not_organizer")
    done = await api.post(cancel, headers=org.headers)
    assert done.status_code == 200 and done.json()["status"] == "cancelled"
    assert done.json()["entries_open"] is False
    before = await stored(app)
    refused(await api.post(cancel, headers=org.headers), 409, "tournament_over")
    refused(
        await api.post(f"/api/tournaments/{tid}/start", headers=org.headers), 409, "tournament_over"
    )
    refused(await enter(api, tid, await make_guest("Budi")), 409, "tournament_over")
    refused(
        await api.delete(f"/api/tournaments/{tid}/entries/me", headers=ayu.headers),
        409,
        "tournament_over",
    )
    assert await stored(app) == before


# --- races and floods ---------------------------------------------------------------------------


async def test_entries_at_once_never_exceed_max_entrants(
    api: httpx.AsyncClient, app: Any, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    tid = (await create(api, org, max_entrants=5))["id"]
    guests = [await make_guest(f"P{n}") for n in range(12)]
    answers = await asyncio.gather(*(enter(api, tid, guest) for guest in guests))
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [201] * 5 + [409] * 7, [a.text for a in answers]
    assert all(
        a.json()["error"]["code"] == "tournament_full" for a in answers if a.status_code == 409
    )
    assert len((await get(api, tid))["entrants"]) == 5
    assert await rows(app, TournamentEntry) == 5


async def test_a_flood_of_tournaments_or_entries_is_answered_429(settings: Settings) -> None:
    limited = settings.model_copy(
        update={"rate_tournament_entries": "3/minute", "rate_tournaments": "1/minute"}
    )
    app = create_app(limited)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as api:
            guest = Guest(**(await api.post("/api/guests", json={"name": "Org"})).json())
            saved = await api.post(
                "/api/accounts",
                json={"username": "org_flood", "password": PASSWORD},
                headers=guest.headers,
            )
            assert saved.status_code == 201
            tid = (await create(api, guest))["id"]
            again = await api.post("/api/tournaments", json=swiss(), headers=guest.headers)
            refused(again, 429, "rate_limited")
            assert (await api.get("/api/tournaments")).json()["next_cursor"] is None
            assert len((await api.get("/api/tournaments")).json()["tournaments"]) == 1
            made = [await api.post("/api/guests", json={"name": f"P{n}"}) for n in range(4)]
            players = [Guest(**m.json()) for m in made]
            for player in players[:3]:
                assert (await enter(api, tid, player)).status_code == 201
            flooded = await enter(api, tid, players[3])
            refused(flooded, 429, "rate_limited")
            assert int(flooded.headers["Retry-After"]) >= 1
            assert len((await get(api, tid))["entrants"]) == 3


async def test_every_refusal_is_documented_for_its_operation(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    spec = (await api.get("/openapi.json")).json()
    org = await organizer(api, make_guest)
    guest, other = await make_guest("Ayu"), await make_guest("Budi")
    tid = (await create(api, org, max_entrants=4, min_entrants=4))["id"]
    base = "/api/tournaments/{tournament_id}"
    answers = [
        ("/api/tournaments", "post", await api.post("/api/tournaments", json=swiss())),
        (
            "/api/tournaments",
            "post",
            await api.post("/api/tournaments", json={}, headers=org.headers),
        ),
        (
            "/api/tournaments",
            "post",
            await api.post("/api/tournaments", json=swiss(), headers=guest.headers),
        ),
        ("/api/tournaments", "get", await api.get("/api/tournaments?cursor=x")),
        (base, "get", await api.get("/api/tournaments/999")),
        (f"{base}/entries", "post", await enter(api, tid, guest)),
        (f"{base}/entries", "post", await enter(api, tid, guest)),
        (f"{base}/entries", "post", await enter(api, tid, guest, other)),
        (f"{base}/entries", "post", await enter(api, 999, other)),
        (
            f"{base}/entries/{{entry_id}}/confirm",
            "post",
            await api.post(f"/api/tournaments/{tid}/entries/1/confirm", headers=other.headers),
        ),
        (
            f"{base}/entries/me",
            "delete",
            await api.delete(f"/api/tournaments/{tid}/entries/me", headers=other.headers),
        ),
        (
            f"{base}/start",
            "post",
            await api.post(f"/api/tournaments/{tid}/start", headers=guest.headers),
        ),
        (
            f"{base}/start",
            "post",
            await api.post(f"/api/tournaments/{tid}/start", headers=org.headers),
        ),
        (
            f"{base}/cancel",
            "post",
            await api.post(f"/api/tournaments/{tid}/cancel", headers=guest.headers),
        ),
    ]
    seen = set()
    for path, method, response in answers:
        status = str(response.status_code)
        if response.status_code < 400:  # the entry that the next calls run into
            continue
        assert status in spec["paths"][path][method]["responses"], (path, method, status)
        assert (
            response.json()["error"]["code"] in spec["components"]["schemas"]["ErrorCode"]["enum"]
        )
        seen.add(response.status_code)
    assert seen == {401, 403, 404, 409, 422}


async def test_standings_follow_the_stored_results(
    api: httpx.AsyncClient, app: Any, make_guest: MakeGuest
) -> None:
    org = await organizer(api, make_guest)
    tid = (await create(api, org, min_entrants=4))["id"]
    for n in range(5):
        assert (await enter(api, tid, await make_guest(f"P{n}"))).status_code == 201
    body = (await api.post(f"/api/tournaments/{tid}/start", headers=org.headers)).json()
    [round_one] = body["rounds"]
    seated = round_one["tables"][0]["entrants"]
    [bye] = round_one["byes"]
    # The table's set ended with the second and third tied (what the next step will store).
    async with app.state.db.session() as session, session.begin():
        table = await session.get(TournamentTable, (tid, 1, 1))
        assert table is not None
        table.result = {"places": [1, 2, 2, 4], "deal_points": [30, 12, 12, -5]}
    after = await get(api, tid)
    assert after["rounds"][0]["tables"][0]["result"] == {
        "places": [1, 2, 2, 4],
        "deal_points": [30, 12, 12, -5],
        "points": [3, 1.5, 1.5, 0],
    }
    ranked = [
        (s["entrant"], s["points"], s["tiebreaks"]["deal_points"]) for s in after["standings"]
    ]
    # 3 for the winner; the shared seconds score 3/2 each like the bye, and rank above it on
    # deal points (12 against none); the last is last.
    assert ranked[0] == (seated[0], 3, 30)
    assert {ranked[1][0], ranked[2][0]} == {seated[1], seated[2]}
    assert ranked[1][1:] == ranked[2][1:] == (1.5, 12)
    assert ranked[3] == (bye, 1.5, 0)
    assert ranked[4] == (seated[3], 0, -5)
    # Buchholz: the opponents' points at the table (a bye adds none).
    buchholz = {s["entrant"]: s["tiebreaks"]["buchholz"] for s in after["standings"]}
    assert buchholz[seated[0]] == 3 and buchholz[seated[3]] == 6 and buchholz[bye] == 0


async def test_a_rounds_tables_open_in_the_same_statements_however_many(
    api: httpx.AsyncClient, app: Any, make_guest: MakeGuest
) -> None:
    """From the start to every table's first deal in play: the rooms, seats and sets made,
    every table opened, its room read, its set and deal written. A round of twelve tables costs
    the statements of a round of two, give or take a batch (docs/PERFORMANCE.md)."""
    org = await organizer(api, make_guest)
    guests = [await make_guest(f"P{n}") for n in range(56)]
    db = app.state.db
    counts = []
    statements: list[str] = []

    def seen(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        statements.append(statement)

    for size in (8, 48):
        tid = (await create(api, org, max_entrants=size, rated=False))["id"]
        for guest in guests[:size]:
            assert (await enter(api, tid, guest)).status_code == 201
        guests = guests[size:] + guests[:size]  # nobody sits at two tables at once
        statements.clear()
        engines = {id(e): e for e in (db.engine, db.history_engine)}.values()
        for engine in engines:
            event.listen(engine.sync_engine, "before_cursor_execute", seen)
        try:
            started = await api.post(f"/api/tournaments/{tid}/start", headers=org.headers)
            assert started.status_code == 200, started.text
            codes = {t["code"] for t in started.json()["rounds"][0]["tables"]}
            assert len(codes) == size // 4
            for _ in range(500):
                dealt = [
                    t for t in app.state.live.tables.values()
                    if t.room.code in codes and t.core.deal_id is not None
                ]  # fmt: skip
                if len(dealt) == len(codes):
                    break
                await asyncio.sleep(0.02)
            assert len(dealt) == len(codes)
            await app.state.tournaments.idle()
        finally:
            for engine in engines:
                event.remove(engine.sync_engine, "before_cursor_execute", seen)
        # SQLite runs the sets' and deals' INSERT ... RETURNING a row at a time (in process:
        # SQLAlchemy keeps their ids in order so); PostgreSQL sends each as one statement.
        row_at_a_time = ("INSERT INTO game_sets", "INSERT INTO deals")
        if db.engine.dialect.name == "sqlite":
            statements[:] = [s for s in statements if not s.startswith(row_at_a_time)]
        counts.append(len(statements))
    small, big = counts
    # Ten tables more: fewer statements than two a table (a batch more or less), where every
    # table took 29 of its own.
    assert big - small < 20, counts


async def test_a_view_read_while_a_round_is_stored_holds_only_the_rounds_it_read(
    api: httpx.AsyncClient, app: Any, make_guest: MakeGuest
) -> None:
    """The rounds and the tables are two queries; a round stored between them (its tables seen,
    the round not) must not break the view: it shows the round once both are read."""
    org = await organizer(api, make_guest)
    tid = (await create(api, org, rated=False))["id"]
    for n in range(4):
        assert (await enter(api, tid, await make_guest(f"P{n}"))).status_code == 201
    started = await api.post(f"/api/tournaments/{tid}/start", headers=org.headers)
    assert started.status_code == 200, started.text
    [entry_ids] = [t["entrants"] for t in started.json()["rounds"][0]["tables"]]

    async def store_round_two() -> None:
        async with app.state.db.session() as other, other.begin():
            await store.add_round(other, tournament_id=tid, number=2, tables=[entry_ids], byes=[])

    async with app.state.db.session() as session:
        execute = session.execute
        calls = 0

        async def then_round_two(*args: Any, **kwargs: Any) -> Any:
            nonlocal calls
            calls += 1
            if calls == 2:  # between the rounds' query and the tables'
                await store_round_two()
            return await execute(*args, **kwargs)

        session.execute = then_round_two  # type: ignore[method-assign]
        rounds, tables = await store.get_rounds(session, tournament_id=tid)
    assert [r.number for r in rounds] == [1]
    assert {t.round for t in tables} == {1}
    view = await get(api, tid)  # read afresh: both rounds, each with its table
    assert [(r["number"], len(r["tables"])) for r in view["rounds"]] == [(1, 1), (2, 1)]
