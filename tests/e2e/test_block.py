"""Block Domino's deal result in the browser: no discards column (nobody lays a tile face down
in Block Domino), on a phone in Indonesian and on a desktop in English."""

from __future__ import annotations

import random
import time

from tests.e2e.gaple import DESKTOP, PHONE, bot_table

SEED = random.randrange(1 << 32)


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
            page_options={"locale": locale, "viewport": viewport},
        )
        deadline = time.monotonic() + 90
        while page.state()["result"] is None:
            assert time.monotonic() < deadline, "no deal result"
            if not page.play_turn(rng, wait=False, fast=True):
                time.sleep(0.05)
        table = page.page.locator(".result-table").first
        texts = [h.strip() for h in table.locator("thead th").all_inner_texts()]
        assert [h.lower() for h in texts] == [h.lower() for h in heads], (name, texts)
        assert page.by("revealed-discards").count() == 0
