"""The set's score sheet and result in the browser: opened from the table during play (the hand
stays playable below it), a row per finished deal named as its result panel named it, the
sheet and every player's standing at the end of a Tunggal set, and in Ganda one column per team
with "+N team" so the partner who did not go out sees the point is theirs too.

Every figure is checked against the snapshot the page's own socket received (`deals`, `scores`,
`set_result`)."""

from __future__ import annotations

import random

from tests.e2e.gaple import (
    PHONE,
    WCAG_AA,
    bot_table,
    contrast,
    no_horizontal_scroll,
    play_set,
    save_screenshot,
    wait_my_turn,
    wait_until,
)

SEED = random.randrange(1 << 32)


# How each deal's result panel named its kind, as it was drawn: {deal number: text}.
KINDS_JS = r"""
() => {
  window.__kinds = {};
  new MutationObserver(() => {
    const kind = document.querySelector('[data-testid="result-type"]');
    const deal = document.querySelector('.result-deal');
    if (kind && deal) window.__kinds[deal.textContent.replace(/\D/g, '')] = kind.textContent;
  }).observe(document, { subtree: true, childList: true });
}
"""


def _view(page):
    return page.recorded()["snapshot"]["view"]


def _places(totals, winners, fewest_lead=False):
    """Competition ranking (1, 2, 2, 4) of each side's total, the winners first."""
    key = [(0 if i in winners else 1, t if fewest_lead else -t) for i, t in enumerate(totals)]
    return [1 + sum(1 for k in key if k < mine) for mine in key]


def _boxes_overlap(a, b):
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_the_sheet_opens_during_play_and_ends_the_tunggal_set(open_page, lobby_api):
    rng = random.Random(SEED)
    print(f"seed {SEED}")
    page, _, _ = bot_table(
        lobby_api,
        open_page,
        name="Budi",
        seat=0,
        deals_per_set=3,
        page_options={"viewport": PHONE},
    )
    button = page.by("scoresheet-button")
    hand = page.by("hand")
    assert not _boxes_overlap(page.box(button), page.box(hand))
    button.click()
    panel = page.by("scoresheet-panel")
    panel.wait_for()
    assert button.get_attribute("aria-expanded") == "true"
    # The first deal waits for this page's move: nothing finished to list yet.
    st = wait_my_turn(page, timeout=60)
    assert _view(page)["deal_number"] == 1 and _view(page)["deals"] == []
    assert page.by("sheet-empty").is_visible()
    assert page.by("sheet-side").count() == 4
    # The hand stays below the sheet, and playable with it open.
    assert not _boxes_overlap(page.box(panel), page.box(hand))
    assert page.play_turn(rng, st)
    page.by("scoresheet-close").click()
    page.by("scoresheet-panel").wait_for(state="detached")

    # Play on, noting how each deal's result panel names its kind, until this page's turn in the
    # third deal (the table waits for it, so the sheet and the snapshot hold still).
    page.page.evaluate(KINDS_JS)

    def later_turn():
        st = page.state()
        if (
            st["phase"] == "playing"
            and st["mine"]
            and st["legal"]
            and len(_view(page)["deals"]) >= 2
        ):
            return st
        page.play_turn(rng, st, fast=True)
        return None

    wait_until(later_turn, 200, "no turn came in the third deal")
    page.by("scoresheet-button").click()
    page.by("scoresheet-panel").wait_for()
    view = _view(page)
    assert page.by("sheet-row").count() == len(view["deals"]) >= 2
    kinds = {int(k): v for k, v in page.page.evaluate("() => window.__kinds").items()}
    assert kinds, "no deal's result panel was seen"
    for deal in view["deals"]:
        row = page.by("sheet-row", deal=deal["deal"])
        assert row.get_attribute("data-result") == deal["result"]
        if deal["deal"] in kinds:
            assert row.get_by_test_id("sheet-result").inner_text() == kinds[deal["deal"]]
        cells = row.get_by_test_id("sheet-cell")
        assert [int(cells.nth(c).get_attribute("data-points")) for c in range(4)] == deal["points"]
        for c, pts in enumerate(deal["points"]):
            assert cells.nth(c).inner_text() == (f"+{pts}" if pts > 0 else "·")
    totals = page.by("sheet-total")
    assert [int(totals.nth(c).inner_text()) for c in range(4)] == view["scores"]
    no_horizontal_scroll(page)
    save_screenshot(page.page, "scoresheet-phone", docs=True)
    page.page.keyboard.press("Escape")
    page.by("scoresheet-panel").wait_for(state="detached")

    final = play_set([page], rng, timeout=180)[0]
    view = final["snapshot"]["view"]
    result = view["set_result"]
    # The set's result: the whole sheet, and every seat ranked.
    sheet = page.by("result-panel").get_by_test_id("scoresheet")
    assert sheet.get_by_test_id("sheet-row").count() == len(view["deals"]) == result["deals"]
    assert [d["deal"] for d in view["deals"]] == list(range(1, result["deals"] + 1))
    for d in view["deals"]:
        assert page.by("sheet-row", deal=d["deal"]).get_attribute("data-result") == d["result"]
    scores = view["scores"]
    places = _places(scores, result["winners"])
    shown = page.by("standing")
    assert shown.count() == 4
    rows = [
        (
            int(shown.nth(i).get_attribute("data-place")),
            int(shown.nth(i).get_attribute("data-seats")),
        )
        for i in range(4)
    ]
    assert sorted(rows) == rows  # best first
    assert {seat: place for place, seat in rows} == dict(enumerate(places))
    mine = page.by("standing-mine")
    if 0 in result["winners"]:
        assert mine.inner_text() == "Kamu menang!"
    else:
        assert mine.inner_text().startswith(f"Kamu peringkat ke-{places[0]}")
    assert int(mine.get_attribute("data-place")) == places[0]


