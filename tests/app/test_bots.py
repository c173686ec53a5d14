"""The bot runner: easy and normal inline, hard in a real worker process; bot kinds in the API."""

from __future__ import annotations

import random
from typing import Any

import httpx
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
    state, seat = _position(8)
    view = engine.view(state, seat)
    runner = BotRunner(1, budget=10.0)  # no time cut: the playout cap decides, reproducibly
    try:
        move = await runner.choose("hard", view, 5)
    finally:
        await runner.aclose()
    assert (str(move.tile), move.end) == think_hard(view, 5, 10.0)
    inline = engine.HardBot().choose(view, random.Random(5))
    assert move == inline


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

        def spectator_count(self, room_id: str) -> int:
            return 0

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
