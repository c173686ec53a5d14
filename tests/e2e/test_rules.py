"""The rules page (/aturan) at phone size in Bahasa Indonesia and English: its sections, the
drawings made of real tiles, the numbers the server's presets serve, the anchors; and practice
against bots, one tap from the rules page and from the lobby to a started table."""

from __future__ import annotations

from typing import Any

from tests.e2e.gaple import PHONE, no_horizontal_scroll, save_screenshot, wait_until

SECTIONS = [
    "pordi", "kartu", "bagi", "buka", "menaruh", "pas", "domi", "ceki", "kandang", "poin", "set",
    "klasik", "meja-klasik", "stuck", "hitungan", "poin-klasik", "pilihan", "latihan",
]  # fmt: skip
CEKI_KINDS = ["balak", "ceki", "ceki_habis", "ceki_one", "ceki_balak", "ceki_palang"]
DRAWINGS = {"balak-set", "place", "biasa", "kandang", "klasik-start", "boneyard", *CEKI_KINDS}

PAGE_JS = r"""
() => {
  const $$ = (s) => [...document.querySelectorAll(s)];
  const drawings = {};
  for (const fig of $$('[data-testid="rules-drawing"]')) {
    const tiles = [...fig.querySelectorAll('[data-testid="rules-tile"]')];
    drawings[fig.dataset.kind] = {
      tiles: tiles.map((t) => t.dataset.tile),
      // A tile is drawn: an SVG body with pips (or a face-down back), with a real size on screen.
      drawn: tiles.every((t) => t.querySelector('.domino-body')
        && t.getBoundingClientRect().width > 8),
      pips: fig.querySelectorAll('circle.pip').length,
      last: [...fig.querySelectorAll('[data-last="true"]')].map((t) => t.dataset.tile),
      ends: [...fig.querySelectorAll('[data-testid="rules-end"]')].map((e) => e.dataset.value),
      label: (fig.querySelector('[role="img"]') || {}).ariaLabel || null,
      width: fig.getBoundingClientRect().width,
    };
  }
  const article = document.querySelector('[data-testid="rules"]');
  return {
    lang: article && article.dataset.lang,
    htmlLang: document.documentElement.lang,
    h1: $$('h1').map((e) => e.textContent),
    sections: $$('[data-testid="rules-section"]').map((e) => e.dataset.section),
    headings: $$('.rules-heading').map((e) => [e.tagName, e.id]),
    toc: $$('[data-testid="rules-toc-link"]').map((e) => e.getAttribute('href')),
    ceki: $$('[data-testid="rules-ceki"]').map((e) => e.dataset.kind),
    games: $$('[data-testid="rules-game"]').map((e) => [e.dataset.stuck, e.querySelector('h4').id]),
    points: $$('[data-testid="rules-points-table"] tbody tr')
      .map((r) => [r.dataset.result, r.querySelector('td').textContent]),
    kandang: $$('[data-testid="rules-kandang-table"]')
      .map((t) => [t.dataset.mode, [...t.querySelectorAll('td')].map((d) => d.textContent)]),
    klasikTables: $$('[data-testid="rules-klasik-table"]').map((e) => Number(e.dataset.hand)),
    text: article ? article.innerText : '',
    drawings,
  };
}
"""


def _rules(page: Any) -> dict[str, Any]:
    page.by("rules", status="ready").wait_for()
    return dict(page.page.evaluate(PAGE_JS))


