"""A set's record in the browser: downloaded from a finished set's replay, opened from disk on the
replay page (POST /api/records/replay), replayed with the same line and results as the stored
set; a broken file is refused with a translated message naming its line and column. On a phone
(390 px) and a desktop, in Bahasa Indonesia and in English, on a set played through the real
server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.e2e.gaple import DESKTOP, PHONE, Page, wait_until
from tests.e2e.test_replay import drawn, line_after, played_set

BROKEN = {
    "id-ID": "rusak di baris {line}, kolom {column}",
    "en-GB": "broken at line {line}, column {column}",
}


def at_end_of_each_deal(page: Page, deals: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the page draws at the end of each finished deal (its tab, then the last move)."""
    seen = []
    for number in [deal["number"] for deal in deals]:
        page.by("replay-deal-tab", deal=number).click()
        page.by("replay-last").click()
        state = wait_until(
            lambda n=number: (s := drawn(page))["deal"] == n and s["result"] and s,
            5,
            lambda n=number: f"{page.label}: deal {n} did not reach its end: {drawn(page)}",
        )
        seen.append({k: state[k] for k in ("deal", "moves", "line", "hands", "points", "totals")})
    return seen


def test_a_downloaded_record_opened_from_disk_replays_the_same_set(
    open_page: Any, e2e_server: Any, tmp_path: Path
) -> None:
    base = e2e_server.base_url
    detail = played_set(base, mode="tunggal", deals_per_set=2)
    deals = [d for d in detail["deals"] if d["status"] == "finished"]
    assert len(deals) >= 2
    record = httpx.get(f"{base}/api/sets/{detail['set_id']}/record", timeout=10).text
    for viewport, size in ((PHONE, "phone"), (DESKTOP, "desktop")):
        for locale, broken in BROKEN.items():
            label = f"record-{size}-{locale}"
            page: Page = open_page(viewport=viewport, locale=locale, label=label)
            page.goto(detail["link"])
            page.page.locator('[data-testid="replay"][data-status="ready"]').wait_for()
            stored = at_end_of_each_deal(page, deals)
            for deal, state in zip(deals, stored, strict=True):
                assert state["line"] == line_after(deal, len(deal["moves"]))
                assert (state["points"], state["totals"]) == (deal["points"], deal["scores"])

            with page.page.expect_download() as download:
                page.by("replay-download").click()
            path = tmp_path / f"{label}.txt"
            download.value.save_as(path)
            assert path.read_text(encoding="utf-8") == record

            page.by("replay-open-file").set_input_files(str(path))
            page.page.wait_for_url("**/replay/file*")
            page.page.locator('[data-testid="replay"][data-status="ready"]').wait_for()
            assert page.by("replay-file").inner_text().endswith(path.name)
            assert page.by("replay-deal-tab").count() == len(deals)
            assert at_end_of_each_deal(page, deals) == stored
            if viewport == PHONE:  # the page fits the phone: nothing wider than the screen
                width = page.page.evaluate("() => document.documentElement.scrollWidth")
                assert width <= PHONE[0], width

            # A broken file: a tile with a 9 on the first move's line.
            lines = record.split("\n")
            k = next(i for i, raw in enumerate(lines) if raw.startswith("  "))
            seat, tile = lines[k].split()[:2]
            lines[k] = f"  {seat} {tile[0]}-9"
            bad = tmp_path / f"{label}-broken.txt"
            bad.write_text("\n".join(lines), encoding="utf-8")
            page.by("replay-open-file").set_input_files(str(bad))
            error = page.by("replay-error")
            error.wait_for()
            want = broken.format(line=k + 1, column=5)
            assert want in error.inner_text() and bad.name in error.inner_text()
            assert page.by("line-tile").count() == 0
            # The browser logs the API's 422 for the broken file: expected here, and only here.
            page.console[:] = [c for c in page.console if "status of 422" not in c]

            # From the error, the next file opens as well.
            page.by("replay-open-file").set_input_files(str(path))
            page.page.locator('[data-testid="replay"][data-status="ready"]').wait_for()
            assert page.by("replay-deal-tab").count() == len(deals)
