"""Clubs in a real browser (issue #26's browser test), on a 360 px phone: an account founds a
closed club from the Clubs page, a second account asks to join on the club's page and the leader
accepts the request there; the member's profile lists the club. The leader then makes a "club
against club" Swiss on the tournament form (their club and another found by name, the best two
of each counting), two members of each club enter, the leader starts it from its page, the
entrants leave their seats to bots (a no-show is played by the clock, then by a bot: leaving
skips the clock's turns) and the one-round Swiss runs to its end: the page shows the clubs
ranked as the server ranks them and each entrant's club. Then the last leader leaves, naming the
next one when the server asks for a successor. Nothing scrolls sideways. And a club table made
from the lobby's form, labelled with its club in the lobby's list and on its room, and a club
event made from the club's page."""

from __future__ import annotations

import time
from typing import Any

from tests.e2e.gaple import LobbyApi, no_horizontal_scroll, save_screenshot
from tests.e2e.test_tournament_play import give_up_seat, tables_of
from tests.e2e.test_tournaments_page import account, as_player

SMALL_PHONE = (360, 780)


def member_of(api: LobbyApi, club_id: int, guest: dict[str, Any]) -> None:
    """`guest` joins an open club (the API's way)."""
    joined = api._call("POST", f"/api/clubs/{club_id}/members", guest["token"])
    assert joined["state"] == "member", joined


