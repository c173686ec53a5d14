"""Names and codes in the browser: an emoji name's avatar, a name longer than the server's limit,
an invite link pasted into the join field, the "Lewat" badge against the result panel, and your
own presence dot while this page is offline."""

from __future__ import annotations

import random

from tests.e2e.gaple import DESKTOP, PHONE, HeldSocket, bot_table, wait_until

SEED = random.randrange(1 << 32)

# Every time the DOM changes while a result panel is up: each pass badge still drawn, and
# whether it is what a tap at its centre would hit (drawn over the panel's backdrop).
BADGE_WATCH_JS = r"""
(() => {
  const seen = window.__badges = { panels: 0, withBadge: 0, onTop: 0, passes: [], ends: [] };
  const check = () => {
    const panel = document.querySelector('[data-testid="result-panel"]');
    if (!panel) return;
    seen.panels += 1;
    const badges = [...document.querySelectorAll('[data-testid="pass-badge"]')];
    if (!badges.length) return;
    seen.withBadge += 1;
    for (const b of badges) {
      const r = b.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (hit && b.contains(hit)) seen.onTop += 1;
    }
  };
  const all = { subtree: true, childList: true, attributes: true };
  new MutationObserver(check).observe(document, all);
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        const m = JSON.parse(e.data);
        if (m.type !== 'event') return;
        if (m.event.kind === 'passed') seen.passes.push(performance.now());
        if (m.event.kind === 'deal_ended') seen.ends.push(performance.now());
      });
    }
  };
})();
"""


def test_the_pass_badge_never_draws_over_the_result_panel(open_page, lobby_api):
    rng = random.Random(SEED)
    print(f"seed {SEED}")
    page, code, _ = bot_table(
        lobby_api,
        open_page,
        name="Lewat",
        seat=0,
        deals_per_set=21,
        start=False,
    )
    page.page.context.add_init_script(BADGE_WATCH_JS)
    page.goto(f"/r/{code}")
    page.wait_seated(0)
    page.start_set()

    def fresh_pass_at_an_end():
        # A deal that ended while a pass of the last two seconds was still being shown.
        page.play_turn(rng, fast=True)
        seen = page.page.evaluate("() => window.__badges")
        late = [e for e in seen["ends"] if any(0 <= e - p < 2000 for p in seen["passes"])]
        return late and seen["panels"] and seen

    seen = wait_until(fresh_pass_at_an_end, 150, "no deal ended right after a pass")
    # The badge of a pass is news only while the deal is played: none is drawn with the
    # result up (let alone over it), though one was fresh when the deal ended.
    assert seen["onTop"] == 0 and seen["withBadge"] == 0, seen


def test_an_emoji_name_keeps_its_whole_first_character_in_the_avatar(open_page, lobby_api):
    page = open_page(label="emoji")
    page.open_lobby()
    page.save_name("👍🏽 Sari")
    # The lobby's avatar: the thumb with its skin tone, not a broken half of it.
    assert page.page.locator('[data-testid="name-card"] .avatar').inner_text() == "👍🏽"

    guest = lobby_api.guest("🇮🇩 Ayu")
    room = lobby_api.create_room(guest["token"], mode="tunggal", turn_seconds=60, public=False)
    lobby_api.sit(guest["token"], room["code"], 1)
    host = HeldSocket(lobby_api.base_url, room["code"], guest["token"])
    try:
        page.open_link(room["code"])
        avatar = page.by("seat-card", seat=1).locator(".avatar")
        assert avatar.inner_text() == "🇮🇩"  # a flag is two code points, one character
    finally:
        host.close()


def test_an_emoji_name_at_the_table(open_page, lobby_api):
    page, _, _ = bot_table(lobby_api, open_page, name="😀budi", seat=0)
    avatar = page.by("seat-panel", seat=0).locator(".avatar")
    assert avatar.inner_text() == "😀"
    assert "\ufffd" not in page.by("seat-panel", seat=0).inner_text()


