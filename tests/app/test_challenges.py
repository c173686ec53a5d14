"""Challenges on both databases: everyone accepts and lands seated at a started table; a
decline, an expiry (and the sweepers of two nodes telling everyone once), a cancel; a blocker
answered as nobody, invitees who block one another, a block made after the challenge; the
stored notifications of an invitee who is away, and live ones on /ws/me; bad input changing
nothing; the rate limit; the rematch ("play again" at a challenge's table)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.rooms.sweeper import Sweeper
from app.settings import Settings
from app.store import rooms, social
from app.store.db import Database
from app.store.models import GameSet, Notification
from app.store.types import utcnow
from tests.app.live.client import Lobby, MeClient
from tests.app.live.server import ServerProcess
from tests.app.test_rooms import RecordingLive
from tests.conftest import Guest

MakeGuest = Callable[..., Awaitable[Guest]]
NOBODY = "0" * 32


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={"rate_guests": "1000/minute", "rate_challenges": "1000/minute"}
    )


async def challenge(
    api: httpx.AsyncClient, me: Guest, to: list[Guest], **body: Any
) -> httpx.Response:
    return await api.post(
        "/api/challenges", json={"to": [g.player_id for g in to], **body}, headers=me.headers
    )


async def answer(api: httpx.AsyncClient, me: Guest, cid: str, verb: str) -> httpx.Response:
    return await api.post(f"/api/challenges/{cid}/{verb}", headers=me.headers)


async def kinds(app: Any, me: Guest) -> list[tuple[str, dict[str, Any]]]:
    async with app.state.db.session() as session:
        rows = await social.notifications_of(session, player_id=me.player_id)
        return [(row.kind, row.payload) for row in rows]


def seats_of(room: dict[str, Any]) -> dict[int, str | None]:
    return {s["seat"]: s["player_id"] or s["bot"] for s in room["seats"]}


async def test_everyone_accepts_and_the_set_starts_with_everyone_seated(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, citra = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("C")
    made = await challenge(api, ayu, [budi, citra], settings={"mode": "tunggal"})
    assert made.status_code == 201, made.text
    body = made.json()
    cid = body["id"]
    assert body["from"] == {"player_id": ayu.player_id, "name": "Ayu"}
    assert [(t["player_id"], t["answer"]) for t in body["to"]] == [
        (budi.player_id, "pending"),
        (citra.player_id, "pending"),
    ]
    assert body["status"] == "pending" and body["room"] is None
    assert body["settings"]["mode"] == "tunggal" and body["settings"]["deals_per_set"]
    # The invitee sees it among their stored notifications, away or not.
    assert [k for k, _ in await kinds(app, budi)] == ["challenge"]
    assert (await kinds(app, budi))[0][1]["challenge_id"] == cid

    first = await answer(api, budi, cid, "accept")
    assert first.status_code == 200 and first.json()["status"] == "pending"
    assert [t["answer"] for t in first.json()["to"]] == ["accepted", "pending"]
    last = await answer(api, citra, cid, "accept")
    assert last.status_code == 200, last.text
    done = last.json()
    assert done["status"] == "accepted" and done["room"]
    room = (await api.get(f"/api/rooms/{done['room']}")).json()
    assert room["status"] == "playing"
    seats = seats_of(room)
    assert seats[0] == ayu.player_id and seats[1] == budi.player_id
    assert seats[2] == citra.player_id and seats[3] == "normal"
    told = await kinds(app, ayu)
    assert [k for k, _ in told] == ["challenge_answered", "challenge_answered"]
    assert told[0][1]["room"] == done["room"] and told[0][1]["player_id"] == citra.player_id
    assert told[1][1]["room"] is None and told[1][1]["answer"] == "accepted"
    # Accepting again changes nothing; the room stays the one.
    again = await answer(api, citra, cid, "accept")
    assert again.status_code == 200 and again.json()["room"] == done["room"]
    assert len(await kinds(app, ayu)) == 2


async def test_ganda_partner_sits_across_and_open_seats_stay_open(
    api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, citra = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("C")
    made = await challenge(
        api,
        ayu,
        [citra, budi],
        settings={"mode": "ganda"},
        partner=budi.player_id,
        open_seats=True,
    )
    assert made.status_code == 201, made.text
    cid = made.json()["id"]
    for who in (citra, budi):
        assert (await answer(api, who, cid, "accept")).status_code == 200
    code = (await api.get(f"/api/challenges/{cid}", headers=ayu.headers)).json()["room"]
    room = (await api.get(f"/api/rooms/{code}")).json()
    seats = seats_of(room)
    assert seats[0] == ayu.player_id and seats[2] == budi.player_id
    assert seats[1] == citra.player_id and seats[3] is None
    assert room["status"] == "open"  # a seat left open: the host starts it


async def test_a_decline_ends_it_and_the_challenger_is_told(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, citra = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("C")
    cid = (await challenge(api, ayu, [budi, citra])).json()["id"]
    declined = await answer(api, budi, cid, "decline")
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    told = await kinds(app, ayu)
    assert told[0][0] == "challenge_answered" and told[0][1]["answer"] == "declined"
    late = await answer(api, citra, cid, "accept")
    assert late.status_code == 409 and late.json()["error"]["code"] == "challenge_closed"
    view = (await api.get(f"/api/challenges/{cid}", headers=citra.headers)).json()
    assert view["room"] is None and view["to"][1]["answer"] == "pending"


async def test_the_challenger_cancels(api: httpx.AsyncClient, make_guest: MakeGuest) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    cid = (await challenge(api, ayu, [budi])).json()["id"]
    by_invitee = await api.delete(f"/api/challenges/{cid}", headers=budi.headers)
    assert by_invitee.status_code == 403
    assert by_invitee.json()["error"]["code"] == "not_challenger"
    assert (await api.delete(f"/api/challenges/{cid}", headers=ayu.headers)).status_code == 204
    view = (await api.get(f"/api/challenges/{cid}", headers=budi.headers)).json()
    assert view["status"] == "cancelled"
    late = await answer(api, budi, cid, "accept")
    assert late.status_code == 409 and late.json()["error"]["code"] == "challenge_closed"
    again = await api.delete(f"/api/challenges/{cid}", headers=ayu.headers)
    assert again.status_code == 409


async def test_an_expired_challenge_answers_409(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    app.state.settings.challenge_seconds = 0.001  # expired by the time anyone answers
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    cid = (await challenge(api, ayu, [budi])).json()["id"]
    for verb in ("accept", "decline"):
        late = await answer(api, budi, cid, verb)
        assert late.status_code == 409 and late.json()["error"]["code"] == "challenge_expired"
    cancel = await api.delete(f"/api/challenges/{cid}", headers=ayu.headers)
    assert cancel.json()["error"]["code"] == "challenge_expired"
    view = (await api.get(f"/api/challenges/{cid}", headers=budi.headers)).json()
    assert view["status"] == "expired" and view["to"][0]["answer"] == "pending"


async def test_a_blocker_is_answered_as_nobody(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    assert (await api.post(f"/api/blocks/{ayu.player_id}", headers=budi.headers)).status_code == 204
    to_blocker = await challenge(api, ayu, [budi])
    nobody = await api.post("/api/challenges", json={"to": [NOBODY]}, headers=ayu.headers)
    assert to_blocker.status_code == nobody.status_code == 404
    assert to_blocker.json() == nobody.json()
    assert to_blocker.json()["error"]["code"] == "player_not_found"
    assert await kinds(app, budi) == []
    by_blocker = await challenge(api, budi, [ayu])
    assert by_blocker.status_code == 409
    assert by_blocker.json()["error"]["code"] == "player_blocked"


async def test_bad_input_changes_nothing(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    guests = [await make_guest(f"P{n}") for n in range(5)]
    ayu, budi = guests[0], guests[1]
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"to": [ayu.player_id]}, 422, "not_yourself"),
        ({"to": [budi.player_id, budi.player_id]}, 422, "invalid"),
        ({"to": [g.player_id for g in guests[1:]]}, 422, "invalid"),
        ({"to": []}, 422, "invalid"),
        ({"to": [budi.player_id, NOBODY]}, 404, "player_not_found"),
        ({"to": [budi.player_id], "partner": budi.player_id}, 422, "invalid"),
        (
            {"to": [budi.player_id], "settings": {"mode": "ganda"}, "partner": NOBODY},
            422,
            "invalid",
        ),
        ({"to": [budi.player_id], "settings": {"mode": "ganda", "players": 5}}, 422, "invalid"),
        ({"to": [budi.player_id], "settings": {"turn_seconds": 7}}, 422, "invalid"),
        ({"to": [budi.player_id], "surprise": 1}, 422, "invalid"),
    ]
    for body, code, error in cases:
        response = await api.post("/api/challenges", json=body, headers=ayu.headers)
        assert response.status_code == code, (body, response.text)
        assert response.json()["error"]["code"] == error, (body, response.text)
    assert (await api.post("/api/challenges", json={"to": [budi.player_id]})).status_code == 401
    for g in guests:
        assert await kinds(app, g) == []
    unknown = await answer(api, budi, NOBODY, "accept")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "challenge_not_found"
    cid = (await challenge(api, ayu, [budi])).json()["id"]
    outsider = await api.get(f"/api/challenges/{cid}", headers=guests[2].headers)
    assert outsider.status_code == 404  # not even that it exists
    mine = await answer(api, ayu, cid, "accept")
    assert mine.status_code == 403 and mine.json()["error"]["code"] == "not_invitee"


async def test_challenges_are_rate_limited(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    app.state.settings.rate_challenges = "2/minute"
    ayu, budi = await make_guest("Ayu"), await make_guest("Budi")
    for _ in range(2):
        assert (await challenge(api, ayu, [budi])).status_code == 201
    limited = await challenge(api, ayu, [budi])
    assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate_limited"
    assert len(await kinds(app, budi)) == 2


# --- live, over real sockets (a uvicorn subprocess) ---------------------------------------------


@pytest.fixture
async def server(database_url: str, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    process = ServerProcess(database_url, tmp_path / "server", GAPLE_RATE_GUESTS="1000/minute")
    await asyncio.to_thread(process.start)
    try:
        yield process
    finally:
        await asyncio.to_thread(process.stop)


async def test_challenge_and_answer_arrive_live_and_are_stored(server: ServerProcess) -> None:
    ws = server.base_url.replace("http", "ws")
    async with Lobby(server.base_url) as lobby:
        ayu, budi = await lobby.guest("Ayu"), await lobby.guest("Budi")
        ayu_auth = {"Authorization": f"Bearer {ayu['token']}"}
        budi_auth = {"Authorization": f"Bearer {budi['token']}"}
        theirs, mine = MeClient(ws, budi["token"]), MeClient(ws, ayu["token"])
        await theirs.connect()
        await mine.connect()
        made = await lobby.http.post(
            "/api/challenges", json={"to": [budi["player_id"]]}, headers=ayu_auth
        )
        assert made.status_code == 201, made.text
        await theirs.wait_for(lambda: bool(theirs.of_type("notification")))
        [live] = theirs.of_type("notification")
        [stored] = (await lobby.http.get("/api/notifications", headers=budi_auth)).json()[
            "notifications"
        ]
        assert live == {"type": "notification", **stored} and live["kind"] == "challenge"
        assert live["payload"]["challenge_id"] == made.json()["id"]
        cid = made.json()["id"]
        accepted = await lobby.http.post(f"/api/challenges/{cid}/accept", headers=budi_auth)
        assert accepted.status_code == 200, accepted.text
        code = accepted.json()["room"]

        # (a your_turn may come too: the set started, and Ayu has no socket at that table)
        def answers() -> list[dict[str, Any]]:
            found = mine.of_type("notification")
            return [n for n in found if n["kind"] == "challenge_answered"]

        await mine.wait_for(lambda: bool(answers()))
        [answered] = answers()
        assert answered["payload"]["room"] == code and answered["payload"]["answer"] == "accepted"
        room = (await lobby.http.get(f"/api/rooms/{code}")).json()
        seated = {s["seat"]: s["player_id"] for s in room["seats"]}
        assert seated[0] == ayu["player_id"] and seated[1] == budi["player_id"]
        assert room["status"] == "playing"
        await mine.close()
        await theirs.close()


async def test_an_expiry_arrives_live_from_the_servers_own_sweeper(
    database_url: str, tmp_path: Path
) -> None:
    process = ServerProcess(
        database_url,
        tmp_path / "expiry",
        GAPLE_RATE_GUESTS="1000/minute",
        GAPLE_CHALLENGE_SECONDS="0.5",
        GAPLE_SWEEP_SECONDS="0.1",
    )
    await asyncio.to_thread(process.start)
    try:
        ws = process.base_url.replace("http", "ws")
        async with Lobby(process.base_url) as lobby:
            ayu, budi = await lobby.guest("Ayu"), await lobby.guest("Budi")
            mine, theirs = MeClient(ws, ayu["token"]), MeClient(ws, budi["token"])
            await mine.connect()
            await theirs.connect()
            made = await lobby.http.post(
                "/api/challenges",
                json={"to": [budi["player_id"]]},
                headers={"Authorization": f"Bearer {ayu['token']}"},
            )
            cid = made.json()["id"]

            def expired(me: MeClient) -> list[dict[str, Any]]:
                return [n for n in me.of_type("notification") if n["kind"] == "challenge_expired"]

            for me in (mine, theirs):
                await me.wait_for(lambda me=me: bool(expired(me)))
                [notice] = expired(me)
                assert notice["payload"]["challenge_id"] == cid and notice["id"] is not None
            await asyncio.sleep(0.5)  # several sweeps more: still once each
            assert len(expired(mine)) == len(expired(theirs)) == 1
            await mine.close()
            await theirs.close()
    finally:
        await asyncio.to_thread(process.stop)


# --- expiry by the sweeper, and blocks among the players of a challenge -----------------------


class Notices:
    """A Notifier that remembers what the sweeper pushed: (player, kind)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def notify(self, notice: Notification) -> None:
        self.sent.append((notice.player_id, notice.kind))


