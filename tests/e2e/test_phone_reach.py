"""Everything within reach on a phone (390 px) and on a desktop, in both languages.

* The set results of Gaple Klasik, Draw Domino and Block Domino, four seats with three bots:
  every column of the deal's result table and of the score sheet, TOTAL included, lies inside the
  screen (and inside the box that would clip it); the chat button covers no cell and no control
  of the result panel ("Tutup"/"Close" among them), wherever the panel is scrolled to.
* The seat's leave button on the room screen fits the screen.
* "Masuk"/"Log in" stands on the top bar for a guest (a new visitor, and a guest who has played)
  and works; after logging in it gives way to the account.
"""

from __future__ import annotations

import random
import secrets
from typing import Any

import httpx
import pytest

from tests.e2e.gaple import (
    DESKTOP,
    PHONE,
    Page,
    bot_table,
    no_horizontal_scroll,
    play_set,
    save_screenshot,
)

SEED = random.randrange(1 << 32)
SIZES = (("phone", PHONE), ("desktop", DESKTOP))

# The result panel's cells and controls, each as it is drawn and as the chat button would meet
# it: the panel is scrolled so that the target lines up with the button, and what is left of the
# target in sight (clipped by every scrolling box around it) is compared with the button.
REACH_JS = r"""
() => {
  const vw = document.documentElement.clientWidth;
  const vh = document.documentElement.clientHeight;
  const panel = document.querySelector('[data-testid="result-panel"]');
  const chat = document.querySelector('[data-testid="chat-toggle"]');
  const rect = (r) => ({ l: r.left, t: r.top, r: r.right, b: r.bottom });
  const meet = (a, b) => ({
    l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b),
  });
  const area = (a) => Math.max(0, a.r - a.l) * Math.max(0, a.b - a.t);
  const clipOf = (el) => {
    let box = { l: 0, t: 0, r: vw, b: vh };
    for (let p = el.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowX !== 'visible' || s.overflowY !== 'visible') {
        box = meet(box, rect(p.getBoundingClientRect()));
      }
    }
    return box;
  };
  const what = (el) => (el.dataset.testid || el.tagName.toLowerCase()) + ': ' +
    el.textContent.trim().slice(0, 24);
  const cells = [...panel.querySelectorAll('table th, table td')];
  const controls = [...panel.querySelectorAll('button, a')];
  // Every cell inside the screen and inside the (sideways-scrolling) box around it.
  const outside = [];
  for (const cell of cells) {
    const r = rect(cell.getBoundingClientRect());
    const c = clipOf(cell);
    if (r.l < Math.max(0, c.l) - 0.5 || r.r > Math.min(vw, c.r) + 0.5) {
      outside.push({ cell: what(cell), left: r.l, right: r.r, clipLeft: c.l, clipRight: c.r });
    }
  }
  const chatShown = Boolean(chat && chat.checkVisibility());
  const covered = [];
  if (chatShown) {
    for (const el of [...cells, ...controls]) {
      // Scrolled (as far as the panel goes) so that its top, then its bottom, meets the button's.
      for (const edge of ['top', 'bottom']) {
        panel.scrollTop += el.getBoundingClientRect()[edge] - chat.getBoundingClientRect()[edge];
        const seen = meet(rect(el.getBoundingClientRect()), clipOf(el));
        const under = area(meet(seen, rect(chat.getBoundingClientRect())));
        if (under > 0) covered.push({ what: what(el), area: under, scrollTop: panel.scrollTop });
      }
    }
    panel.scrollTop = 0;
  }
  return {
    width: vw,
    cells: cells.length,
    totals: panel.querySelectorAll('[data-testid="result-total"]').length,
    sheetTotals: panel.querySelectorAll('[data-testid="sheet-total"]').length,
    sides: [...panel.querySelectorAll('[data-testid="sheet-side"]')].map((e) => e.textContent),
    close: panel.querySelectorAll('[data-testid="result-close"]').length,
    chatShown,
    outside,
    covered,
  };
}
"""

FRAMES_JS = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"


def _set_lang(page: Page, want: str) -> None:
    if page.by("lang-toggle", lang=want).count() == 0:
        page.by("lang-toggle").click()
    page.by("lang-toggle", lang=want).wait_for()
    page.page.evaluate(FRAMES_JS)


def _inside(page: Page, locator: Any, what: str) -> dict[str, float]:
    box = page.box(locator)
    width = page.page.evaluate("() => document.documentElement.clientWidth")
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, (page.label, what, box, width)
    return box


def _views(page: Page):
    """Each size and language in turn, the page redrawn for it: yields (size name, language)."""
    for size, (w, h) in SIZES:
        page.page.set_viewport_size({"width": w, "height": h})
        for lang in ("id", "en"):
            _set_lang(page, lang)
            yield size, lang


