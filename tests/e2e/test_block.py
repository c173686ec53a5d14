"""Block Domino's deal result in the browser: no discards column (nobody lays a tile face down
in Block Domino), on a phone in Indonesian and on a desktop in English."""

from __future__ import annotations

import random
import time

from tests.e2e.gaple import DESKTOP, PHONE, bot_table

SEED = random.randrange(1 << 32)

# The first deal result drawn (the next deal may take it away within a second): its column
# headings and how many discard cells it had.
FIRST_RESULT_JS = r"""
() => {
  window.__firstResult = null;
  new MutationObserver((_, watch) => {
    const table = document.querySelector('.result-table');
    if (!table || window.__firstResult) return;
    window.__firstResult = {
      heads: [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim()),
      discards: table.querySelectorAll('[data-testid="revealed-discards"]').length,
    };
    watch.disconnect();
  }).observe(document, { subtree: true, childList: true });
}
"""


def test_block_domino_results_have_no_discards_column(open_page, lobby_api):
    rng = random.Random(SEED)
    print(f"seed {SEED}")
    for name, locale, viewport, heads in (
        ("Blok", "id-ID", PHONE, ["Pemain", "Sisa kartu", "Hitungan", "Poin", "Total"]),
        ("Block", "en-US", DESKTOP, ["Player", "Tiles left", "Count", "Points", "Total"]),
    ):
        page, _, _ = bot_table(
            lobby_api,
            open_page,
            name=name,
            seat=0,
            preset="klasik",
            stuck="pass",
            start=False,
            page_options={"locale": locale, "viewport": viewport},
        )
        page.page.evaluate(FIRST_RESULT_JS)
        page.start_set()
        deadline = time.monotonic() + 180
        while not page.page.evaluate("() => window.__firstResult"):
            assert time.monotonic() < deadline, "no deal result"
            if not page.play_turn(rng, wait=False, fast=True):
                time.sleep(0.05)
        first = page.page.evaluate("() => window.__firstResult")
        assert first == {"heads": heads, "discards": 0}, (name, first)
