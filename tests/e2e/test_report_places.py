"""Where a report starts (docs/CLIENT.md "Reporting a player"): a profile's Report button and a
chat line's flag open the one report dialog, and what is sent reaches the moderators' queue
(GET /api/admin/reports). The seat menu's report is test_admin.py's."""

from __future__ import annotations

from typing import Any

from tests.e2e.gaple import (
    ADMIN_TOKEN,
    PHONE,
    WCAG_AA,
    contrast,
    no_horizontal_scroll,
    save_screenshot,
)


def queued(lobby_api: Any, player_id: str) -> dict[str, Any]:
    """The moderators' queue entry for ``player_id`` (their open reports), which are then
    dismissed: the server is shared, and test_admin.py watches its queue empty."""
    found = lobby_api._call("GET", "/api/admin/reports", ADMIN_TOKEN)["players"]
    [entry] = [p for p in found if p["player_id"] == player_id]
    for report_id in entry["report_ids"]:
        lobby_api._call("POST", f"/api/admin/reports/{report_id}/dismiss", ADMIN_TOKEN)
    return dict(entry)


def test_a_report_from_a_profile_reaches_the_queue(open_page, lobby_api):
    rudi, wati = lobby_api.guest("Rudi"), lobby_api.guest("Wati")
    page = open_page(label="wati", locale="en-US", viewport=PHONE)
    page.login_as(wati)
    page.goto(f"/p/{wati['player_id']}")
    page.by("profile", status="ready").wait_for()
    assert page.by("report-player").count() == 0  # nobody reports themselves
    page.goto(f"/p/{rudi['player_id']}")
    page.by("profile", status="ready").wait_for()
    button = page.by("report-player", player=rudi["player_id"])
    button.wait_for()
    save_screenshot(page.page, "report-profile-actions-phone")
    assert contrast(button) >= WCAG_AA  # a quiet button on the dark head still reads
    button.click()
    page.by("report-dialog").wait_for()
    assert page.by("report-line").count() == 0  # no chat line quoted from a profile
    page.by("report-category").select_option("cheating")
    page.by("report-text").fill("selalu main bareng akun kedua")
    no_horizontal_scroll(page)
    save_screenshot(page.page, "report-profile-phone")
    page.by("report-send").click()
    page.page.get_by_text("Your report about Rudi reached the moderators.").wait_for()

    entry = queued(lobby_api, rudi["player_id"])
    assert entry["categories"] == {"cheating": 1}
    assert entry["latest"]["reporter_id"] == wati["player_id"]
    assert entry["latest"]["text"] == "selalu main bareng akun kedua"


def test_a_report_from_a_chat_line_quotes_the_line(open_page, lobby_api):
    joko, sari = lobby_api.guest("Joko"), lobby_api.guest("Sari")
    code = lobby_api.create_room(joko["token"], mode="tunggal")["code"]
    lobby_api.sit(joko["token"], code, 0)
    lobby_api.sit(sari["token"], code, 1)
    talker = open_page(label="joko", locale="en-US")
    talker.login_as(joko)
    talker.open_link(code)
    talker.by("chat-toggle").click()
    talker.by("chat-input").fill("dasar bodoh")
    talker.by("chat-send").click()
    talker.by("chat-lines").get_by_text("dasar bodoh").wait_for()
    assert talker.by("chat-line-report").count() == 0  # one's own lines carry no flag

    page = open_page(label="sari", locale="en-US", viewport=PHONE)
    page.login_as(sari)
    page.open_link(code)
    page.by("chat-toggle").click()
    flag = page.by("chat-line-report", seat=0)
    flag.wait_for()
    assert page.by("chat-report").count() == 0  # the drawer's seat row no longer reports
    no_horizontal_scroll(page)
    save_screenshot(page.page, "report-chat-line-phone")
    flag.click()
    page.by("report-dialog").wait_for()
    assert page.by("report-line").inner_text() == "Chat line: Joko: \u201cdasar bodoh\u201d"
    page.by("report-category").select_option("abuse")
    page.by("report-text").fill("menghina")
    save_screenshot(page.page, "report-chat-dialog-phone")
    page.by("report-send").click()
    page.page.get_by_text("Your report about Joko reached the moderators.").wait_for()

    entry = queued(lobby_api, joko["player_id"])
    assert entry["categories"] == {"abuse": 1}
    assert entry["latest"]["text"] == "Joko: \u201cdasar bodoh\u201d\nmenghina"