@pytest.mark.parametrize("stuck", ["discard", "draw", "pass"])
def test_set_results_fit_and_the_chat_button_covers_nothing(open_page, lobby_api, stuck):
    rng = random.Random(SEED)
    print(f"seed {SEED}")
    page, _, _ = bot_table(
        lobby_api,
        open_page,
        name=f"Tepi {stuck}",
        seat=0,
        preset="klasik",
        stuck=stuck,
        target_points=1,
        start=False,
        page_options={"locale": "id-ID", "viewport": PHONE},
    )
    for size, lang in _views(page):
        _inside(page, page.by("leave-seat-button", seat=0), f"leave seat ({size}, {lang})")
        no_horizontal_scroll(page)
    page.page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    _set_lang(page, "id")
    page.start_set()
    play_set([page], rng, timeout=240)
    page.by("chat-toggle").wait_for()
    wrong = []  # every view is looked at before the test says what was wrong in which
    for size, lang in _views(page):
        reach = page.page.evaluate(REACH_JS)
        where = (stuck, size, lang, reach["width"])
        assert reach["totals"] == 4 and reach["sheetTotals"] == 4 and reach["close"] == 1, where
        assert len(reach["sides"]) == 4 and sum("Bot" in s for s in reach["sides"]) == 3, reach
        save_screenshot(page.page, f"phone-reach-{stuck}-{size}-{lang}")
        # Every column inside the screen; the chat stays at hand, and clear of the panel.
        if reach["outside"]:
            wrong.append((where, "cut off", reach["outside"]))
        if not reach["chatShown"]:
            wrong.append((where, "no chat button"))
        if reach["covered"]:
            wrong.append((where, "under the chat button", reach["covered"]))
        no_horizontal_scroll(page)
    assert wrong == [], wrong


def _account(base_url: str) -> tuple[str, str]:
    """A saved account (a guest who claimed it over REST): its username and password."""
    guest = httpx.post(f"{base_url}/api/guests", json={"name": "Sari"}, timeout=10).json()
    username, password = f"sari_{secrets.token_hex(3)}", "kartu-balak-66"
    response = httpx.post(
        f"{base_url}/api/accounts",
        json={"username": username, "password": password},
        headers={"Authorization": f"Bearer {guest['token']}"},
        timeout=10,
    )
    assert response.status_code == 201, response.text
    return username, password


def _login_on_the_top_bar(page: Page) -> None:
    button = page.by("login-button")
    assert button.is_visible(), page.label
    box = _inside(page, button, "log in")
    bar = page.box(page.page.locator("#topbar"))
    assert bar["y"] <= box["y"] and box["y"] + box["height"] <= bar["y"] + bar["height"], (box, bar)
    # Nothing else on the bar lies over it.
    for other in ("lang-toggle", "account-menu-button", "lobby-link", "save-account-button"):
        for i in range(page.by(other).count()):
            if not page.by(other).nth(i).is_visible():
                continue
            o = page.box(page.by(other).nth(i))
            apart = o["x"] + o["width"] <= box["x"] + 0.5 or box["x"] + box["width"] <= o["x"] + 0.5
            assert apart, (page.label, other, o, box)
    no_horizontal_scroll(page)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_log_in_is_on_the_top_bar_and_gives_way_to_the_account(open_page, e2e_server, size):
    viewport = dict(SIZES)[size]
    username, password = _account(e2e_server.base_url)
    for played in (False, True):
        for lang, locale, label in (("id", "id-ID", "Masuk"), ("en", "en-US", "Log in")):
            page = open_page(label=f"{size}-{lang}-{played}", locale=locale, viewport=viewport)
            page.open_lobby()
            if played:  # a guest who has a name (and so a token) already
                page.save_name("Tamu")
            _set_lang(page, lang)
            _login_on_the_top_bar(page)
            save_screenshot(page.page, f"phone-reach-topbar-{page.label}")
            assert page.by("login-button").inner_text().strip() == label
            other = "en" if lang == "id" else "id"
            _set_lang(page, other)  # the other language's label fits too
            _login_on_the_top_bar(page)
            _set_lang(page, lang)
            page.by("login-button").click()
            dialog = page.by("account-dialog", kind="login")
            dialog.wait_for()
            page.by("account-username").fill(username)
            page.by("account-password").fill(password)
            page.by("account-submit").click()
            dialog.wait_for(state="detached")
            page.by("account-menu-button", account="account").wait_for()
            assert page.by("login-button").count() == 0, page.label
            assert page.by("save-account-button").count() == 0, page.label
            page.by("account-menu-button").click()
            assert page.by("menu-username").inner_text() == f"@{username}"
            assert page.by("menu-login").count() == 0
            no_horizontal_scroll(page)