def _check_page(info: dict[str, Any], presets: dict[str, Any]) -> None:
    pordi, klasik = presets["presets"]
    assert info["sections"] == SECTIONS
    assert [h for h in info["headings"] if h[1] in ("pordi", "klasik", "latihan")] == [
        ["H2", "pordi"],
        ["H2", "klasik"],
        ["H2", "latihan"],
    ]
    assert {tag for tag, _ in info["headings"]} <= {"H2", "H3"} and len(info["h1"]) == 1
    games = ["gaple-klasik", "block-domino", "draw-domino"]
    assert set(info["toc"]) == {f"#{s}" for s in SECTIONS + games}
    assert info["ceki"] == CEKI_KINDS
    assert info["games"] == [
        ["discard", "gaple-klasik"],
        ["pass", "block-domino"],
        ["draw", "draw-domino"],
    ]
    # The drawings: real tiles, pips and all, the last tile of each ending outlined.
    drawings = info["drawings"]
    assert set(drawings) == DRAWINGS
    for kind, drawing in drawings.items():
        assert drawing["tiles"] and drawing["drawn"], (kind, drawing)
        # Its name for a screen reader lists its tiles; the caption explains it.
        assert all(tile in drawing["label"] for tile in drawing["tiles"] if tile != "back"), kind
        assert drawing["width"] <= PHONE[0], (kind, drawing["width"])
    assert drawings["balak-set"]["tiles"] == [f"{n}-{n}" for n in range(7)]
    assert drawings["balak-set"]["pips"] == sum(2 * n for n in range(7))
    assert drawings["ceki"]["last"] == ["5-3"] and drawings["ceki_balak"]["last"] == ["4-4"]
    assert drawings["ceki_palang"]["last"] == ["5-5"]
    palang = drawings["ceki_palang"]["tiles"]
    assert sum("5" in tile.split("-") for tile in palang) == 7  # every 5 on the board
    assert drawings["kandang"]["ends"] == ["2", "2"] and drawings["kandang"]["last"] == ["3-2"]
    assert sum("2" in tile.split("-") for tile in drawings["kandang"]["tiles"]) == 7
    assert drawings["place"]["ends"] == ["3", "5"]
    boneyard = klasik["rules"]["tables"][0]["set_aside"]
    assert drawings["boneyard"]["tiles"] == ["back"] * boneyard
    # The numbers are the server's: the points, the Kandang tables, the hands, the defaults.
    points = dict(info["points"])
    for result, n in pordi["rules"]["domi_points"].items():
        assert points[result] == f"+{n}", result
    kt = pordi["rules"]["kandang"]["tunggal"]
    assert (
        info["kandang"][0][0] == "tunggal" and f"+{kt['locker_lower']}" in info["kandang"][0][1][0]
    )
    assert info["klasikTables"] == [t["hand_size"] for t in klasik["rules"]["tables"]]
    text = info["text"]
    for needed in (
        pordi["rules"]["tables"][0]["first_opening_tile"],
        str(klasik["defaults"]["target_points"]),
        str(klasik["rules"]["zero_zero_points"]),
        "Domi",
        "Kandang",
        "Ceki Palang",
        "Gaple Klasik",
        "Block Domino",
        "Draw Domino",
    ):
        assert needed in text, needed


def test_the_rules_page_in_both_languages_at_phone_size(open_page, lobby_api):
    presets = lobby_api.http.get("/api/presets").json()
    page = open_page(locale="id-ID", viewport=PHONE, label="rules-id")
    page.goto("/aturan")
    info = _rules(page)
    assert info["lang"] == "id" and info["htmlLang"] == "id"
    assert info["h1"] == ["Aturan main Gaple"]
    _check_page(info, presets)
    assert "Latihan lawan bot" in info["text"] and "habis" in info["text"]
    no_horizontal_scroll(page)
    page.page.evaluate("() => document.getElementById('ceki').scrollIntoView()")
    save_screenshot(page.page, "rules-phone", docs=True)
    # The language switch: the same page, in English.
    page.by("lang-toggle").click()
    page.by("rules", lang="en").wait_for()
    info = _rules(page)
    assert info["htmlLang"] == "en" and info["h1"] == ["How to play Gaple"]
    _check_page(info, presets)
    assert "Practice against bots" in info["text"] and "used up" in info["text"]
    no_horizontal_scroll(page)
    assert not page.errors, page.errors


def _top_of(page: Any, anchor: str) -> float:
    return float(
        page.page.evaluate(f"() => document.getElementById('{anchor}').getBoundingClientRect().top")
    )


