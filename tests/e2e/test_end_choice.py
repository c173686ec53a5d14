"""The end choice in the browser (one human against three bots): a double tap keeps it open and
plays nothing, a tile that fits both ends alike is played without asking, opening it moves
nothing on the table, and its buttons sit at the ends of the drawn line — on a phone too, where
they hide neither a tile nor an end's number, and once the line has turned corners.

Which turns bring such a tile is up to the deal: each test plays on (random legal tiles) until
its turn comes, bounded by a deadline.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from tests.e2e.gaple import DESKTOP, PHONE, Page, bot_table, save_screenshot, tile_key, wait_my_turn

SEED = random.randrange(1 << 32)

# Set once an end-choice bar has been drawn (a MutationObserver sees even a brief one).
WATCH_CHOICE_JS = r"""
() => {
  window.__choiceSeen = false;
  if (window.__choiceWatch) return;
  window.__choiceWatch = new MutationObserver(() => {
    if (document.querySelector('[data-testid="end-choice-bar"]')) window.__choiceSeen = true;
  });
  window.__choiceWatch.observe(document, { subtree: true, childList: true });
}
"""


def both_ends(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The tiles the snapshot lists at both ends: {tile: {"left": points, "right": points}}."""
    found: dict[str, dict[str, Any]] = {}
    for entry in view["legal"]:
        if entry["end"] in ("left", "right"):
            found.setdefault(tile_key(entry["tile"]), {})[entry["end"]] = entry["domi_points"]
    return {tile: ends for tile, ends in found.items() if set(ends) == {"left", "right"}}


def alike(view: dict[str, Any], ends: dict[str, Any]) -> bool:
    return view["ends"]["left"] == view["ends"]["right"] and ends["left"] == ends["right"]


def turn_with(page: Page, rng: random.Random, want: str, timeout: float = 240) -> tuple[str, dict]:
    """Play on until this page's turn offers a tile that fits both ends — `want` "apart" (to
    different effect: the page asks) or "alike" (ends n|n, same points); returns the tile and
    the state."""
    deadline = time.monotonic() + timeout
    while True:
        assert time.monotonic() < deadline, f"{page.label}: no {want} tile came (seed {SEED})"
        st = wait_my_turn(page, timeout=60)
        view = st["snapshot"]["view"]
        tiles = [t for t, ends in both_ends(view).items() if alike(view, ends) == (want == "alike")]
        if tiles:
            return rng.choice(sorted(tiles)), st
        page.play_turn(rng, st)


def events_seen(page: Page) -> int:
    return int(page.page.evaluate("() => window.__gaple.events.length"))


def played_event(page: Page, seat: int, tile: str, after: int) -> dict[str, Any]:
    """The `played` event of `tile` from `seat` among the events after the first `after`."""
    for _ in range(100):
        for msg in page.page.evaluate("(n) => window.__gaple.events.slice(n)", after):
            ev = msg["event"]
            if ev["kind"] == "played" and ev["seat"] == seat and tile_key(ev["tile"]) == tile:
                return dict(ev)
        time.sleep(0.1)
    raise AssertionError(f"no played event for {tile}")


def boxes(page: Page) -> dict[str, dict[str, float]]:
    """Where the seats, the board and the hand are drawn now."""
    out = {f"seat {i}": page.box(page.by("seat-panel", seat=i)) for i in range(4)}
    out["board"] = page.box(page.by("board"))
    out["hand"] = page.box(page.by("hand"))
    return out


def same_place(a: dict[str, dict[str, float]], b: dict[str, dict[str, float]]) -> list[str]:
    return [
        f"{name}: {a[name]} -> {b[name]}"
        for name in a
        if any(abs(a[name][k] - b[name][k]) > 1 for k in ("x", "y", "width", "height"))
    ]


