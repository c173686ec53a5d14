"""The deal result's fairness mark in the browser: a player and three bots play a one-deal set;
the page checks the revealed secret against the commitment the deal opened with and marks the
result "✓ acak terbukti adil", linking to the explanation. A page that was shown another
commitment when the deal opened (its frames rewritten on the way in) marks the same deal ✗."""

from __future__ import annotations

import hashlib
import random
import re
import urllib.request

from tests.e2e.gaple import bot_table, fair_mark, play_set

SEED = random.randrange(1 << 32)

# Rewrites every commitment the page receives, before the client reads it: as if the server had
# sealed another secret at the deal's opening.
FORGED_COMMITMENT = r"""
(() => {
  const desc = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'data');
  Object.defineProperty(MessageEvent.prototype, 'data', {
    get() {
      const d = desc.get.call(this);
      return typeof d === 'string'
        ? d.replace(/"commitment": ?"[0-9a-f]{64}"/g, `"commitment":"${'0'.repeat(64)}"`) : d;
    },
  });
})();
"""


def test_a_finished_deal_shows_the_shuffle_verified(open_page, lobby_api):
    rng = random.Random(SEED)
    print(f"seed {SEED}")
    page, _, _ = bot_table(lobby_api, open_page, name="Adil", seat=0, deals_per_set=1)
    play_set([page], rng, timeout=120)
    text = fair_mark(page, "ok")
    assert text.startswith("✓ acak terbukti adil"), text
    events = [m["event"] for m in page.recorded()["events"]]
    ended = [e for e in events if e["kind"] == "deal_ended"]
    started = [e for e in events if e["kind"] == "deal_started"]
    # One deal, or more when first place is tied after it (Tunggal's Additional Games): each one
    # opened with a commitment and ended with the secret it commits to.
    assert len(ended) == len(started) >= 1
    for opened, closed in zip(started, ended, strict=True):
        assert re.fullmatch(r"[0-9a-f]{64}", closed["secret"])
        assert hashlib.sha256(closed["secret"].encode()).hexdigest() == opened["commitment"]
    link = page.by("fair-link")
    assert link.get_attribute("href") == "/static/fairness.html#id"
    page.by("lang-toggle").first.click()  # English: the same mark, the English explanation
    page.wait_js("() => document.documentElement.lang === 'en'")
    text = fair_mark(page, "ok")
    assert text.startswith("✓ shuffle verified"), text
    assert page.by("fair-link").get_attribute("href") == "/static/fairness.html#en"
    base = page.page.url.split("/r/")[0]
    with urllib.request.urlopen(f"{base}/static/fairness.html") as response:
        html = response.read().decode()
    assert 'id="id"' in html and 'id="en"' in html
    assert (
        "Apa artinya ✓ acak terbukti adil?" in html and "What does ✓ shuffle verified mean?" in html
    )
    assert page.errors == []


def test_a_deal_whose_secret_does_not_fit_the_opening_commitment_is_marked(open_page, lobby_api):
    rng = random.Random(SEED + 1)
    page, _, _ = bot_table(
        lobby_api, open_page, name="Curiga", seat=0, deals_per_set=1, start=False
    )
    page.page.add_init_script(FORGED_COMMITMENT)
    page.page.reload()
    page.by("room-screen").wait_for()
    page.wait_seated(0)
    page.start_set()
    play_set([page], rng, timeout=120)
    text = fair_mark(page, "fail")
    assert text.startswith("✗"), text
    assert "✓" not in page.by("result-panel").inner_text()


def test_the_fairness_page_has_the_game_s_icon(open_page):
    # The fairness page names the icon file, and it is served. (The game page keeps its icon
    # inline: the turn alert draws a dot into it, static/js/alerts.js.)
    page = open_page(label="icon")
    page.goto("/static/fairness.html")
    icon = page.page.evaluate(
        "() => document.querySelector('link[rel=icon]')?.getAttribute('href') ?? null"
    )
    assert icon == "/static/favicon.svg"
    response = page.page.request.get("/static/favicon.svg")
    assert response.status == 200 and response.headers["content-type"] == "image/svg+xml"
    assert response.text().startswith("<svg")