async def test_the_sweepers_of_two_nodes_expire_a_challenge_and_tell_everyone_once(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest, database_url: str
) -> None:
    ayu, budi, citra = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("C")
    made = (await challenge(api, ayu, [budi, citra])).json()
    assert (await answer(api, budi, made["id"], "accept")).status_code == 200
    other = Database(database_url, secret_key="k")  # a second node's pool
    try:
        pushed = [Notices(), Notices()]
        sweepers = [
            Sweeper(db, RecordingLive(), app.state.settings, notices)
            for db, notices in zip([app.state.db, other], pushed, strict=True)
        ]
        soon = utcnow() + timedelta(seconds=60)  # before GAPLE_CHALLENGE_SECONDS (120)
        assert [(await s.sweep(now=soon)).expired for s in sweepers] == [[], []]
        late = utcnow() + timedelta(seconds=121)
        swept = await asyncio.gather(*(s.sweep(now=late) for s in sweepers))
        assert sorted(len(s.expired) for s in swept) == [0, 1]  # exactly one node acted
        sent = pushed[0].sent + pushed[1].sent
        everyone = {ayu.player_id, budi.player_id, citra.player_id}
        assert sorted(sent) == sorted((p, "challenge_expired") for p in everyone)
        assert [(await s.sweep(now=late)).expired for s in sweepers] == [[], []]  # once
    finally:
        await other.dispose()
    for guest in (ayu, budi, citra):
        expired = [p for k, p in await kinds(app, guest) if k == "challenge_expired"]
        assert expired == [{"player_id": ayu.player_id, "name": "Ayu", "challenge_id": made["id"]}]
    view = (await api.get(f"/api/challenges/{made['id']}", headers=ayu.headers)).json()
    assert view["status"] == "expired" and view["room"] is None
    # Nothing is made late: the last acceptance is refused and no room exists.
    late_answer = await answer(api, citra, made["id"], "accept")
    assert late_answer.json()["error"]["code"] == "challenge_expired"
    assert (await api.get(f"/api/challenges/{made['id']}", headers=ayu.headers)).json()[
        "room"
    ] is None