def test_a_closed_club_takes_a_member_and_a_club_battle_runs_to_the_end(
    open_page: Any, lobby_api: LobbyApi
) -> None:
    ayu = account(lobby_api, "AyuGardu")
    budi = account(lobby_api, "BudiGardu")

    leader = open_page(viewport=SMALL_PHONE, label="leader")
    as_player(leader, ayu, "ayugardu")
    # The lobby leads to the Clubs page; the leader founds a closed club there.
    leader.by("lobby-clubs").click()
    leader.by("clubs", status="ready").wait_for()
    leader.by("club-new").click()
    leader.by("club-name").fill("Gardu Melati")
    leader.by("club-description").fill("Main tiap malam Jumat")
    leader.by("club-open").uncheck()
    no_horizontal_scroll(leader)
    leader.by("club-submit").click()
    leader.by("club", status="ready").wait_for()
    melati = int(leader.by("club").get_attribute("data-id"))
    assert leader.page.url.endswith(f"/klub/{melati}")
    assert leader.by("club-state").get_attribute("data-state") == "requests"
    assert leader.by("club-member", player=ayu["player_id"], role="leader").count() == 1
    assert leader.by("club-requests", count=0).count() == 1

    # A second account asks to join on the club's page.
    member = open_page(viewport=SMALL_PHONE, label="budi")
    as_player(member, budi, "budigardu")
    member.goto(f"/klub/{melati}")
    member.by("club", status="ready").wait_for()
    assert member.by("club-join").inner_text().strip() == "Minta masuk"
    member.by("club-join").click()
    member.by("club-requested").wait_for()
    assert member.by("club-member", player=budi["player_id"]).count() == 0

    # The leader sees the request and accepts it.
    leader.page.reload()
    leader.by("club-request", player=budi["player_id"]).wait_for()
    no_horizontal_scroll(leader)
    leader.by("club-request-accept", player=budi["player_id"]).click()
    leader.by("club-member", player=budi["player_id"], role="member").wait_for()
    leader.by("club-requests", count=0).wait_for()
    no_horizontal_scroll(leader)
    save_screenshot(leader.page, "club-phone", full_page=True)
    club = lobby_api._call("GET", f"/api/clubs/{melati}")
    assert [(m["name"], m["role"]) for m in club["members"]] == [
        ("AyuGardu", "leader"),
        ("BudiGardu", "member"),
    ]
    # The member's profile lists the club, linking to its page.
    member.goto(f"/p/{budi['player_id']}")
    member.by("profile-club", club=melati, role="member").click()
    member.by("club", status="ready", id=melati).wait_for()
    member.by("club-my-role", role="member").wait_for()

    # Another club, and a third member of the first (asked, accepted by the API).
    sari, dewi, eka = (account(lobby_api, n) for n in ("SariMawar", "DewiMawar", "EkaGardu"))
    mawar = lobby_api._call(
        "POST", "/api/clubs", sari["token"], json={"name": "Gardu Mawar", "open": True}
    )["id"]
    member_of(lobby_api, mawar, dewi)
    asked = lobby_api._call("POST", f"/api/clubs/{melati}/members", eka["token"])
    assert asked["state"] == "requested"
    lobby_api._call("POST", f"/api/clubs/{melati}/requests/{eka['player_id']}/accept", ayu["token"])

    # The leader makes a club-against-club Swiss on the form: one round, one deal a set.
    leader.goto("/turnamen")
    leader.by("tournaments", status="ready").wait_for()
    leader.by("tournament-new").click()
    leader.by("tournament-name").fill("Adu Gardu")
    leader.by("tournament-rounds").fill("1")
    leader.by("tournament-min").fill("4")
    leader.by("tournament-max").fill("4")
    leader.by("tournament-turn-seconds").select_option("15")
    leader.by("tournament-deals-per-set").fill("1")
    leader.by("tournament-clubs-battle").check()
    leader.by("battle-club-add", club=melati).click()  # the leader's own clubs are offered
    leader.by("battle-club-search").fill("mawar")
    leader.by("battle-club-find").click()
    leader.by("battle-club-add", club=mawar).click()
    assert [leader.by("battle-club").nth(i).get_attribute("data-club") for i in range(2)] == [
        str(melati),
        str(mawar),
    ]
    leader.by("tournament-best").fill("2")
    no_horizontal_scroll(leader)
    leader.by("tournament-battle").scroll_into_view_if_needed()
    save_screenshot(leader.page, "club-battle-form-phone")
    leader.by("tournament-submit").click()
    leader.by("tournament", status="ready").wait_for()
    tid = int(leader.by("tournament").get_attribute("data-id"))
    view = lobby_api._call("GET", f"/api/tournaments/{tid}")
    assert view["club_battle"] == {
        "clubs": [{"id": melati, "name": "Gardu Melati"}, {"id": mawar, "name": "Gardu Mawar"}],
        "best": 2,
    }
    assert (view["round_count"], view["settings"]["deals_per_set"]) == (1, 1)
    leader.by("tournament-battle-clubs").wait_for()

    # Two of each club enter; the leader starts it from the page.
    players = [budi, eka, sari, dewi]
    by_player = {g["player_id"]: g for g in players}
    for guest in players:
        lobby_api._call("POST", f"/api/tournaments/{tid}/entries", guest["token"], json={})
    leader.by("tournament-live", live="live").wait_for()
    leader.by("tournament-entrant-club", club=mawar).nth(1).wait_for()
    assert leader.by("tournament-entrant-club", club=melati).count() == 2
    leader.by("tournament-start-button").click()

    # The entrants leave their seats to bots: the set is played to its end.
    [table] = tables_of(lobby_api, tid, 1)
    for seat in table["seats"]:
        give_up_seat(lobby_api, table["code"], by_player[seat["player_id"]])
    deadline = time.monotonic() + 45
    while (view := lobby_api._call("GET", f"/api/tournaments/{tid}"))["status"] != "finished":
        assert time.monotonic() < deadline, view["status"]
        time.sleep(0.3)

    # The page follows: the clubs ranked as the server ranks them, the best two counted.
    leader.by("tournament-status", status="finished").wait_for()
    standings = view["club_standings"]
    assert {row["club"]["id"] for row in standings} == {melati, mawar}
    names = {e["id"]: e["player"]["name"] for e in view["entrants"]}
    rows = leader.by("club-standing")
    assert rows.count() == 2
    for i, row in enumerate(standings):
        shown = rows.nth(i)
        assert shown.get_attribute("data-club") == str(row["club"]["id"])
        assert shown.get_attribute("data-rank") == str(row["rank"])
        assert float(shown.get_attribute("data-points")) == row["points"]
        points = {s["entrant"]: s["points"] for s in view["standings"]}
        assert row["points"] == sum(points[e] for e in row["counted"])
        assert shown.locator(".club-counted").inner_text() == ", ".join(
            names[e] for e in row["counted"]
        )
    no_horizontal_scroll(leader)
    leader.by("club-standings").scroll_into_view_if_needed()
    save_screenshot(leader.page, "club-battle-phone")

    # The club's page lists its event, linking to the tournament.
    leader.goto(f"/klub/{melati}")
    leader.by("club-event", id=tid, battle="true", status="finished").wait_for()
    no_horizontal_scroll(leader)

    # The last leader leaves: the server asks for a successor, the page offers the members.
    leader.page.on("dialog", lambda dialog: dialog.accept())
    leader.by("club-leave").click()
    leader.by("club-successor-select").wait_for()
    refused = [c for c in leader.console if "status of 409" in c]
    assert len(refused) == 1, leader.console  # the refusal the page turned into the choice
    leader.console.remove(refused[0])
    offered = leader.by("club-successor-select").locator("option")
    assert offered.all_inner_texts()[1:] == ["BudiGardu", "EkaGardu"]
    leader.by("club-successor-select").select_option(budi["player_id"])
    leader.by("club-leave").click()
    leader.by("club-member", player=budi["player_id"], role="leader").wait_for()
    assert leader.by("club-member", player=ayu["player_id"]).count() == 0
    assert leader.by("club-join").count() == 1


