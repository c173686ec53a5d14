"""Draw Domino in the browser: made through the create form's named game choice, one person and
three bots, the boneyard count on the felt (from the snapshots), the draw badge, and a whole
short set played by clicking legal tiles to the set's result screen.
"""

from __future__ import annotations

import random

from tests.e2e.gaple import play_set, save_screenshot, wait_until


def test_draw_domino_set_to_the_result_screen(open_page):
    rng = random.Random(5)
    host = open_page(label="dewi", locale="en-US")
    host.open_lobby()
    host.save_name("Dewi")
    host.by("create-preset").select_option("klasik")
    host.by("create-klasik-options").wait_for()
    # The three games of the family, by name; Gaple Klasik is the default.
    names = [host.by(f"create-stuck-{c}").inner_text() for c in ("discard", "pass", "draw")]
    assert [n.splitlines()[0] for n in names] == ["Gaple Klasik", "Block Domino", "Draw Domino"]
    assert host.by("create-stuck-discard").get_attribute("aria-checked") == "true"
    host.by("create-stuck-draw").click()
    assert host.by("create-stuck-draw").get_attribute("aria-checked") == "true"
    host.by("create-target-points").fill("15")
    host.by("create-public").set_checked(False)
    host.by("create-submit").click()
    host.by("room-screen").wait_for()
    host.wait_seated(0)
    assert "Draw Domino" in host.by("room-summary").inner_text()
    for seat in (1, 2, 3):
        host.by("bot-button", seat=seat).click()
        host.by("remove-bot-button", seat=seat).wait_for()
    host.start_set()
    host.by("table").wait_for()
    view = wait_until(lambda: host.state()["snapshot"], 10, "no snapshot")["view"]
    assert view["stuck"] == "draw"
    chip = host.by("boneyard")
    chip.wait_for()
    assert chip.get_attribute("data-count") == str(view["boneyard"])
    save_screenshot(host.page, "draw-domino-table")

    final = play_set([host], rng, timeout=120)
    view = final[0]["snapshot"]["view"]
    assert view["set_result"] is not None and max(view["scores"]) >= 15
    assert host.state()["result"] == "set"
    host.by("set-result").wait_for()
    seen = host.recorded()
    assert seen["violations"] == [], seen["violations"]
    drew = [m["event"] for m in seen["events"] if m["event"]["kind"] == "drew"]
    # Drawing is the engine's: the page only ever learns its own drawn tiles.
    assert all(("tile" in e) == (e["seat"] == 0) for e in drew)
    save_screenshot(host.page, "draw-domino-result")
    assert host.errors == [], host.errors