async def test_invitees_who_block_one_another_are_refused_as_nobody(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, citra = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("C")
    assert (
        await api.post(f"/api/blocks/{citra.player_id}", headers=budi.headers)
    ).status_code == 204
    both = await challenge(api, ayu, [budi, citra])
    nobody = await api.post(
        "/api/challenges", json={"to": [budi.player_id, NOBODY]}, headers=ayu.headers
    )
    assert both.status_code == nobody.status_code == 404
    assert both.json() == nobody.json()  # the block between them is not revealed
    for guest in (budi, citra):
        assert await kinds(app, guest) == []


async def test_a_block_made_after_the_challenge_stops_it_from_being_played(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, citra = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("C")
    cid = (await challenge(api, ayu, [budi, citra])).json()["id"]
    assert (await answer(api, budi, cid, "accept")).status_code == 200
    assert (
        await api.post(f"/api/blocks/{budi.player_id}", headers=citra.headers)
    ).status_code == 204
    refused = await answer(api, citra, cid, "accept")
    assert refused.status_code == 404
    assert refused.json()["error"]["code"] == "challenge_not_found"
    view = (await api.get(f"/api/challenges/{cid}", headers=ayu.headers)).json()
    assert view["status"] == "pending" and view["room"] is None  # nothing changed
    assert [t["answer"] for t in view["to"]] == ["accepted", "pending"]
    # Declining still works.
    assert (await answer(api, citra, cid, "decline")).json()["status"] == "declined"


# --- the rematch: "play again" at a challenge's table -------------------------------------------


async def _set_played(app: Any, code: str) -> str:
    """The room's set is over (as the table stores it): a set row, the room open."""
    async with app.state.db.session() as session:
        room = await rooms.get_room_by_code(session, code=code)
        assert room is not None and room.status == "open"
        session.add(GameSet(room_id=room.id, number=1, rules={}, started_at=utcnow()))
        await session.commit()
        return room.id


async def test_a_rematch_offers_the_same_table_to_the_same_players(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    ayu, budi, citra = await make_guest("Ayu"), await make_guest("Budi"), await make_guest("C")
    made = await challenge(api, ayu, [budi, citra], settings={"mode": "tunggal"}, open_seats=True)
    cid = made.json()["id"]
    for who in (budi, citra):
        assert (await answer(api, who, cid, "accept")).status_code == 200
    code = (await api.get(f"/api/challenges/{cid}", headers=ayu.headers)).json()["room"]
    assert (await api.get(f"/api/rooms/{code}")).json()["rematch"] is True
    early = await api.post(f"/api/rooms/{code}/again", headers=budi.headers)
    assert early.json()["error"]["code"] == "not_playing"  # no set played yet
    await _set_played(app, code)
    assert (await api.post(f"/api/blocks/{budi.player_id}", headers=citra.headers)).is_success

    first = await api.post(f"/api/rooms/{code}/again", headers=budi.headers)
    assert first.status_code == 200, first.text
    assert first.json()["status"] == "open"
    assert [s["ready"] for s in first.json()["seats"]][:3] == [False, True, False]
    offers = [p for k, p in await kinds(app, ayu) if k == "rematch"]
    assert offers == [{"player_id": budi.player_id, "name": "Budi", "table": code}]
    # Never to a player who blocks the caller; and only the first choice offers it.
    assert [k for k, _ in await kinds(app, citra) if k == "rematch"] == []
    assert (await api.post(f"/api/rooms/{code}/again", headers=ayu.headers)).is_success
    assert [k for k, _ in await kinds(app, budi) if k == "rematch"] == []
    assert len([k for k, _ in await kinds(app, ayu) if k == "rematch"]) == 1
    # The last of them: the next set starts at the same table, same seats, a bot in the open one.
    last = await api.post(f"/api/rooms/{code}/again", headers=citra.headers)
    assert last.status_code == 200 and last.json()["status"] == "playing"
    seats = seats_of(last.json())
    assert [seats[0], seats[1], seats[2]] == [ayu.player_id, budi.player_id, citra.player_id]
    assert seats[3] is not None


async def test_play_again_stays_for_quick_play_and_challenges(
    app: Any, api: httpx.AsyncClient, make_guest: MakeGuest
) -> None:
    host = await make_guest("Host")
    made = await api.post("/api/rooms", json={"mode": "tunggal"}, headers=host.headers)
    code = made.json()["code"]
    assert made.json()["rematch"] is False
    assert (await api.post(f"/api/rooms/{code}/seats/0", headers=host.headers)).is_success
    await _set_played(app, code)
    refused = await api.post(f"/api/rooms/{code}/again", headers=host.headers)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "not_quickplay"
    assert await kinds(app, host) == []