def centre(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def check_buttons_at_the_ends(page: Page, view: dict[str, Any]) -> None:
    """Each end's button: inside the board, nearer its own end's marker than the other, showing
    that end's number; beside its marker (not over it) unless it stands on it."""
    board = page.box(page.by("board"))
    for end, other in (("left", "right"), ("right", "left")):
        button = page.by("end-choice", end=end)
        b = page.box(button)
        bx, by = centre(b)
        assert board["x"] <= bx <= board["x"] + board["width"], (end, b, board)
        assert board["y"] <= by <= board["y"] + board["height"], (end, b, board)
        mine = page.box(page.by("open-end", end=end))
        theirs = page.box(page.by("open-end", end=other))
        assert math.dist((bx, by), centre(mine)) < math.dist((bx, by), centre(theirs)), end
        assert button.get_attribute("data-value") == str(view["ends"][end])
        assert str(view["ends"][end]) in button.inner_text()
        if "on-marker" not in (button.get_attribute("class") or ""):
            apart = (
                b["x"] >= mine["x"] + mine["width"] - 1
                or b["x"] + b["width"] <= mine["x"] + 1
                or b["y"] >= mine["y"] + mine["height"] - 1
                or b["y"] + b["height"] <= mine["y"] + 1
            )
            assert apart, f"the {end} button {b} hides its end's number {mine}"


def test_double_tap_keeps_the_choice_open_and_plays_nothing(open_page, lobby_api):
    rng = random.Random(SEED)
    print(f"seed {SEED}")
    page, _, _ = bot_table(
        lobby_api, open_page, name="Made", seat=0, turn_seconds=60, deals_per_set=21
    )
    tile, _ = turn_with(page, rng, "apart")
    moves = events_seen(page)
    page.tile(tile).dblclick()
    page.by("end-choice-bar").wait_for()
    page.page.wait_for_timeout(800)
    # Still open, still this page's turn, the tile still in the hand, nothing sent or played.
    now = page.state()
    assert now["choosing"] and now["choosingTile"] == tile, now
    assert tile in now["hand"] and now["mine"] and not now["pending"]
    assert events_seen(page) == moves
    # A tap on the tile again leaves it open too; the choice is then made at an end.
    page.tile(tile).click()
    assert page.state()["choosing"]
    end = rng.choice(["left", "right"])
    page.by("end-choice", end=end).click()
    assert played_event(page, 0, tile, moves)["end"] == end
    assert page.errors == []


def test_a_tile_fitting_both_ends_alike_is_played_without_asking(open_page, lobby_api):
    rng = random.Random(SEED + 1)
    page, _, _ = bot_table(
        lobby_api, open_page, name="Wayan", seat=2, turn_seconds=60, deals_per_set=21
    )
    tile, st = turn_with(page, rng, "alike")
    view = st["snapshot"]["view"]
    page.page.evaluate(WATCH_CHOICE_JS)
    moves = events_seen(page)
    page.tile(tile).click()
    event = played_event(page, 2, tile, moves)
    assert page.page.evaluate("() => window.__choiceSeen") is False
    # Played at one of the two ends the server listed; either gives the same open ends.
    assert event["end"] in ("left", "right")
    n = view["ends"]["left"]
    other = sum(int(x) for x in tile.split("-")) - n
    assert sorted((event["left"], event["right"])) == sorted((n, other)), (view["ends"], event)
    assert page.errors == []


def test_opening_the_choice_moves_nothing_on_the_table(open_page, lobby_api):
    rng = random.Random(SEED + 2)
    page, _, _ = bot_table(
        lobby_api, open_page, name="Komang", seat=1, turn_seconds=60, deals_per_set=21
    )
    for size in (DESKTOP, PHONE):
        page.page.set_viewport_size({"width": size[0], "height": size[1]})
        tile, st = turn_with(page, rng, "apart")
        page.page.wait_for_timeout(300)  # the board redrawn for its box
        before = boxes(page)
        page.tile(tile).click()
        page.by("end-choice-bar").wait_for()
        page.page.wait_for_timeout(300)
        moved = same_place(before, boxes(page))
        assert not moved, f"{size}: opening the end choice moved " + "; ".join(moved)
        check_buttons_at_the_ends(page, st["snapshot"]["view"])
        page.by("end-choice-cancel").click()
        page.by("end-choice-bar").wait_for(state="detached")
        assert not same_place(before, boxes(page))
        page.play_turn(rng, page.state())
    assert page.errors == []


def test_on_a_phone_the_choice_is_at_the_ends_even_after_corners(open_page, lobby_api):
    rng = random.Random(SEED + 3)
    page, _, _ = bot_table(
        lobby_api,
        open_page,
        name="Gede",
        seat=3,
        turn_seconds=60,
        deals_per_set=21,
        page_options={"viewport": PHONE},
    )
    choices = turned = 0
    deadline = time.monotonic() + 200
    # Every choice that comes is checked; the test goes on until one came on a turned line.
    while not turned:
        assert time.monotonic() < deadline, f"{choices} choices, none on a turned line"
        tile, st = turn_with(page, rng, "apart", timeout=deadline - time.monotonic())
        view = st["snapshot"]["view"]
        page.tile(tile).click()
        page.by("end-choice-bar").wait_for()
        check_buttons_at_the_ends(page, view)
        choices += 1
        # Turned: an arm came round a corner, so its end grows the other way on screen.
        grows = [page.by("open-end", end=e).get_attribute("data-grows") for e in ("left", "right")]
        if grows != ["left", "right"]:
            turned += 1
            save_screenshot(page.page, "end-choice-phone-turned")
        end = rng.choice(["left", "right"])
        moves = events_seen(page)
        page.by("end-choice", end=end).click()
        assert played_event(page, 3, tile, moves)["end"] == end
    assert page.errors == []
