"""GET /api/players/{id}, GET /api/leaderboard, GET /api/rooms/{code}/sets/{n}/ratings."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from openskill.models import PlackettLuce

from app.players.ratings import displayed
from app.rooms.store import SqlGameStore
from app.store.db import Database
from tests.app.players.conftest import play_set, seated_room
from tests.conftest import Guest

# Final scores of five Tunggal sets at one table: seat 1 wins four, seat 3 one.
SETS = [[1, 9, 2, 3], [0, 8, 5, 5], [2, 7, 1, 0], [4, 6, 5, 1], [1, 2, 3, 9]]
RANKS = [[4, 1, 3, 2], [4, 1, 2, 2], [2, 1, 3, 4], [3, 1, 2, 4], [4, 3, 2, 1]]


async def _five_rated_sets(app: Any) -> list[str]:
    db: Database = app.state.db
    room_id, players = await seated_room(db, mode="tunggal", rated=True)
    store = SqlGameStore(db)
    for number, scores in enumerate(SETS, start=1):
        await play_set(store, room_id, "tunggal", scores, number=number, deals=((1, "balak"),))
    return players


def _expected() -> list[Any]:
    """The four ratings after the five sets, from openskill itself."""
    model = PlackettLuce()
    ratings = [model.rating() for _ in range(4)]
    for ranks in RANKS:
        ratings = [team[0] for team in model.rate([[r] for r in ratings], ranks=ranks)]
    return ratings


async def test_a_new_guest_has_an_empty_profile(
    api: httpx.AsyncClient, make_guest: Callable[..., Awaitable[Guest]]
) -> None:
    guest = await make_guest("Ayu")
    response = await api.get(f"/api/players/{guest.player_id}")
    assert response.status_code == 200
    body = response.json()
    assert body["player_id"] == guest.player_id and body["name"] == "Ayu"
    assert body["username"] is None and body["joined"].startswith("20")
    model = PlackettLuce()
    for mode in ("tunggal", "ganda"):
        assert body["modes"][mode] == {
            "sets_played": 0,
            "sets_won": 0,
            "win_rate": None,
            "rated_sets": 0,
            "rating": 1500,
            "mu": model.mu,
            "sigma": model.sigma,
            "on_leaderboard": False,
            "history": [],
            "deals_won": {},
        }
    missing = await api.get("/api/players/" + "0" * 32)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


async def test_profile_after_rated_sets(api: httpx.AsyncClient, app: Any) -> None:
    players = await _five_rated_sets(app)
    expected = _expected()
    body = (await api.get(f"/api/players/{players[1]}")).json()
    tunggal = body["modes"]["tunggal"]
    assert tunggal["sets_played"] == 5 and tunggal["sets_won"] == 4
    assert tunggal["win_rate"] == 0.8 and tunggal["rated_sets"] == 5
    assert tunggal["on_leaderboard"] is True
    assert tunggal["rating"] == displayed(expected[1].mu, expected[1].sigma)
    assert tunggal["deals_won"] == {"balak": 5}
    history = tunggal["history"]
    assert [h["rank"] for h in history] == [1, 1, 1, 1, 3]  # oldest first
    assert history[-1]["after"] == tunggal["rating"] and history[0]["before"] == 1500
    for older, newer in itertools.pairwise(history):
        assert newer["before"] == older["after"]
    assert all(h["change"] == h["after"] - h["before"] for h in history)
    assert body["modes"]["ganda"]["sets_played"] == 0
    # Seat 0 never won a deal or a set.
    zero = (await api.get(f"/api/players/{players[0]}")).json()["modes"]["tunggal"]
    assert zero["deals_won"] == {} and zero["sets_won"] == 0 and zero["win_rate"] == 0.0


async def test_history_keeps_the_last_twenty(api: httpx.AsyncClient, app: Any) -> None:
    db: Database = app.state.db
    room_id, players = await seated_room(db, mode="ganda", rated=True)
    store = SqlGameStore(db)
    for number in range(1, 23):
        scores = [7, 1, 7, 1] if number % 2 else [1, 7, 1, 7]
        await play_set(store, room_id, "ganda", scores, number=number)
    ganda = (await api.get(f"/api/players/{players[2]}")).json()["modes"]["ganda"]
    assert ganda["rated_sets"] == 22 and ganda["sets_played"] == 22 and ganda["sets_won"] == 11
    assert len(ganda["history"]) == 20
    assert [h["rank"] for h in ganda["history"]][:2] == [1, 2]  # sets 3 and 4
    assert ganda["history"][-1]["after"] == ganda["rating"]


async def test_leaderboard_pages_by_rating(api: httpx.AsyncClient, app: Any) -> None:
    players = await _five_rated_sets(app)
    expected = _expected()
    # Four others with four rated sets each are not on the board yet.
    db: Database = app.state.db
    other, _ = await seated_room(db, mode="tunggal", rated=True, code="XYZXYZ")
    for number, scores in enumerate(SETS[:4], start=1):
        await play_set(SqlGameStore(db), other, "tunggal", scores, number=number)

    board = (await api.get("/api/leaderboard", params={"mode": "tunggal", "limit": 3})).json()
    order = sorted(range(4), key=lambda s: -(expected[s].mu - 3 * expected[s].sigma))
    assert board["mode"] == "tunggal" and board["min_rated_sets"] == 5
    assert [p["player_id"] for p in board["players"]] == [players[s] for s in order[:3]]
    assert [p["position"] for p in board["players"]] == [1, 2, 3]
    assert [p["rating"] for p in board["players"]] == [
        displayed(expected[s].mu, expected[s].sigma) for s in order[:3]
    ]
    assert board["players"][0]["name"] == f"P{order[0]}" and board["players"][0]["rated_sets"] == 5
    assert board["next_cursor"]

    page = await api.get("/api/leaderboard", params={"limit": 3, "cursor": board["next_cursor"]})
    rest = page.json()
    assert [p["player_id"] for p in rest["players"]] == [players[order[3]]]
    assert rest["players"][0]["position"] == 4 and rest["next_cursor"] is None

    assert (await api.get("/api/leaderboard", params={"mode": "ganda"})).json()["players"] == []
    for bad in ({"cursor": "not-a-cursor"}, {"mode": "klasik"}, {"limit": 0}, {"limit": 101}):
        response = await api.get("/api/leaderboard", params=bad)
        assert response.status_code == 422, bad
        assert response.json()["error"]["field"] == next(iter(bad))


async def test_a_sets_rating_changes_for_the_result_screen(
    api: httpx.AsyncClient, app: Any
) -> None:
    players = await _five_rated_sets(app)
    first = (await api.get("/api/rooms/ABCDEF/sets/1/ratings")).json()
    model = PlackettLuce()
    after = model.rate([[model.rating()] for _ in range(4)], ranks=RANKS[0])
    assert first["rated"] is True and first["ended"] is True and first["mode"] == "tunggal"
    assert [p["player_id"] for p in first["players"]] == players
    assert [p["rank"] for p in first["players"]] == RANKS[0]
    assert [p["before"] for p in first["players"]] == [1500] * 4
    assert [p["change"] for p in first["players"]] == [
        displayed(a[0].mu, a[0].sigma) - 1500 for a in after
    ]
    assert (await api.get("/api/rooms/abcdef/sets/5/ratings")).json()["number"] == 5
    assert (await api.get("/api/rooms/ABCDEF/sets/6/ratings")).status_code == 404
    assert (await api.get("/api/rooms/NOROOM/sets/1/ratings")).status_code == 404
