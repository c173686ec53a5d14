"""The host picks each bot's level on the room page; every page shows the levels; the set starts
with those bots.

The host (Indonesian) seats a hard bot in seat 2 by picking the level before "+ Bot", and a bot
of the default level in seat 3 that they then change to easy. A second browser (English), seated
as a guest, sees both levels in its own language and has no level controls. The set starts with
both bots in their seats, at their levels.
"""

from __future__ import annotations

from tests.e2e.gaple import Page, save_screenshot, wait_until


def _level(page: Page, seat: int) -> tuple[str | None, str]:
    badge = page.by("seat-card", seat=seat).get_by_test_id("bot-level")
    badge.wait_for()
    return badge.get_attribute("data-level"), badge.inner_text().strip()


def _wait_level(page: Page, seat: int, level: str) -> None:
    page.wait_js(
        "([seat, level]) => { const b = document.querySelector("
        '`[data-testid="seat-card"][data-seat="${seat}"] [data-testid="bot-level"]`);'
        " return Boolean(b) && b.dataset.level === level; }",
        [seat, level],
    )


def test_the_host_picks_bot_levels_and_everyone_sees_them(open_page, lobby_api):
    host = open_page(label="host", locale="id-ID")
    host.open_lobby()
    host.save_name("Budi")
    code = host.create_table(mode="tunggal", turn_seconds=60, length=1, public=False)

    guest = open_page(label="guest", locale="en-US")
    guest.goto(f"/r/{code}")
    guest.by("room-screen").wait_for()
    guest.by("name-input").fill("Sari")
    guest.sit(1)

    # Seat 2: the level is picked first, then the bot is seated at it.
    host.by("bot-level-select", seat=2).select_option("hard")
    host.by("bot-button", seat=2).click()
    _wait_level(host, 2, "hard")
    # Seat 3: a bot of the default level, then changed to easy on its card.
    host.by("bot-button", seat=3).click()
    host.by("remove-bot-button", seat=3).wait_for()
    assert _level(host, 3)[0] != "easy"
    host.by("bot-level-select", seat=3).select_option("easy")
    _wait_level(host, 3, "easy")

    assert _level(host, 2) == ("hard", "Sulit")
    assert _level(host, 3) == ("easy", "Mudah")
    # The guest's page follows the room (its socket's room frames) and speaks English.
    _wait_level(guest, 2, "hard")
    _wait_level(guest, 3, "easy")
    assert _level(guest, 2) == ("hard", "Hard")
    assert _level(guest, 3) == ("easy", "Easy")
    assert guest.by("bot-level-select").count() == 0  # only the host picks levels
    save_screenshot(host.page, "room-bot-levels-host")
    save_screenshot(guest.page, "room-bot-levels-guest")
    for page in (host, guest):
        for seat in (0, 1):
            assert page.by("seat-card", seat=seat).get_by_test_id("bot-level").count() == 0

    host.start_set()
    guest.by("table").wait_for()
    room = lobby_api.room(code)
    assert room["status"] == "playing"
    assert [s["bot"] for s in room["seats"]] == [None, None, "hard", "easy"]
    for page in (host, guest):
        for seat in (2, 3):
            _wait_bot_panel(page, seat)


def _wait_bot_panel(page: Page, seat: int) -> None:
    panel = page.by("seat-panel", seat=seat)
    wait_until(
        lambda: panel.get_attribute("data-connected") == "bot",
        10,
        f"{page.label}: seat {seat} is not shown as a bot at the table",
    )
