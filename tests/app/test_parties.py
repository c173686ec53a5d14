"""Parties for Ganda on both databases: invite, accept, decline, leave; quick play seating two
partners across from each other, two parties at one table, and concurrent calls."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from app.settings import Settings
from app.store import social
from tests.conftest import Guest

MakeGuest = Callable[..., Awaitable[Guest]]
NOBODY = "0" * 32


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={
            "rate_guests": "1000/minute",
            "rate_parties": "1000/minute",
            "rate_quickplay": "1000/minute",
        }
    )


async def invite(api: httpx.AsyncClient, me: Guest, other: str) -> httpx.Response:
    return await api.post("/api/parties", json={"with": other}, headers=me.headers)


async def mine(api: httpx.AsyncClient, me: Guest) -> dict[str, Any]:
    response = await api.get("/api/parties/me", headers=me.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def partners(api: httpx.AsyncClient, a: Guest, b: Guest) -> str:
    made = await invite(api, a, b.player_id)
    assert made.status_code == 201, made.text
    pid = str(made.json()["id"])
    accepted = await api.post(f"/api/parties/{pid}/accept", headers=b.headers)
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    return pid


async def quick_play(api: httpx.AsyncClient, me: Guest, mode: str = "ganda") -> tuple[str, int]:
    response = await api.post("/api/quickplay", json={"mode": mode}, headers=me.headers)
    assert response.status_code == 200, response.text
    return str(response.json()["room"]["code"]), int(response.json()["seat"])


async def seats(api: httpx.AsyncClient, code: str) -> dict[int, str | None]:
    room = (await api.get(f"/api/rooms/{code}")).json()
    return {s["seat"]: s["player_id"] for s in room["seats"]}


async def test_invite_accept_decline_leave(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, citra = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("C")
    made = await invite(api, ayu, budi.player_id)
    assert made.status_code == 201, made.text
    party = made.json()
    assert party["status"] == "invited" and party["invitee"]["player_id"] == budi.player_id
    async with app.state.db.session() as session:
        stored = await social.notifications_of(session, player_id=budi.player_id)
    assert [(n.kind, n.payload["party_id"]) for n in stored] == [("party_invite", party["id"])]
    assert [p["id"] for p in (await mine(api, budi))["incoming"]] == [party["id"]]
    assert [p["id"] for p in (await mine(api, ayu))["outgoing"]] == [party["id"]]
    # Inviting again, either way, is the same invitation.
    assert (await invite(api, budi, ayu.player_id)).json()["id"] == party["id"]
    # Only the invitee answers.
    by_inviter = await api.post(f"/api/parties/{party['id']}/accept", headers=ayu.headers)
    assert by_inviter.status_code == 403
    outsider = await api.post(f"/api/parties/{party['id']}/accept", headers=citra.headers)
    assert outsider.status_code == 404 and outsider.json()["error"]["code"] == "party_not_found"
    declined = await api.post(f"/api/parties/{party['id']}/decline", headers=budi.headers)
    assert declined.status_code == 204
    assert await mine(api, ayu) == {"party": None, "incoming": [], "outgoing": []}

    pid = await partners(api, ayu, budi)
    assert (await mine(api, ayu))["party"]["id"] == pid == (await mine(api, budi))["party"]["id"]
    busy = await invite(api, citra, ayu.player_id)
    assert busy.status_code == 409 and busy.json()["error"]["code"] == "already_in_party"
    assert (await api.delete(f"/api/parties/{pid}", headers=budi.headers)).status_code == 204
    assert (await mine(api, ayu))["party"] is None
    gone = await api.delete(f"/api/parties/{pid}", headers=ayu.headers)
    assert gone.status_code == 404


async def test_bad_invitations_change_nothing(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    assert (await api.post(f"/api/blocks/{ayu.player_id}", headers=budi.headers)).status_code == 204
    to_blocker, nobody = await invite(api, ayu, budi.player_id), await invite(api, ayu, NOBODY)
    assert to_blocker.status_code == nobody.status_code == 404
    assert to_blocker.json() == nobody.json()
    myself = await invite(api, ayu, ayu.player_id)
    assert myself.status_code == 422 and myself.json()["error"]["code"] == "not_yourself"
    for body in ({}, {"with": 5}, {"with": "x" * 33}, {"with": budi.player_id, "also": 1}):
        response = await api.post("/api/parties", json=body, headers=ayu.headers)
        assert response.status_code == 422, body
    assert (await api.post("/api/parties", json={"with": budi.player_id})).status_code == 401
    assert await mine(api, ayu) == {"party": None, "incoming": [], "outgoing": []}
    async with app.state.db.session() as session:
        assert await social.notifications_of(session, player_id=budi.player_id) == []


async def test_quick_play_seats_partners_across_and_two_parties_at_one_table(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, citra, dewi, eka = [await make_guest(n) for n in ("A", "B", "C", "D", "E")]
    await partners(api, ayu, budi)
    await partners(api, dewi, citra)
    code, seat = await quick_play(api, budi)  # either member: both are seated
    assert seat == 0
    assert await seats(api, code) == {0: budi.player_id, 1: None, 2: ayu.player_id, 3: None}
    assert await quick_play(api, ayu) == (code, 2)  # already there: keeps the seat
    assert await quick_play(api, citra) == (code, 1)  # the other party, the other side
    assert await seats(api, code) == {
        0: budi.player_id,
        1: citra.player_id,
        2: ayu.player_id,
        3: dewi.player_id,
    }
    room = (await api.get(f"/api/rooms/{code}")).json()
    assert room["status"] == "playing"  # every seat a human's
    # Tunggal quick play by a party member seats that player only.
    single, _ = await quick_play(api, eka, "tunggal")
    other, _ = await quick_play(api, budi, "tunggal")
    assert other == single
    assert ayu.player_id not in (await seats(api, single)).values()


async def test_a_party_does_not_fit_beside_one_seat_taken_on_each_side(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, citra, dewi = [await make_guest(n) for n in ("A", "B", "C", "D")]
    first, _ = await quick_play(api, citra)
    assert await quick_play(api, dewi) == (first, 1)  # seats 0 and 1: no two across are free
    await partners(api, ayu, budi)
    code, _ = await quick_play(api, ayu)
    assert code != first
    assert await seats(api, code) == {0: ayu.player_id, 1: None, 2: budi.player_id, 3: None}


async def test_concurrent_quick_play_keeps_partners_across(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    guests = [await make_guest(f"P{n}") for n in range(8)]
    pairs = [(guests[0], guests[1]), (guests[2], guests[3])]
    for a, b in pairs:
        await partners(api, a, b)
    # Both members of each party and four singles, all at once.
    found = await asyncio.gather(*(quick_play(api, g) for g in guests))
    where = {g.player_id: spot for g, spot in zip(guests, found, strict=True)}
    for a, b in pairs:
        (code_a, seat_a), (code_b, seat_b) = where[a.player_id], where[b.player_id]
        assert code_a == code_b and (seat_a - seat_b) % 4 == 2, where
    tables: dict[str, list[int]] = {}
    for code, seat in found:
        tables.setdefault(code, []).append(seat)
    for code, taken in tables.items():
        stored = await seats(api, code)
        assert sorted(taken) == sorted(s for s, p in stored.items() if p is not None), code
    assert sum(len(t) for t in tables.values()) == len(guests)


async def test_invitations_are_rate_limited(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    app.state.settings.rate_parties = "2/minute"
    ayu, budi, citra, dewi = [await make_guest(n) for n in ("A", "B", "C", "D")]
    for other in (budi, citra):
        assert (await invite(api, ayu, other.player_id)).status_code == 201
    limited = await invite(api, ayu, dewi.player_id)
    assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate_limited"
    assert len((await mine(api, ayu))["outgoing"]) == 2


async def test_a_block_ends_the_party_and_its_invitation(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, citra = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("C")
    await partners(api, ayu, budi)
    assert (await invite(api, citra, ayu.player_id)).status_code == 409  # Ayu is in a party
    assert (await api.post(f"/api/blocks/{ayu.player_id}", headers=budi.headers)).status_code == 204
    assert await mine(api, ayu) == {"party": None, "incoming": [], "outgoing": []}
    assert await mine(api, budi) == {"party": None, "incoming": [], "outgoing": []}
    # Quick play seats Ayu alone, and never at Budi's table.
    ayus, _ = await quick_play(api, ayu)
    budis, _ = await quick_play(api, budi)
    assert ayus != budis and budi.player_id not in (await seats(api, ayus)).values()
    invited = (await invite(api, citra, ayu.player_id)).json()
    assert (
        await api.post(f"/api/blocks/{citra.player_id}", headers=ayu.headers)
    ).status_code == 204
    gone = await api.post(f"/api/parties/{invited['id']}/accept", headers=ayu.headers)
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "party_not_found"


async def test_an_invitation_between_players_with_a_block_cannot_be_accepted(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    # A block stored beside the invitation (made while it was being sent): accepting is
    # answered as for an invitation that does not exist, and nothing changes.
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    pid = (await invite(api, ayu, budi.player_id)).json()["id"]
    async with app.state.db.session() as session:
        await social.add_block(session, blocker_id=ayu.player_id, blocked_id=budi.player_id)
        await session.commit()
    refused = await api.post(f"/api/parties/{pid}/accept", headers=budi.headers)
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "party_not_found"
    assert [p["id"] for p in (await mine(api, budi))["incoming"]] == [pid]
    assert (await mine(api, budi))["party"] is None


async def test_a_party_is_never_seated_beside_a_player_either_partner_blocks(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, dewi = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("Dewi")
    await partners(api, ayu, budi)
    # Dewi waits at a Ganda table; she blocks Budi (not Ayu, who is the one calling).
    assert (
        await api.post(f"/api/blocks/{budi.player_id}", headers=dewi.headers)
    ).status_code == 204
    dewis, _ = await quick_play(api, dewi)
    ours, _ = await quick_play(api, ayu)
    assert ours != dewis
    assert set((await seats(api, dewis)).values()) - {None} == {dewi.player_id}
    placed = await seats(api, ours)
    assert (placed[0], placed[2]) == (ayu.player_id, budi.player_id)
