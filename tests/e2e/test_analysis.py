"""The replay page's analysis in the browser: the marks on the move list, the best move of the
position shown and the player's own mistakes, in Bahasa Indonesia and in English, on a set played
through the real server; the page asks GET /api/sets/{id}/deals/1/analysis itself (202, then the
stored analysis) and what it shows is checked against that answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from tests.conftest import run_async
from tests.e2e.gaple import PHONE, Page, wait_until
from tests.e2e.test_replay import _play_a_set

WORDS = {
    "id-ID": {
        "best": "terbaik",
        "open": "Terbaik dengan semua kartu terbuka",
        "mine": "Kesalahan terbesarmu",
    },
    "en-GB": {"best": "best", "open": "Best with all hands open", "mine": "Your biggest mistakes"},
}


def _mark_is(locator: Any, want: str) -> Callable[[], bool]:
    return lambda: bool(locator.get_attribute("data-mark") == want)


def test_a_replay_shows_the_marks_and_the_best_move_in_both_languages(
    open_page: Any, e2e_server: Any
) -> None:
    base = e2e_server.base_url
    player_id, set_id = run_async(lambda: _play_a_set(base, finish=True, mode="ganda"))
    detail = httpx.get(f"{base}/api/sets/{set_id}", timeout=10).json()
    moves = detail["deals"][0]["moves"]
    me = json.dumps({"name": "Budi", "token": None, "player_id": player_id})
    for locale, words in WORDS.items():
        page: Page = open_page(viewport=PHONE, locale=locale, label=f"analysis-{locale}")
        page.page.context.add_init_script(
            f"localStorage.setItem('gaple.player', {json.dumps(me)});"
        )
        page.goto(f"{detail['link']}#deal=1&move=0")
        page.page.locator('[data-testid="analysis"][data-status="ready"]').wait_for(timeout=90_000)
        answer = httpx.get(f"{base}/api/sets/{set_id}/deals/1/analysis", timeout=10)
        assert answer.status_code == 200, answer.text
        analysis = answer.json()["moves"]
        assert len(analysis) == len(moves)

        items = page.page.locator('[data-testid="analysis-move"]')
        assert items.count() == len(moves)
        marks = [items.nth(i).get_attribute("data-mark") for i in range(len(moves))]
        assert marks == [m["mark"] or "" for m in analysis]
        best_items = [i for i, m in enumerate(analysis) if m["mark"] == "best"]
        assert best_items  # a forced move at least is always best
        label = items.nth(best_items[0]).locator(".analysis-mark").inner_text()
        assert label == words["best"]

        best = page.page.locator('[data-testid="analysis-best"]')
        assert best.get_attribute("data-mark") == (analysis[0]["mark"] or "")
        text = best.inner_text()
        assert words["open"] in text
        assert all(b["tile"] in text for b in analysis[0]["best_moves"])

        page.page.locator('[data-testid="replay-next"]').click()
        second = analysis[1]["mark"] or ""
        wait_until(_mark_is(best, second), 5, lambda: "move 2's mark is not shown")
        mistakes = page.page.locator('[data-testid="analysis-mistakes"]')
        assert words["mine"] in mistakes.inner_text()
        mine = [m for m in analysis if m["seat"] == 0 and (m["loss"] or 0) > 1e-9]
        shown = page.page.locator('[data-testid="analysis-mistake"]')
        assert shown.count() == min(5, len(mine))