def test_ganda_sheet_has_a_column_per_team_and_says_the_point_is_the_team_s(open_page, lobby_api):
    rng = random.Random(SEED + 1)
    page, _, _ = bot_table(
        lobby_api,
        open_page,
        name="Ayu",
        seat=0,
        mode="ganda",
        target_points=3,
        page_options={"locale": "en-US"},
    )
    final = play_set([page], rng, timeout=240)[0]
    view = final["snapshot"]["view"]
    result = view["set_result"]
    sides = page.by("sheet-side")
    assert [sides.nth(c).get_attribute("data-seats") for c in range(sides.count())] == [
        "0,2",
        "1,3",
    ]
    assert page.by("sheet-row").count() == len(view["deals"]) == result["deals"]
    for d in view["deals"]:
        cells = page.by("sheet-row", deal=d["deal"]).get_by_test_id("sheet-cell")
        for c, seats in enumerate(([0, 2], [1, 3])):
            pts = d["points"][seats[0]]
            assert d["points"][seats[1]] == pts  # partners share the team's counter
            assert cells.nth(c).inner_text() == (f"+{pts} team" if pts > 0 else "·")
    # The last deal made the winning team's total: both partners' rows say "+N team".
    last = view["deals"][-1]
    for seat in result["winners"]:
        points = page.by("result-points", seat=seat).inner_text()
        assert points == f"+{last['points'][seat]} team", (seat, points)
    team = 0 if sorted(result["winners"]) == [0, 2] else 1
    mine = page.by("standing-mine")
    assert mine.inner_text() == ("You won!" if team == 0 else "You placed 2nd")
    standings = page.by("standing")
    assert standings.count() == 2
    assert standings.nth(0).get_attribute("data-seats") == ",".join(
        map(str, sorted(result["winners"]))
    )
    assert "Team" in standings.nth(0).inner_text()


def test_the_sheet_s_notes_are_legible_on_its_cream(open_page, lobby_api):
    # WCAG AA for normal text: its notes and its "no deal yet" line against the sheet's cream.
    page, _, _ = bot_table(
        lobby_api,
        open_page,
        name="Sekar",
        seat=0,
        mode="ganda",
        page_options={"viewport": PHONE, "locale": "en-US"},
    )
    page.by("scoresheet-button").click()
    page.by("sheet-note").wait_for()
    page.by("sheet-empty").wait_for()
    for testid in ("sheet-note", "sheet-empty"):
        ratio = contrast(page.by(testid))
        assert ratio >= WCAG_AA, (testid, ratio)
