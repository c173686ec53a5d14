"""The table in the browser, one human against three bots: the end choice and its points, the
countdown and the clock's auto-play, a reload mid-deal, a dropped connection, and screenshots of
a table mid-deal at phone and desktop size.

Each table is set up over REST (the lobby UI has its own tests) and started by the host's Start
button; what is checked is what the page draws, compared with the frames its own WebSocket got.
"""

from __future__ import annotations

import itertools
import math
import random
import time

from tests.e2e.gaple import (
    DESKTOP,
    PHONE,
    PHONE_LANDSCAPE,
    bot_table,
    check_end_choice,
    no_horizontal_scroll,
    save_screenshot,
    tile_key,
    wait_my_turn,
    wait_until,
)

SEED = random.randrange(1 << 32)

# Where `tile` lies in the drawn line, once it is there: {line: [as drawn], at: index}.
LANDED_JS = r"""
(tile) => {
  const key = (t) => {
    const [a, b] = t.split('-').map(Number);
    return `${Math.min(a, b)}-${Math.max(a, b)}`;
  };
  const line = [...document.querySelectorAll('[data-testid="line-tile"]')]
    .map((e) => e.dataset.tile);
  const at = line.map(key).indexOf(tile);
  return at < 0 ? false : { line, at };
}
"""


def _played_event(page, seat, tile):
    """The `played` event for `tile` from `seat`, once the page has received it."""

    def find():
        events = page.page.evaluate("() => window.__gaple.events")
        for msg in reversed(events):
            ev = msg["event"]
            if ev["kind"] == "played" and ev["seat"] == seat and tile_key(ev["tile"]) == tile:
                return ev
        return None

    return wait_until(find, 10, f"no played event for {tile} from seat {seat}")


def centre(box):
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def near_its_end(page, end):
    """The end-choice button for `end` lies inside the board, closer to that end's marker than
    to the other end's."""
    other = "right" if end == "left" else "left"
    board = page.box(page.by("board"))
    bx, by = centre(page.box(page.by("end-choice", end=end)))
    inside = board["x"] <= bx <= board["x"] + board["width"]
    inside = inside and board["y"] <= by <= board["y"] + board["height"]
    mine = centre(page.box(page.by("open-end", end=end)))
    theirs = centre(page.box(page.by("open-end", end=other)))
    return inside and math.dist((bx, by), mine) < math.dist((bx, by), theirs)


def test_end_choice_shows_each_end_and_its_points(open_page, lobby_api):
    rng = random.Random(SEED)
    print(f"seed {SEED}")
    page, _, _ = bot_table(
        lobby_api, open_page, name="Putu", seat=1, turn_seconds=60, deals_per_set=21
    )
    choices = 0
    with_points = 0
    deadline = time.monotonic() + 100
    while choices < 2 and not with_points:
        assert time.monotonic() < deadline, f"no tile fitting both ends came ({choices} seen)"
        st = wait_my_turn(page, timeout=40)
        view = st["snapshot"]["view"]
        assert view["turn"] == 1 and view["viewer"] == 1
        # What is highlighted is exactly what the server's snapshot says is legal.
        assert sorted(st["legal"]) == sorted({tile_key(e["tile"]) for e in view["legal"]})
        assert sorted(st["hand"]) == sorted(tile_key(t) for t in view["hand"])
        both = {}
        for entry in view["legal"]:
            if entry["end"] in ("left", "right"):
                both.setdefault(tile_key(entry["tile"]), {})[entry["end"]] = entry["domi_points"]
        both = {t: ends for t, ends in both.items() if set(ends) == {"left", "right"}}
        if view["ends"] and view["ends"]["left"] == view["ends"]["right"]:
            # Both ends alike: a tile scoring the same at either is played without asking.
            both = {t: ends for t, ends in both.items() if ends["left"] != ends["right"]}
        if not both:
            page.play_turn(rng, st)
            continue

        tile = rng.choice(sorted(both))
        ends = both[tile]
        # The first time with the keyboard (Enter on the tile), then with clicks.
        if choices == 0:
            page.tile(tile).press("Enter")
        else:
            page.tile(tile).click()
        bar = page.by("end-choice-bar")
        bar.wait_for()
        assert page.tile(tile).get_attribute("aria-pressed") == "true"
        focused = page.page.evaluate("() => document.activeElement.dataset.testid")
        assert focused == "end-choice", focused  # the choice takes focus
        check_end_choice(page.state())
        assert tile in bar.inner_text()
        buttons = page.by("end-choice")
        assert buttons.count() == 2
        for end, points in ends.items():
            button = page.by("end-choice", end=end)
            open_value = view["ends"][end]
            assert button.get_attribute("data-points") == ("" if points is None else str(points))
            assert button.get_attribute("data-value") == str(open_value)
            assert str(open_value) in button.inner_text()
            shown = button.get_by_test_id("end-choice-points")
            if points is None:
                assert shown.count() == 0
            else:
                with_points += 1
                assert shown.inner_text() == f"+{points}"
                assert str(points) in button.get_attribute("aria-label")
            # On the board, at its own end of the line: nearer its end's marker than the other.
            assert near_its_end(page, end), end
        # The choice can be taken back (Escape) and made again.
        page.page.keyboard.press("Escape")
        bar.wait_for(state="detached")
        assert page.state()["mine"]
        focused = page.page.evaluate("() => document.activeElement.dataset.tile")
        assert focused == tile  # focus goes back to the tile
        page.tile(tile).click()
        bar.wait_for()

        end = rng.choice(["left", "right"])
        line_before = page.state()["line"]
        page.by("end-choice", end=end).click()
        # Read the drawn line in the page as soon as the tile is on it (the deal may end right
        # after this move; the line stays drawn through the pause before the next deal).
        drawn = page.wait_js(LANDED_JS, tile, timeout=10)
        event = _played_event(page, 1, tile)
        assert event["end"] == end
        assert event["auto"] is False
        left, right = (int(x) for x in event["placed"].split("-"))
        if end == "left":
            assert right == view["ends"]["left"] and event["left"] == left, (view["ends"], event)
        else:
            assert left == view["ends"]["right"] and event["right"] == right, (view["ends"], event)
        # On the board: the tile as the server drew it, next to the tile that was at that end
        # (the bots may have played on since).
        line, at = drawn["line"], drawn["at"]
        assert line[at] == event["placed"], (line, event)
        if end == "left":
            assert line[at + 1] == line_before[0], (end, line_before, line)
        else:
            assert line[at - 1] == line_before[-1], (end, line_before, line)
        choices += 1
    print(f"end choices: {choices}, with Domi points: {with_points}")
    save_screenshot(page.page, "table-after-end-choice-desktop")
    assert page.errors == []