def test_a_club_table_from_the_lobby_is_labelled_with_its_club(
    open_page: Any, lobby_api: LobbyApi
) -> None:
    host = account(lobby_api, "RinaKenanga")
    club = lobby_api._call("POST", "/api/clubs", host["token"], json={"name": "Gardu Kenanga"})
    page = open_page(viewport=SMALL_PHONE, label="host")
    as_player(page, host, "rinakenanga")
    # The room form offers the player's clubs, "no club" first.
    choice = page.by("create-club")
    choice.wait_for()
    assert choice.locator("option").all_inner_texts() == ["Tanpa klub", "Gardu Kenanga"]
    choice.select_option(str(club["id"]))
    page.by("create-public").set_checked(True)
    page.by("create-submit").click()
    page.by("room-screen").wait_for()
    code = page.by("room-code").inner_text().strip()
    assert page.by("room-club-line", club=club["id"]).inner_text().strip() == "Klub Gardu Kenanga"
    assert lobby_api.room(code)["club"] == {"id": club["id"], "name": "Gardu Kenanga"}

    # Anyone's lobby lists it with its club, which links to the club's page and its tables.
    watcher = open_page(viewport=SMALL_PHONE, label="watcher")
    watcher.open_lobby()
    label = watcher.by("room-row", code=code).locator('[data-testid="room-club"]')
    label.wait_for()
    assert label.inner_text().strip() == "Klub Gardu Kenanga"
    no_horizontal_scroll(watcher)
    label.locator("a").click()
    watcher.by("club", status="ready", id=club["id"]).wait_for()
    watcher.by("club-table", code=code).wait_for()
    assert watcher.by("club-join-need-account").count() == 1  # a guest: no join button
    no_horizontal_scroll(watcher)

    # A member's way from the club's page to a tournament of the club: the form opens for it.
    page.goto(f"/klub/{club['id']}")
    page.by("club-event-new").click()
    page.by("tournament-form").wait_for()
    assert page.by("tournament-clubs-club").is_checked()
    assert page.by("tournament-club").input_value() == str(club["id"])
    no_horizontal_scroll(page)
    page.by("tournament-name").fill("Piala Kenanga")
    page.by("tournament-submit").click()
    page.by("tournament", status="ready").wait_for()
    tid = int(page.by("tournament").get_attribute("data-id"))
    made = lobby_api._call("GET", f"/api/tournaments/{tid}")
    assert made["club"] == {"id": club["id"], "name": "Gardu Kenanga"}
    assert page.by("tournament-of-club").locator("a").inner_text() == "Gardu Kenanga"
