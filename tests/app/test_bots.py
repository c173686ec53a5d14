"""The bot runner: easy and normal inline, hard in a real worker process; bot kinds in the API."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import orjson
import pytest

import engine
from app.rooms.bots import BotRunner, think_hard
from tests.conftest import Guest


def _position(seed: int) -> tuple[engine.MatchState, int]:
    """A PORDI deal a few moves in, and the seat to move."""
    state, _ = engine.start_deal(engine.new_match(engine.pordi()), seed)
    rng = random.Random(seed)
    for _ in range(5):
        seat = state.turn
        assert seat is not None
        state, _ = engine.play(state, seat, engine.random_legal_move(state, rng))
    assert state.turn is not None
    return state, state.turn


def _legal(view: dict[str, Any], move: engine.Move) -> bool:
    return any(o["tile"] == str(move.tile) and o["end"] == move.end for o in view["legal"])


async def test_every_kind_and_old_name_moves_legally() -> None:
    runner = BotRunner(1)
    try:
        for kind in ("easy", "normal", "hard", "random", "heuristic"):
            state, seat = _position(3)
            view = engine.view(state, seat)
            move = await runner.choose(kind, view, 11)
            assert _legal(view, move), kind
            engine.play(state, seat, move)
    finally:
        await runner.aclose()


async def test_hard_thinks_in_a_worker_and_matches_the_engine() -> None:
    view = _open_position()  # more than one legal move: a forced one needs no worker
    runner = BotRunner(1, budget=10.0)  # no time cut: the playout cap decides, reproducibly
    try:
        move = await runner.choose("hard", view, 5)
    finally:
        await runner.aclose()
    tile, end, cpu = think_hard(orjson.dumps(view), 5, 10.0)
    assert (str(move.tile), move.end) == (tile, end) and cpu > 0
    inline = engine.HardBot().choose(view, random.Random(5))
    assert move == inline
    assert runner.thought == 1 and runner.fallbacks == 0


def _open_position() -> dict[str, Any]:
    """A seat's view with several legal moves, where the full playout cap takes a while."""
    for seed in range(100):
        state, seat = _position(seed)
        view = engine.view(state, seat)
        if len(view["legal"]) >= 3:
            return view
    raise AssertionError("no position with three legal moves")


async def test_the_budget_caps_a_decision_in_the_worker() -> None:
    view = _open_position()
    _, _, full = think_hard(orjson.dumps(view), 2, 10.0)  # the playout cap alone
    runner = BotRunner(1, budget=0.005)
    try:
        move = await runner.think(view, 2)
    finally:
        await runner.aclose()
    assert _legal(view, move)
    # One round of playouts may run past the budget; never the whole cap.
    assert runner.cpu_max < min(0.03, full / 2), (runner.cpu_max, full)


async def test_a_full_queue_makes_the_normal_bot_move_at_once() -> None:
    view = _open_position()
    runner = BotRunner(1)  # at most 2 hard decisions out at once
    try:
        await runner.warm_up()
        out = [asyncio.create_task(runner.think(view, seed)) for seed in (1, 2)]
        await asyncio.sleep(0)  # both sent
        assert runner.in_flight == 2
        rng = random.Random(9)
        move = runner.immediate("hard", view, rng)
        assert move == engine.BOTS["normal"].choose(view, random.Random(9))
        assert runner.fallbacks == 1
        for move in await asyncio.gather(*out):
            assert _legal(view, move)
        assert runner.in_flight == 0 and runner.thought == 2
        assert runner.immediate("hard", view, rng) is None  # room again: the worker thinks
    finally:
        await runner.aclose()


async def test_a_late_worker_is_replaced_by_the_normal_bot() -> None:
    view = _open_position()
    runner = BotRunner(1, timeout=0.001)  # the worker process is not even started yet
    try:
        move = await runner.think(view, 4)
    finally:
        await runner.aclose()
    assert move == engine.BOTS["normal"].choose(view, random.Random(4))
    assert runner.fallbacks == 1 and runner.thought == 0 and runner.in_flight == 0