def test_countdown_runs_down_then_the_clock_plays(open_page, lobby_api):
    page, code, _ = bot_table(
        lobby_api, open_page, name="Rudi", seat=0, turn_seconds=15, deals_per_set=3
    )
    watcher = open_page(label="watcher", spectator=True)
    watcher.watch(code)  # every seat is taken: the page offers to watch
    watcher.by("table").wait_for()

    st = wait_my_turn(page, timeout=40)
    hand = st["hand"]
    countdown = page.by("countdown", seat=0)
    first = int(countdown.inner_text())
    assert 6 <= first <= 15, first
    assert page.by("seat-panel", seat=0).get_attribute("data-turn") == "true"
    # The spectator sees the same seat's clock.
    assert abs(int(watcher.by("countdown", seat=0).inner_text()) - first) <= 3

    values = [first]
    urgent = False
    badge = page.by("auto-badge", seat=0)
    deadline = time.monotonic() + 25
    while badge.count() == 0:
        assert time.monotonic() < deadline, f"no auto-play; countdown went {values}"
        text = page.page.evaluate(
            "() => { const c = document.querySelector("
            '\'[data-testid="countdown"][data-seat="0"]\');'
            " return c ? [c.textContent, c.classList.contains('urgent')] : null; }"
        )
        if text and text[0]:
            values.append(int(text[0]))
            urgent = urgent or text[1]
        time.sleep(0.25)
    # Counting down one second at a time, never up, all the way to the end.
    assert values == sorted(values, reverse=True), values
    assert values[0] - min(values) >= 4 and min(values) <= 2, values
    assert all(a - b <= 2 for a, b in itertools.pairwise(values)), values  # no jumps
    assert urgent, "the last seconds are not marked urgent"

    tile = badge.get_attribute("data-tile")
    assert tile_key(tile) in hand
    assert "Otomatis" in badge.inner_text() and tile in badge.inner_text()
    event = _played_event(page, 0, tile_key(tile))
    assert event["auto"] is True
    assert tile_key(tile) not in page.state()["hand"]
    # Everyone at the table sees it, the spectator too.
    watcher.by("auto-badge", seat=0).wait_for(timeout=5000)
    save_screenshot(page.page, "table-auto-play-desktop")
    assert page.errors == [] and watcher.errors == []


