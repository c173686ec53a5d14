"""A phone (390 px) in both languages: the seat's leave button and a Klasik deal result's TOTAL
column lie inside the screen."""

from __future__ import annotations

import random
import time

from tests.e2e.gaple import PHONE, bot_table

SEED = random.randrange(1 << 32)

# Where the first deal result's TOTAL cells were drawn (the next deal may take the panel away
# within a second): [left, right] of each, and the page's width.
FIRST_TOTALS_JS = r"""
() => {
  window.__totals = null;
  new MutationObserver((_, watch) => {
    const cells = [...document.querySelectorAll('[data-testid="result-total"]')];
    if (!cells.length || window.__totals) return;
    window.__totals = {
      width: document.documentElement.clientWidth,
      cells: cells.map((c) => { const r = c.getBoundingClientRect(); return [r.left, r.right]; }),
    };
    watch.disconnect();
  }).observe(document, { subtree: true, childList: true });
}
"""


def _inside(page, locator, what):
    box = page.box(locator)
    width = page.page.evaluate("() => document.documentElement.clientWidth")
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, (page.label, what, box, width)


def test_a_phone_shows_the_leave_button_and_the_total_column(open_page, lobby_api):
    rng = random.Random(SEED)
    print(f"seed {SEED}")
    for name, locale in (("Ponsel", "id-ID"), ("Phone", "en-US")):
        page, _, _ = bot_table(
            lobby_api,
            open_page,
            name=name,
            seat=0,
            preset="klasik",
            start=False,
            page_options={"locale": locale, "viewport": PHONE},
        )
        _inside(page, page.by("leave-seat-button", seat=0), "leave seat")
        page.page.evaluate(FIRST_TOTALS_JS)
        page.start_set()
        deadline = time.monotonic() + 180
        while not page.page.evaluate("() => window.__totals"):
            assert time.monotonic() < deadline, "no deal result"
            if not page.play_turn(rng, wait=False, fast=True):
                time.sleep(0.05)
        totals = page.page.evaluate("() => window.__totals")
        assert len(totals["cells"]) == 4, totals
        for left, right in totals["cells"]:
            assert left >= 0 and right <= totals["width"], (name, totals)