async def test_an_unknown_kind_is_an_engine_error() -> None:
    state, seat = _position(1)
    with pytest.raises(engine.EngineError) as exc:
        await BotRunner(1).choose("grandmaster", engine.view(state, seat), 1)
    assert exc.value.code == "unknown_bot"
    with pytest.raises(ValueError):
        BotRunner(0)


@pytest.fixture
def live_factory() -> Any:
    class Quiet:
        async def room_started(self, room_id: str) -> None: ...

        async def seats_changed(self, room_id: str) -> None: ...

        async def spectator_counts(self, room_ids: list[str]) -> dict[str, int]:
            return {}

    return lambda app: Quiet()


async def test_the_host_picks_each_bot_level(api: httpx.AsyncClient, make_guest: Any) -> None:
    host: Guest = await make_guest("Host")
    code = (await api.post("/api/rooms", headers=host.headers)).json()["code"]
    for seat, kind in enumerate(("easy", "normal", "hard", "heuristic")):
        r = await api.post(
            f"/api/rooms/{code}/bots/{seat}", json={"kind": kind}, headers=host.headers
        )
        assert r.status_code == 200, r.text
    seats = (await api.get(f"/api/rooms/{code}")).json()["seats"]
    assert [s["bot"] for s in seats] == ["easy", "normal", "hard", "normal"]  # old name: level
    bad = await api.post(f"/api/rooms/{code}/bots/0", json={"kind": "expert"}, headers=host.headers)
    assert bad.status_code == 422, bad.text


async def test_the_host_changes_a_bots_level(api: httpx.AsyncClient, make_guest: Any) -> None:
    host: Guest = await make_guest("Host")
    guest: Guest = await make_guest("Guest")
    code = (await api.post("/api/rooms", headers=host.headers)).json()["code"]
    await api.post(f"/api/rooms/{code}/seats/0", headers=host.headers)
    await api.post(f"/api/rooms/{code}/seats/1", headers=guest.headers)
    for seat in (2, 3):
        r = await api.post(
            f"/api/rooms/{code}/bots/{seat}", json={"kind": "hard"}, headers=host.headers
        )
        assert r.status_code == 200, r.text
    r = await api.post(f"/api/rooms/{code}/bots/2", json={"kind": "easy"}, headers=host.headers)
    assert r.status_code == 200, r.text
    assert [s["bot"] for s in r.json()["seats"]] == [None, None, "easy", "hard"]

    def refused(r: httpx.Response, status: int, code: str) -> None:
        assert r.status_code == status and r.json()["error"]["code"] == code, r.text

    # A human's seat is not a bot's; only the host picks levels; the bots stay as they were.
    human = await api.post(f"/api/rooms/{code}/bots/1", json={"kind": "easy"}, headers=host.headers)
    refused(human, 409, "seat_taken")
    stranger = await api.post(
        f"/api/rooms/{code}/bots/3", json={"kind": "easy"}, headers=guest.headers
    )
    refused(stranger, 403, "not_host")
    assert (await api.post(f"/api/rooms/{code}/start", headers=host.headers)).status_code == 200
    late = await api.post(f"/api/rooms/{code}/bots/3", json={"kind": "easy"}, headers=host.headers)
    refused(late, 409, "room_not_open")
    seats = (await api.get(f"/api/rooms/{code}")).json()["seats"]
    assert [s["bot"] for s in seats] == [None, None, "easy", "hard"]


async def test_the_shared_runner_is_sized_by_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.rooms import bots

    await bots.close_shared_runner()
    monkeypatch.setenv("GAPLE_BOT_WORKERS", "3")
    assert bots.shared_runner().workers == 3
    assert bots.shared_runner() is bots.shared_runner()
    assert bots.configure_shared_runner(2).workers == 2 == bots.shared_runner().workers
    await bots.close_shared_runner()
    monkeypatch.delenv("GAPLE_BOT_WORKERS")
    assert bots.shared_runner().workers == 1  # the setting's default
    await bots.close_shared_runner()
