"""The notification bell on a 390 px phone, in both languages: a friend request made elsewhere
makes its count 1 (through /ws/me), and a tap on the bell marks it read."""

from __future__ import annotations

import time

import pytest

from tests.e2e.gaple import PHONE

BELL = '[data-testid="bell"][data-live="true"]'
# [x, width] of the element `selector` picks once it has a width (null until then).
DRAWN_BOX_JS = """sel => {
  const e = document.querySelector(sel), r = e && e.getBoundingClientRect();
  return r && r.width > 0 ? [r.x, r.width] : null;
}"""


@pytest.mark.parametrize(
    ("locale", "label"),
    [("id-ID", "Notifikasi: 1 belum dibaca"), ("en-US", "Notifications: 1 unread")],
)
def test_a_friend_request_rings_the_bell(open_page, lobby_api, locale, label):
    page = open_page(locale=locale, viewport=PHONE)
    me, asker = lobby_api.guest("Bell"), lobby_api.guest("Ayu")
    page.login_as(me)
    page.open_lobby()  # the page starts with the saved player, and opens /ws/me for them
    bell = page.page.locator(BELL)  # /ws/me is open: the request arrives live
    bell.wait_for()
    assert page.by("bell-count").count() == 0
    lobby_api._call("POST", f"/api/friends/{me['player_id']}", asker["token"])
    page.by("bell-count").wait_for()
    assert page.by("bell-count").inner_text() == "1"
    assert bell.get_attribute("aria-label") == label
    # Read in the page in one step, once it is drawn: the friends list that the request reloads
    # redraws the top bar, and a box read through the locator may meet the bell between two
    # drawings (an element a redraw has just replaced measures 0 wide).
    box = page.wait_js(DRAWN_BOX_JS, BELL)
    assert box[1] > 0 and box[0] >= 0 and box[0] + box[1] <= PHONE[0]

    bell.click()
    page.by("bell-count").wait_for(state="detached")
    for _ in range(100):  # the tap marks it read over REST
        if lobby_api._call("GET", "/api/notifications", me["token"])["unread"] == 0:
            break
        time.sleep(0.1)
    assert lobby_api._call("GET", "/api/notifications", me["token"])["unread"] == 0
