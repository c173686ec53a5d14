"""A tap survives a redraw (static/js/taps.js): views are drawn anew from state, so a redraw
between a press and its release would replace the pressed control and lose the tap. While a
control is pressed the redraw waits for its click, then shows the newest state; a long press
holds nothing for more than HOLD_MS."""

from __future__ import annotations

import json
import time
from typing import Any

HOLD_MS = 800  # static/js/taps.js

# Another tab renames the player: this page's state changes and it redraws (main.js, "storage").
RENAME_JS = """(name) => {
  const player = JSON.parse(localStorage.getItem('gaple.player'));
  localStorage.setItem('gaple.player', JSON.stringify({ ...player, name }));
  window.dispatchEvent(new StorageEvent('storage', { key: 'gaple.player' }));
}"""
NAME = "document.querySelector('[data-testid=\"current-name\"]').textContent"


def _press_toggle(page: Any) -> None:
    box = page.box(page.by("lang-toggle"))
    page.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.page.mouse.down()


def _lang(page: Any) -> str:
    return str(page.page.evaluate("() => document.documentElement.lang"))


def test_a_tap_with_a_redraw_between_press_and_release_lands(open_page: Any) -> None:
    page = open_page(label="tap")
    page.open_lobby()
    page.save_name("Ayu")
    assert _lang(page) == "id"
    _press_toggle(page)
    page.page.evaluate(RENAME_JS, "Budi")
    page.page.wait_for_timeout(200)
    # Pressed: the redraw waits, the control under the finger is the one pressed.
    assert page.page.evaluate(f"() => {NAME}") == "Ayu"
    page.page.mouse.up()
    # The tap landed (English now), and the redraw that waited shows the newest state.
    page.wait_js("() => document.documentElement.lang === 'en'", timeout=5)
    page.wait_js(f"() => {NAME} === 'Budi'", timeout=5)
    stored = json.loads(page.page.evaluate("() => localStorage.getItem('gaple.player')"))
    assert stored["name"] == "Budi"
    assert page.errors == []


def test_a_long_press_does_not_hold_the_page(open_page: Any) -> None:
    page = open_page(label="hold")
    page.open_lobby()
    page.save_name("Ayu")
    _press_toggle(page)
    pressed = time.monotonic()
    page.page.evaluate(RENAME_JS, "Cici")
    page.wait_js(f"() => {NAME} === 'Cici'", timeout=5)  # still pressed
    assert time.monotonic() - pressed >= HOLD_MS / 1000 * 0.9
    page.page.mouse.up()
    page.page.wait_for_timeout(300)
    assert page.errors == []


def test_a_keyboard_press_redraws_at_once(open_page: Any) -> None:
    page = open_page(label="keys")
    page.open_lobby()
    page.save_name("Ayu")
    page.by("lang-toggle").focus()
    page.page.keyboard.press("Enter")
    page.wait_js("() => document.documentElement.lang === 'en'", timeout=5)
    page.page.evaluate(RENAME_JS, "Dewi")
    page.wait_js(f"() => {NAME} === 'Dewi'", timeout=2)
    assert page.errors == []