def test_reload_mid_deal_returns_the_player_to_the_seat(open_page, lobby_api):
    rng = random.Random(SEED + 1)
    page, _, _ = bot_table(
        lobby_api,
        open_page,
        name="Nyoman",
        seat=2,
        turn_seconds=60,
        deals_per_set=3,
        page_options={"viewport": PHONE},
    )
    page.play_turn(rng, wait_my_turn(page))
    before = wait_my_turn(page)
    assert before["line"] and before["hand"] and before["phase"] == "playing"

    page.page.reload()
    page.by("table").wait_for()
    after = wait_my_turn(page)
    assert after["role"] == "seat" and after["seat"] == 2
    assert after["hand"] == before["hand"]
    assert after["legal"] == before["legal"]
    assert after["line"] == before["line"]
    assert page.by("seat-panel", seat=2).get_attribute("data-position") == "bottom"
    assert page.by("seat-panel", seat=2).get_attribute("data-connected") == "true"
    # The hand is drawn at the bottom of the screen.
    box = page.box(page.by("hand"))
    assert box["y"] > PHONE[1] / 2 and box["y"] + box["height"] <= PHONE[1] + 1, box
    assert page.by("connection-banner").count() == 0
    # And the seat still plays.
    tile = page.play_turn(rng, after)
    assert tile and tile not in page.state()["hand"]
    assert page.errors == []


def test_table_mid_deal_screenshots(open_page, lobby_api):
    rng = random.Random(SEED + 2)
    page, _, _ = bot_table(
        lobby_api,
        open_page,
        name="Budi",
        seat=0,
        turn_seconds=60,
        deals_per_set=5,
    )
    # Mid-deal: several tiles down and the player's turn with tiles to play.
    while True:
        st = wait_my_turn(page, timeout=40)
        if len(st["line"]) >= 7 and len(st["legal"]) >= 1 and len(st["hand"]) >= 3:
            break
        page.play_turn(rng, st)
    line = st["line"]
    sizes = (("desktop", DESKTOP), ("phone", PHONE), ("phone-landscape", PHONE_LANDSCAPE))
    for name, size in sizes:
        page.page.set_viewport_size({"width": size[0], "height": size[1]})
        # The board redraws for its new box.
        page.page.wait_for_timeout(400)
        assert page.state()["line"] == line
        no_horizontal_scroll(page)
        for tid in ("hand", "board", "turn-indicator"):
            box = page.box(page.by(tid))
            assert box and 0 <= box["x"] <= box["x"] + box["width"] <= size[0] + 1, (name, tid)
        for i in range(4):
            assert page.by("seat-panel", seat=i).is_visible()
        drawn = page.by("line-tile")
        assert drawn.count() == len(line)
        for i in (0, len(line) - 1):
            box = page.box(drawn.nth(i))
            board = page.box(page.by("board"))
            left, right = board["x"] - 1, board["x"] + board["width"] + 1
            assert left <= box["x"] <= box["x"] + box["width"] <= right, (name, i, box, board)
        target = f"table-{name}"
        save_screenshot(page.page, target, docs=name != "phone-landscape")
    assert page.errors == []


def test_dropped_connection_shows_it_then_resyncs(open_page, lobby_api):
    rng = random.Random(SEED + 3)
    page, code, _ = bot_table(
        lobby_api, open_page, name="Ketut", seat=3, turn_seconds=60, deals_per_set=3
    )
    watcher = open_page(label="watcher", spectator=True)
    watcher.watch(code)  # every seat is taken: the page offers to watch
    watcher.by("table").wait_for()
    before = wait_my_turn(page)
    played = page.play_turn(rng, before)
    assert played
    snapshots = page.recorded()["snapshots"]
    # The link drops right after the move: the bots play on while the page is away.
    page.page.evaluate("() => window.__gaple.sockets.at(-1).close()")
    # The page shows it is away (the DOM watcher records every banner state), then comes back
    # on a new socket that resumes and ends with a fresh snapshot.
    page.wait_js("() => window.__gaple.banners.includes('retrying')", timeout=5)
    page.wait_js("() => !document.querySelector('[data-testid=\"connection-banner\"]')")
    page.wait_js(f"() => window.__gaple.snapshots > {snapshots}")
    assert page.page.evaluate("() => window.__gaple.sockets.length") == 2
    after = wait_my_turn(page)
    # Back in sync: the same line as the spectator who stayed, the same hand as the server's.
    wait_until(
        lambda: watcher.state()["line"] == page.state()["line"],
        10,
        lambda: f"player {page.state()['line']} != watcher {watcher.state()['line']}",
    )
    view = after["snapshot"]["view"]
    assert sorted(after["hand"]) == sorted(tile_key(t) for t in view["hand"])
    assert [e["tile"] for e in view["line"]] == after["line"]
    if view["deal_number"] == before["snapshot"]["view"]["deal_number"]:
        assert played not in after["hand"]
    assert page.by("seat-panel", seat=3).get_attribute("data-connected") == "true"
    assert page.play_turn(rng, after)