def test_a_name_longer_than_the_limit_is_refused_in_the_form_not_cut(open_page, lobby_api):
    limit = lobby_api.http.get("/api/presets").json()["names"]["max_length"]
    page = open_page(label="long", locale="en-US")
    page.open_lobby()
    line = page.by("name-limit")
    assert line.inner_text() == f"0/{limit} characters"
    long = "Budi Santoso Wijayakusuma Putra"
    assert len(long) > limit
    page.by("name-input").fill(long)
    assert page.by("name-input").input_value() == long  # nothing cut
    assert line.get_attribute("data-over") == "true"
    assert line.inner_text() == (
        f"Name too long: {len(long)} characters, at most {limit}. Please shorten it."
    )
    assert page.by("name-input").get_attribute("aria-invalid") == "true"
    page.by("name-save").click()
    page.by("toast").filter(has_text="Name too long").wait_for()
    assert page.by("current-name").count() == 0
    assert page.page.evaluate("() => localStorage.getItem('gaple.player')") is None

    fits = "🀄" * limit  # counted as the server counts: one each, though two UTF-16 units
    page.by("name-input").fill(fits)
    assert line.get_attribute("data-over") == "false"
    assert line.inner_text() == f"{limit}/{limit} characters"
    page.by("name-save").click()
    page.by("current-name").wait_for()
    assert page.by("current-name").inner_text() == fits


def test_an_invite_link_pasted_into_the_code_field_opens_the_room(open_page, lobby_api):
    guest = lobby_api.guest("Host")
    code = lobby_api.create_room(guest["token"], mode="tunggal", turn_seconds=60, public=False)[
        "code"
    ]
    lobby_api.sit(guest["token"], code, 0)
    host = HeldSocket(lobby_api.base_url, code, guest["token"])  # the room stays open
    try:
        _join_by_pasting(open_page, lobby_api.base_url, code)
    finally:
        host.close()


def _join_by_pasting(open_page, base, code):
    page = open_page(label="joiner")
    for text in (f"{base}/r/{code}", f"  {base}/r/{code.lower()}/?ref=wa  ", code.lower()):
        page.open_lobby()
        page.by("join-code-input").fill(text)
        assert page.by("join-code-input").input_value() == text  # the whole link fits
        page.by("join-code-submit").click()
        page.by("room-screen").wait_for()
        assert page.page.url == f"{base}/r/{code}"
        assert page.by("room-code").inner_text().strip() == code
    page.open_lobby()
    page.by("join-code-input").fill(f"{base}/replay/1")
    page.by("join-code-submit").click()
    page.by("toast").first.wait_for()
    assert page.by("lobby").count() == 1


def test_your_own_presence_dot_goes_grey_while_your_connection_is_down(open_page, lobby_api):
    page, _, _ = bot_table(lobby_api, open_page, name="Putus", seat=0)
    assert page.by("seat-panel", seat=0).get_attribute("data-connected") == "true"
    assert "on" in page.by("presence", seat=0).get_attribute("class").split()
    # The link drops: no presence message can tell this page so; its own dot must say it.
    page.page.evaluate("() => window.__gaple.sockets.at(-1).close()")
    seen = page.wait_js(
        """() => {
          const banner = document.querySelector('[data-testid="connection-banner"]');
          if (!banner || banner.dataset.state !== 'retrying') return false;
          const dot = document.querySelector('[data-testid="presence"][data-seat="0"]');
          const panel = document.querySelector('[data-testid="seat-panel"][data-seat="0"]');
          return { connected: panel.dataset.connected, cls: dot.className };
        }""",
        timeout=5,
    )
    assert seen["connected"] == "false" and "off" in seen["cls"].split(), seen
    # Back on a new socket: green again.
    page.wait_js("() => !document.querySelector('[data-testid=\"connection-banner\"]')")
    page.wait_js(
        '() => document.querySelector(\'[data-testid="seat-panel"][data-seat="0"]\')'
        ".dataset.connected === 'true'"
    )
    assert "on" in page.by("presence", seat=0).get_attribute("class").split()


def test_a_double_click_on_save_makes_one_guest(open_page):
    for label, locale, viewport in (("phone", "id-ID", PHONE), ("desktop", "en-US", DESKTOP)):
        page = open_page(label=label, locale=locale, viewport=viewport)
        made: list[str] = []
        page.page.on(
            "request",
            lambda r, made=made: (
                made.append(r.url) if r.method == "POST" and r.url.endswith("/api/guests") else None
            ),
        )
        page.open_lobby()
        page.by("name-input").fill("Dobel")
        page.by("name-save").dblclick()
        page.by("current-name").wait_for()
        page.page.wait_for_load_state("networkidle")
        assert len(made) == 1, (label, made)
        assert page.errors == []
