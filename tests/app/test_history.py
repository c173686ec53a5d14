"""History and replays over the REST API, on whole sets played at the real live tables (the
room actor on a fake clock, storing into SQLite and PostgreSQL).

What a replay shows is checked against what the table sent while it was played: each seat's hand
from the ``deal_started`` its own socket got, each move from the ``played``/``discarded`` events,
the result from ``deal_ended``; never against the code under test.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from sqlalchemy import select

from app.rooms.clock import FakeClock
from app.rooms.protocol import Play
from app.store.models import Deal, GameSet
from tests.app.live import conftest as live
from tests.app.live.conftest import CONFIG, LiveTable, to_move

# The live tables' fixtures (a fake clock, the real TableManager, seated probes), shared as-is.
clock = live.clock
live_factory = live.live_factory
live_table = live.live_table

MOVE_IDS = itertools.count()  # a move id is never reused (a resent id is answered, not played)


async def play_moves(live_table_: LiveTable, clock_: FakeClock, count: int) -> None:
    """Play ``count`` moves, each the first legal option of the seat to move (a bot's seat: its
    own); a finished deal waits out its pause and the next deal starts."""
    played = 0
    for _ in range(count * 3):
        if played == count or live_table_.table.state.phase == "set_over":
            return
        if live_table_.table.state.phase == "deal_over":
            clock_.advance(CONFIG.deal_pause)
        elif live_table_.probes[live_table_.table.state.turn].conn.player_id is None:
            clock_.advance(CONFIG.bot_max_delay)  # a bot's seat: it moves after its pause
            played += 1
        else:
            probe = to_move(live_table_)
            option = probe.view["legal"][0]
            move_id = f"h{next(MOVE_IDS)}"
            message = Play(type="play", move_id=move_id, tile=option["tile"], end=option["end"])
            await live_table_.table.request(probe.conn, message)
            played += 1
        await live_table_.settle()


async def play_set(live_table_: LiveTable, clock_: FakeClock) -> None:
    await play_moves(live_table_, clock_, 10_000)
    assert live_table_.table.state.phase == "set_over"


async def stored_sets(table: LiveTable) -> list[GameSet]:
    store = table.table.store
    async with store.db.session() as session:  # type: ignore[attr-defined]
        return list(await session.scalars(select(GameSet).order_by(GameSet.id)))


def seen_by(live_table_: LiveTable, seat: int, kind: str) -> list[dict[str, Any]]:
    return [
        f["event"] for f in live_table_.probes[seat].of_type("event") if f["event"]["kind"] == kind
    ]


async def test_a_finished_set_replays_what_was_played(
    live_table: Any, api: Any, clock: FakeClock
) -> None:
    table: LiveTable = await live_table(deals_per_set=2)
    await play_set(table, clock)
    set_id = table.table.core.set_id
    response = await api.get(f"/api/sets/{set_id}")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "finished" and body["link"] == f"/replay/{set_id}"
    assert [d["status"] for d in body["deals"]] == ["finished"] * len(body["deals"])
    for seat in range(4):
        dealt = seen_by(table, seat, "deal_started")
        assert [d["hands"][seat] for d in body["deals"]] == [sorted(e["hand"]) for e in dealt]
    played = seen_by(table, 0, "played")
    moves = [m for d in body["deals"] for m in d["moves"]]
    assert [(m["seat"], m["tile"], m["end"]) for m in moves] == [
        (e["seat"], e["tile"], e["end"]) for e in played
    ]
    ended = seen_by(table, 0, "deal_ended")
    assert [d["points"] for d in body["deals"]] == [e["points"] for e in ended]
    assert [d["scores"] for d in body["deals"]] == [e["scores"] for e in ended]
    assert body["scores"] == ended[-1]["scores"]


def tile_names(value: Any) -> set[str]:
    return set(re.findall(r"\b[0-6]-[0-6]\b", json.dumps(value)))


async def test_a_deal_in_play_shows_no_hands_moves_or_secret(
    live_table: Any, api: Any, app: Any, clock: FakeClock
) -> None:
    table: LiveTable = await live_table(deals_per_set=3)
    await play_moves(table, clock, 3)
    body = (await api.get(f"/api/sets/{table.table.core.set_id}")).json()
    assert body["status"] == "in_play" and body["result"] is None
    [deal] = body["deals"]
    assert deal["number"] == 1 and deal["status"] == "in_play"
    assert {k for k, v in deal.items() if v is not None} == {"number", "status", "started_at"}
    assert tile_names(body["deals"]) == set()  # not a tile of the live deal, anywhere
    async with app.state.db.session() as session:
        secret = (await session.scalars(select(Deal.secret))).one()
    assert secret is not None and secret not in json.dumps(body)

    # Once it is over it shows in full, and the next deal, in play, shows nothing.
    for _ in range(100):
        if table.table.state.deal_number == 2:
            break
        await play_moves(table, clock, 1)
    body = (await api.get(f"/api/sets/{table.table.core.set_id}")).json()
    first, second = body["deals"]
    assert first["status"] == "finished" and len(first["hands"]) == 4
    assert second["status"] == "in_play" and second["hands"] is None and second["moves"] is None
    assert body["scores"] == first["scores"]
    live_hands = {t for probe in table.probes for t in probe.view["hand"]}
    assert not live_hands & tile_names(second)


async def test_an_unknown_set_is_a_404_in_the_error_envelope(api: Any) -> None:
    response = await api.get("/api/sets/999999")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    response = await api.get("/api/sets/abc")
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "set_id"


def ranks_of(scores: list[int]) -> list[int]:
    """Tunggal PORDI: the most points after the deals is best; ties share a rank."""
    return [1 + sum(other > mine for other in scores) for mine in scores]


async def next_set(table: LiveTable, api: Any) -> None:
    """The host starts the next set as every set starts: the REST call."""
    started = await api.post(f"/api/rooms/{table.code}/start", headers=table.guests[0].headers)
    assert started.status_code == 200, started.text
    await table.settle()


async def test_a_players_sets_come_newest_first_in_pages(
    live_table: Any, api: Any, clock: FakeClock
) -> None:
    table: LiveTable = await live_table(deals_per_set=1, rated=True)
    finals = []
    for _ in range(2):
        await play_set(table, clock)
        finals.append(seen_by(table, 0, "deal_ended")[-1]["scores"])
        await next_set(table, api)
    await play_moves(table, clock, 2)  # the third set is in play
    set_ids = [s.id for s in await stored_sets(table)]
    me = table.guests[1]

    first = await api.get(f"/api/players/{me.player_id}/sets", params={"limit": 2})
    assert first.status_code == 200, first.text
    page = first.json()
    assert [s["set_id"] for s in page["sets"]] == [set_ids[2], set_ids[1]]
    assert page["next_cursor"]
    rest = (
        await api.get(
            f"/api/players/{me.player_id}/sets", params={"limit": 2, "cursor": page["next_cursor"]}
        )
    ).json()
    assert [s["set_id"] for s in rest["sets"]] == [set_ids[0]] and rest["next_cursor"] is None

    live_set, *done = page["sets"] + rest["sets"]
    assert live_set["status"] == "in_play" and live_set["number"] == 3
    assert live_set["standing"] is None and live_set["rating_change"] is None
    profile = (await api.get(f"/api/players/{me.player_id}")).json()
    changes = {c["set_id"]: c["change"] for c in profile["modes"]["tunggal"]["history"]}
    for entry, scores in zip(done, reversed(finals), strict=True):
        assert entry["status"] == "finished" and entry["room"]["code"] == table.code
        assert (entry["preset"], entry["mode"], entry["seat"], entry["rated"]) == (
            "pordi",
            "tunggal",
            1,
            True,
        )
        assert entry["points"] == scores[1]
        assert entry["standing"]["rank"] == ranks_of(scores)[1]
        assert entry["standing"]["won"] == (ranks_of(scores)[1] == 1)
        assert entry["rating_change"] == changes[entry["set_id"]]
        assert [s["name"] for s in entry["seats"]] == ["P0", "P1", "P2", "P3"]
        assert entry["link"] == f"/replay/{entry['set_id']}"
        detail = (await api.get(f"/api/sets/{entry['set_id']}")).json()
        assert detail["seats"] == entry["seats"] and detail["scores"] == scores


async def test_bots_and_an_unrated_room_in_the_list(
    live_table: Any, api: Any, clock: FakeClock
) -> None:
    table: LiveTable = await live_table(deals_per_set=1, bots=(1, 3))
    await play_set(table, clock)
    [entry] = (await api.get(f"/api/players/{table.guests[2].player_id}/sets")).json()["sets"]
    assert entry["rated"] is False and entry["rating_change"] is None
    assert [(s["bot"], s["name"]) for s in entry["seats"]] == [
        (False, "P0"),
        (True, None),
        (False, "P2"),
        (True, None),
    ]
    bot_guest = (await api.get(f"/api/players/{table.guests[1].player_id}/sets")).json()
    assert bot_guest == {"sets": [], "next_cursor": None}  # never sat down: a bot had the seat


async def test_bad_list_requests_are_refused_in_the_error_envelope(
    api: Any, make_guest: Any
) -> None:
    guest = await make_guest("Ayu")
    response = await api.get("/api/players/nobody/sets")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    for params, field in [
        ({"cursor": "not-a-cursor"}, "cursor"),
        ({"cursor": "c2V0Oi0x"}, "cursor"),  # "set:-1"
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
    ]:
        response = await api.get(f"/api/players/{guest.player_id}/sets", params=params)
        assert response.status_code == 422, (params, response.text)
        error = response.json()["error"]
        assert (error["code"], error["field"]) == ("invalid", field)


async def test_a_klasik_set_shows_the_start_tile_set_aside_and_discards(
    live_table: Any, api: Any, clock: FakeClock
) -> None:
    table: LiveTable = await live_table(
        seats=5, preset="klasik", players=5, scoring="penalty", deals_per_set=2
    )
    await play_set(table, clock)
    body = (await api.get(f"/api/sets/{table.table.core.set_id}")).json()
    assert (body["preset"], body["players"]) == ("klasik", 5)
    started = seen_by(table, 0, "deal_started")
    ended = seen_by(table, 0, "deal_ended")
    discards = 0
    for deal, opened, closed in zip(body["deals"], started, ended, strict=True):
        assert deal["start"] == opened["start"]
        assert sorted(deal["set_aside"]) == sorted(closed["set_aside"])
        assert len(deal["set_aside"]) == 2 and all(len(hand) == 5 for hand in deal["hands"])
        every = [t for hand in deal["hands"] for t in hand] + deal["set_aside"]
        start = "-".join(sorted(deal["start"].split("-")))
        assert len({*every, start}) == 28
        for seat in range(5):  # what each seat laid face down, as its own socket was told
            own = [
                e["tile"]
                for e in seen_by(table, seat, "discarded")
                if e["deal_number"] == deal["number"] and e["seat"] == seat
            ]
            mine = [m["tile"] for m in deal["moves"] if m["seat"] == seat and m["end"] == "discard"]
            assert mine == own
            discards += len(own)
        assert deal["points"] == closed["points"] and deal["result"]["counts"] == closed["counts"]
    print(f"klasik: {discards} discards over {len(body['deals'])} deals")


async def test_a_draw_domino_set_shows_who_drew_what(
    live_table: Any, api: Any, clock: FakeClock
) -> None:
    table: LiveTable = await live_table(
        seats=4,
        seed=1,
        preset="klasik",
        players=4,
        stuck="draw",
        scoring="penalty",
        deals_per_set=3,
    )
    await play_set(table, clock)
    body = (await api.get(f"/api/sets/{table.table.core.set_id}")).json()
    ended = seen_by(table, 0, "deal_ended")
    drawn_total = 0
    for deal, closed in zip(body["deals"], ended, strict=True):
        draws = deal["draws"] + [d for m in deal["moves"] for d in m["draws"]]
        # Drawn from the front of the boneyard, in its stored order; what is left is revealed.
        boneyard = deal["set_aside"]
        assert [d["tile"] for d in draws] == boneyard[: len(draws)]
        assert sorted(boneyard[len(draws) :]) == sorted(closed["set_aside"])
        for seat in range(4):  # each seat's own socket was told its own draws, in order
            own = [
                e["tile"]
                for e in seen_by(table, seat, "drew")
                if e["deal_number"] == deal["number"] and e["seat"] == seat
            ]
            assert own == [d["tile"] for d in draws if d["seat"] == seat]
            # Dealt + drawn - placed = what the seat held at the end.
            held = set(deal["hands"][seat]) | {d["tile"] for d in draws if d["seat"] == seat}
            held -= {m["tile"] for m in deal["moves"] if m["seat"] == seat}
            assert held == set(closed["hands"][seat])
        drawn_total += len(draws)
    assert drawn_total > 0
