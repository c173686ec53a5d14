"""Motion at the table, in the browser: a new deal's tiles fly into the hand, every placed tile
travels to its place on the line (an animation is started on that very line tile), a Domi, Ceki
or Kandang is celebrated on the deal's result; and under ``prefers-reduced-motion: reduce`` none
of it happens while the game goes on as before.

The recording init script (gaple.py) logs every ``Element.animate`` call with the animation's id
and the nearest test id, and every celebration drawn.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.live.server import ServerProcess
from tests.e2e.gaple import LobbyApi, bot_table, start_server, tile_key, wait_until

SEED = random.randrange(1 << 32)

CELEBRATION_OF_JS = r"""
async (ev) => (await import('/static/js/motion.js')).celebrationOf(ev)
"""


def _deals_ended(page):
    return [m["event"] for m in page.recorded()["events"] if m["event"]["kind"] == "deal_ended"]


def _played(page):
    return [m["event"] for m in page.recorded()["events"] if m["event"]["kind"] == "played"]


def _play_first_deal(pages, rng, timeout):
    """Click legal tiles on every page until each has seen a deal end."""
    deadline = time.monotonic() + timeout
    while not all(_deals_ended(p) for p in pages):
        assert time.monotonic() < deadline, f"no deal ended within {timeout}s"
        acted = False
        for page in pages:
            acted = bool(page.play_turn(rng, wait=False, fast=True)) or acted
        if not acted:
            time.sleep(0.05)


def test_tiles_travel_deals_fly_in_results_celebrate_and_reduced_motion_stops_it(
    open_page, lobby_api
):
    rng = random.Random(SEED)
    moving, _, _ = bot_table(
        lobby_api,
        open_page,
        name="Komang",
        seat=0,
        turn_seconds=60,
        deals_per_set=3,
        page_options={"motion": True},
    )
    still, _, _ = bot_table(
        lobby_api,
        open_page,
        name="Kadek",
        seat=0,
        turn_seconds=60,
        deals_per_set=3,
        start=False,
    )
    reduced = "() => matchMedia('(prefers-reduced-motion: reduce)').matches"
    assert still.page.evaluate(reduced) and not moving.page.evaluate(reduced)
    still.start_set()
    # The deal: each tile of the hand flies in.
    moving.by("hand-tile").first.wait_for()
    wait_until(
        lambda: (
            sum(
                a["id"] == "deal" and a["testid"] == "hand-tile"
                for a in moving.recorded()["animations"]
            )
            >= 7
        ),
        10,
        lambda: f"deal animations: {moving.recorded()['animations']}",
    )
    _play_first_deal([moving, still], rng, 150)
    moving.page.wait_for_timeout(300)  # the celebration is drawn
    rec = moving.recorded()
    travelled = {
        tile_key(a["tile"])
        for a in rec["animations"]
        if a["id"] == "travel" and a["testid"] == "line-tile"
    }
    placed = {tile_key(ev["tile"]) for ev in _played(moving)}
    assert placed and placed <= travelled, sorted(placed - travelled)
    # Each result is celebrated (every PORDI deal ends in a Domi, a Ceki or a Kandang).
    kinds = [moving.page.evaluate(CELEBRATION_OF_JS, ev) for ev in _deals_ended(moving)]
    assert kinds and set(kinds) <= {"domi", "ceki", "kandang"}, kinds
    assert rec["celebrations"] == kinds, rec["celebrations"]

    # Reduced motion: the same game, and nothing animated, nothing celebrated.
    rec = still.recorded()
    assert len(_played(still)) >= 4 and _deals_ended(still)
    assert rec["animations"] == [], rec["animations"]
    assert rec["celebrations"] == []
    assert moving.errors == [] and still.errors == []


@pytest.fixture
def slow_deals_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server of its own whose deals are PAUSE_S apart: long enough to watch the countdown."""
    server = start_server(tmp_path, GAPLE_DEAL_PAUSE_SECONDS=str(PAUSE_S))
    try:
        yield server
    finally:
        server.stop()


PAUSE_S = 4
NEXT_DEAL_JS = """() => {
  const el = document.querySelector('[data-testid=next-deal]');
  return el ? el.textContent : null;
}"""


def test_a_deal_result_counts_down_to_the_next_deal(slow_deals_server, open_page):
    rng = random.Random(SEED)
    api = LobbyApi(slow_deals_server.base_url)
    try:
        page, _, _ = bot_table(
            api, open_page, name="Wayan", seat=0, deals_per_set=2, origin=slow_deals_server.base_url
        )
        _play_first_deal([page], rng, timeout=90)
        seen: list[int] = []
        deadline = time.monotonic() + PAUSE_S + 10
        while page.recorded()["snapshot"]["view"]["deal_number"] < 2:
            assert time.monotonic() < deadline, f"the next deal did not start; countdown {seen}"
            text = page.page.evaluate(NEXT_DEAL_JS)
            found = re.fullmatch(r"(?:Deal berikutnya dalam|Next deal in) (\d+)…", text or "")
            if found and (not seen or seen[-1] != int(found[1])):
                seen.append(int(found[1]))
            time.sleep(0.1)
        # The server's time, counted down second by second (a slow page may miss the first one).
        assert seen and seen[0] <= PAUSE_S and len(seen) >= 2, seen
        assert seen == list(range(seen[0], seen[0] - len(seen), -1)), seen
    finally:
        api.close()