def test_anchors_open_and_link_each_section(open_page):
    page = open_page(locale="en-US", viewport=PHONE, label="anchors")
    # A link straight to a section lands on it.
    page.goto("/aturan#ceki")
    page.by("rules", status="ready").wait_for()
    wait_until(
        lambda: 0 <= _top_of(page, "ceki") < 120,
        5,
        lambda: f"not at #ceki: {_top_of(page, 'ceki')}",
    )
    assert page.page.evaluate("() => window.scrollY") > 500
    # The contents link to every section, and the address says where one is.
    page.page.evaluate("() => window.scrollTo(0, 0)")
    page.page.locator('[data-testid="rules-toc-link"][href="#draw-domino"]').click()
    wait_until(lambda: 0 <= _top_of(page, "draw-domino") < 120, 5, lambda: "not at #draw-domino")
    assert page.page.url.endswith("/aturan#draw-domino")
    page.page.locator('[data-testid="rules-toc-link"][href="#kandang"]').click()
    wait_until(lambda: 0 <= _top_of(page, "kandang") < 120, 5, lambda: "not at #kandang")
    # Back goes to the previous anchor, still on the rules page.
    page.page.go_back()
    page.by("rules", status="ready").wait_for()
    wait_until(
        lambda: 0 <= _top_of(page, "draw-domino") < 120, 5, lambda: "back: not at #draw-domino"
    )
    assert not page.errors, page.errors


def _at_started_table(page: Any, seats: int = 4) -> dict[str, Any]:
    page.by("table").wait_for(timeout=20_000)
    st = wait_until(
        lambda: (s := page.state())["phase"] in ("playing", "deal_over") and s["seat"] == 0 and s,
        20,
        lambda: f"not at a started table: {page.state()}",
    )
    bots = page.page.locator('[data-testid="seat-panel"][data-connected="bot"]')
    assert bots.count() == seats - 1
    return st


def test_practice_from_the_rules_page_and_the_lobby(open_page, lobby_api):
    page = open_page(locale="id-ID", viewport=PHONE, label="practice")
    page.goto("/aturan#latihan")
    page.by("rules", status="ready").wait_for()
    # No name yet: the card asks for one right there.
    page.by("name-input").fill("Ratna")
    page.by("practice-game-klasik-draw").check()
    page.by("practice-bot-easy").check()
    page.by("practice-submit").click()
    st = _at_started_table(page)
    code = page.page.url.rsplit("/", 1)[1]
    room = lobby_api.http.get(f"/api/rooms/{code}").json()
    assert room["settings"]["preset"] == "klasik" and room["settings"]["stuck"] == "draw"
    assert room["settings"]["public"] is False and room["settings"]["rated"] is False
    assert [s["bot"] for s in room["seats"]] == [None, "easy", "easy", "easy"]
    assert st["hand"], st
    # Not in the lobby's list; from the lobby, one tap: the default game and bots.
    page.open_lobby()
    listed = [r["code"] for r in lobby_api.http.get("/api/rooms").json()["rooms"]]
    assert code not in listed
    assert page.by("rules-link").first.get_attribute("href") == "/aturan"
    page.by("practice-submit").click()
    _at_started_table(page)
    again = page.page.url.rsplit("/", 1)[1]
    assert again != code
    room = lobby_api.http.get(f"/api/rooms/{again}").json()
    assert (room["settings"]["preset"], room["settings"]["mode"]) == ("pordi", "tunggal")
    assert {s["bot"] for s in room["seats"][1:]} == {presets_bot(lobby_api)}
    # The table links to the rules in a new tab, so the game stays.
    link = page.by("rules-link")
    assert link.get_attribute("target") == "_blank"
    # The table left behind was closed.
    assert lobby_api.http.get(f"/api/rooms/{code}").json()["status"] == "closed"
    assert not page.errors, page.errors


def presets_bot(lobby_api: Any) -> str:
    return str(lobby_api.http.get("/api/presets").json()["practice"]["bot"])
