"""Whole sets in the browser: four pages play a Tunggal set (with a spectator watching every
step), and two pages with two bots play a Ganda set, each to the set's result screen.

Every table is made through the lobby UI: the host's create form, then the share link, the
public list's "Sit", and the join-by-code form. The pages play by clicking legal tiles
(``data-legal="true"``) and an end when asked; two of the Tunggal players use the keyboard
instead (Enter on a focused tile, Enter on an end).
"""

from __future__ import annotations

import random
import re

from tests.e2e.gaple import check_spectator, play_set

SEED = random.randrange(1 << 32)


def test_tunggal_set_four_players_with_a_spectator(open_page):
    rng = random.Random(SEED)
    print(f"seed {SEED}")

    host = open_page(label="budi")
    host.open_lobby()
    host.save_name("Budi")
    code = host.create_table(mode="tunggal", turn_seconds=60, length=2, public=True)
    link = host.by("share-link").input_value()
    assert link.endswith(f"/r/{code}"), link
    assert "Tunggal" in host.by("room-summary").inner_text()

    # Sari opens the shared link and types her name on the room screen before sitting.
    sari = open_page(label="sari")
    sari.goto(link)
    sari.by("room-screen").wait_for()
    sari.by("spectator-marker").wait_for()
    sari.by("name-input").fill("Sari")
    sari.sit(1)

    # Wayan uses "Sit" in the lobby's list of public tables (the first free seat: 2).
    wayan = open_page(label="wayan")
    wayan.open_lobby()
    wayan.save_name("Wayan")
    wayan.by("room-join", code=code).click()
    wayan.wait_seated(2)

    # A spectator watches from the lobby's "Watch" button (the lobby lists a
    # waiting table while it has a free seat).
    watcher = open_page(label="watcher", spectator=True)
    watcher.open_lobby()
    watcher.by("room-watch", code=code).click()
    watcher.by("room-screen").wait_for()
    watcher.by("spectator-marker").wait_for()

    # Dewi types the code (lower case) into the join form.
    dewi = open_page(label="dewi")
    dewi.open_lobby()
    dewi.save_name("Dewi")
    dewi.by("join-code-input").fill(code.lower())
    dewi.by("join-code-submit").click()
    dewi.by("room-screen").wait_for()
    dewi.sit(3)

    players = [host, sari, wayan, dewi]
    sari.keyboard = dewi.keyboard = True  # two of them play with the keyboard
    for seat, page in enumerate(players):
        assert page.by("seat-card", seat=seat).get_attribute("data-occupied") == "true"
    host.start_set()
    for seat, page in enumerate(players):
        page.by("table").wait_for()
        assert page.by("table").get_attribute("data-viewer-seat") == str(seat)
        assert page.by("seat-panel", seat=seat).get_attribute("data-position") == "bottom"
        assert page.by("hand").is_visible()
    watcher.by("table").wait_for()
    assert watcher.by("table").get_attribute("data-role") == "spectator"
    assert watcher.by("spectator-marker").is_visible()
    check_spectator(watcher)

    final = play_set(players, rng, timeout=240, watchers=[watcher])

    # The result screen on every page, the same result everywhere.
    winners = {p.by("set-result").get_attribute("data-winners") for p in [*players, watcher]}
    assert len(winners) == 1, winners
    winner_seats = [int(x) for x in winners.pop().split(",")]
    scores = [int(host.by("score", seat=s).locator(".score-value").inner_text()) for s in range(4)]
    assert scores == final[0]["snapshot"]["view"]["scores"]
    assert winner_seats == [max(range(4), key=lambda s: scores[s])], (winner_seats, scores)
    assert scores[winner_seats[0]] > 0
    assert host.by("next-set-button").is_visible()  # the host only
    for page in [sari, wayan, dewi, watcher]:
        assert page.by("next-set-button").count() == 0
    deals = final[0]["snapshot"]["view"]["set_result"]["deals"]
    assert deals >= 2
    assert re.search(rf"\b{deals}\b", host.by("set-result").inner_text())

    # The spectator saw every deal's reveal, and never a hand.
    check_spectator(watcher)
    assert watcher.by("revealed-hand").count() == 4
    seen = watcher.recorded()
    assert seen["violations"] == []
    assert seen["handSeen"] == 0 and seen["revealSeen"] > 0 and seen["checks"] > 100, seen
    spectator_deals = [e for e in seen["events"] if e["event"]["kind"] == "deal_started"]
    assert len(spectator_deals) == deals
    assert all(e["event"]["hand"] is None for e in spectator_deals)
    for page in [*players, watcher]:
        assert page.errors == [], (page.label, page.errors)


def test_ganda_set_two_players_and_two_bots(open_page):
    rng = random.Random(SEED + 1)
    print(f"seed {SEED + 1}")

    host = open_page(label="ayu", locale="en-US")
    host.open_lobby()
    host.save_name("Ayu")
    code = host.create_table(mode="ganda", turn_seconds=60, length=2, public=False)
    assert "Ganda" in host.by("room-summary").inner_text()
    for seat in (1, 3):
        host.by("bot-button", seat=seat).click()
        host.by("remove-bot-button", seat=seat).wait_for()

    partner = open_page(label="eko", locale="en-US")
    partner.open_lobby()
    partner.save_name("Eko")
    partner.by("join-code-input").fill(code)
    partner.by("join-code-submit").click()
    partner.by("room-screen").wait_for()
    partner.sit(2)

    host.start_set()
    partner.by("table").wait_for()
    for me, page, mate in ((0, host, 2), (2, partner, 0)):
        assert page.by("seat-panel", seat=me).get_attribute("data-position") == "bottom"
        across = page.by("seat-panel", seat=mate)
        assert across.get_attribute("data-position") == "top"
        assert across.get_by_test_id("partner-badge").is_visible()
        assert page.by("partner-badge").count() == 1
        for bot in (1, 3):
            assert page.by("seat-panel", seat=bot).get_attribute("data-connected") == "bot"
        assert page.by("team-score").count() == 2

    final = play_set([host, partner], rng, timeout=180)

    view = final[0]["snapshot"]["view"]
    result = view["set_result"]
    winners = sorted(result["winners"])
    assert winners in ([0, 2], [1, 3]), result
    for page in (host, partner):
        assert page.by("set-result").get_attribute("data-winners") == ",".join(map(str, winners))
        assert page.by("result-panel").get_attribute("data-kind") == "set"
        assert page.by("revealed-hand").count() == 4
    team = 0 if winners == [0, 2] else 1
    shown = int(host.by("team-score", team=team).locator(".score-value").inner_text())
    assert shown == view["scores"][winners[0]] >= 2
    assert host.by("next-set-button").is_visible()
    assert partner.by("next-set-button").count() == 0
    for page in (host, partner):
        assert page.errors == [], (page.label, page.errors)
