"""Turn alerts in the browser: while the tab is hidden the title and the favicon say it is the
player's turn (and go back when it is visible again), a chime is scheduled on WebAudio when the
turn starts, a tick in each of the last five seconds of the player's own clock, and the mute
toggle silences all of it and is remembered across a reload.

The page's own AudioContext runs; the recording init script (gaple.py) logs every
``OscillatorNode.start``. Hiding the tab is emulated in the page: ``document.visibilityState``
answers "hidden" and a ``visibilitychange`` event is dispatched, as the browser does.
"""

from __future__ import annotations

import math
import random

from tests.e2e.gaple import bot_table, wait_my_turn, wait_until

SET_VISIBILITY_JS = r"""
(hidden) => {
  Object.defineProperty(document, 'visibilityState', {
    configurable: true, get: () => (hidden ? 'hidden' : 'visible'),
  });
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
  document.dispatchEvent(new Event('visibilitychange'));
}
"""

# The page's own words and tones, read from its modules (no copy of them lives here).
PAGE_FACTS_JS = r"""
async () => {
  const alerts = await import('/static/js/alerts.js');
  const i18n = await import('/static/js/i18n.js');
  return {
    turn: alerts.TONES.turn.map((x) => x.freq),
    tick: alerts.TONES.tick[0].freq,
    tickFrom: alerts.TICK_FROM_S,
    alertTitle: i18n.t('alert.title', { title: '@@' }),
  };
}
"""

FAVICON_JS = "() => document.querySelector('link[rel=\"icon\"]').getAttribute('href')"


def test_turn_alert_title_favicon_and_tones_while_hidden(open_page, lobby_api):
    page, code, _ = bot_table(
        lobby_api, open_page, name="Wayan", seat=0, turn_seconds=15, deals_per_set=3, start=False
    )
    facts = page.page.evaluate(PAGE_FACTS_JS)
    plain_icon = page.page.evaluate(FAVICON_JS)
    page.page.evaluate(SET_VISIBILITY_JS, True)
    page.start_set()
    wait_my_turn(page, timeout=40)
    plain = f"{code} · Gaple Online"
    expected = facts["alertTitle"].replace("@@", plain)
    assert expected != plain
    wait_until(lambda: page.page.title() == expected, 5, lambda: f"title {page.page.title()!r}")
    assert page.page.evaluate(FAVICON_JS) != plain_icon
    # The chime was scheduled when the turn came, on the page's own AudioContext.
    tones = page.recorded()["tones"]
    assert [x["freq"] for x in tones[: len(facts["turn"])]] == facts["turn"], tones

    # Back in view: the page's own title and icon, though it is still the player's turn.
    page.page.evaluate(SET_VISIBILITY_JS, False)
    assert page.page.title() == plain
    assert page.page.evaluate(FAVICON_JS) == plain_icon
    assert page.state()["mine"]

    # The last five seconds of the clock tick, one tick a second, none before.
    def ticks():
        return [x for x in page.recorded()["tones"] if x["freq"] == facts["tick"]]

    wait_until(lambda: len(ticks()) >= 3, 20, lambda: f"ticks: {ticks()}")
    left = [x["clockLeft"] for x in ticks()]
    assert all(0 < ms <= facts["tickFrom"] * 1000 + 50 for ms in left), left
    seconds = [math.ceil(ms / 1000) for ms in left]
    assert seconds == sorted(set(seconds), reverse=True), left  # one tick for each second
    assert page.errors == []


def test_mute_toggle_silences_turns_and_is_remembered(open_page, lobby_api):
    page, code, _ = bot_table(
        lobby_api, open_page, name="Made", seat=1, turn_seconds=60, deals_per_set=3
    )
    facts = page.page.evaluate(PAGE_FACTS_JS)
    toggle = page.by("sound-toggle")
    assert toggle.get_attribute("data-sound") == "on"  # on by default
    assert toggle.get_attribute("aria-pressed") == "true"
    toggle.click()
    page.by("sound-toggle", sound="off").wait_for()
    assert page.by("sound-toggle").get_attribute("aria-pressed") == "false"

    page.page.reload()
    page.by("table").wait_for()
    page.by("sound-toggle", sound="off").wait_for()
    page.page.evaluate(SET_VISIBILITY_JS, True)
    before = len(page.recorded()["tones"])
    st = wait_my_turn(page, timeout=40)
    page.page.wait_for_timeout(300)
    assert len(page.recorded()["tones"]) == before == 0
    # Silent is not unseen: the hidden tab still says whose turn it is.
    assert page.page.title() == facts["alertTitle"].replace("@@", f"{code} · Gaple Online")

    # Turned back on, the next turn chimes again.
    page.page.evaluate(SET_VISIBILITY_JS, False)
    page.by("sound-toggle").click()
    page.by("sound-toggle", sound="on").wait_for()
    assert page.play_turn(random.Random(1), st)
    wait_my_turn(page, timeout=40)
    wait_until(lambda: page.recorded()["tones"], 5, "no chime after unmuting")
    assert page.errors == []
