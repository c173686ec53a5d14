"""Helpers for the browser tests: a recording init script, a page wrapper that reads the table
from the DOM (the data-testid hooks of docs/CLIENT.md), lobby flows, and a loop that plays
whole sets by clicking legal tiles.

The init script records what the page's own WebSocket received (``window.__gaple``: the last
welcome and snapshot, the events, the sockets themselves) so a test can compare what the page
draws with what the server sent, and watches every DOM mutation: a hand (``hand``/``hand-tile``)
on a spectator page, or a revealed hand while the table's phase is not ``deal_over``/``set_over``,
is recorded as a violation the moment it is drawn (the ``open_page`` fixture fails the test on
any); so is every state the connection banner shows. It also records every tone the page starts
(``OscillatorNode.start``: ``tones``, each with the time then left on the server's last clock),
every Web Animation (``Element.animate``: ``animations``, with the animation's id and the nearest
test id) and every celebration drawn (``celebrations``).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.app.live.server import ServerProcess, free_port

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
DOCS_SCREENSHOTS = ROOT / "docs" / "screenshots"
PHONE = (390, 844)
PHONE_LANDSCAPE = (844, 390)
DESKTOP = (1366, 768)
# The e2e server's lifecycle settings (conftest): short, so that tests see them happen.
QUICKPLAY_BOT_FILL_SECONDS = 2
ADMIN_TOKEN = "e2e-admin-token-7c41d9"  # GAPLE_ADMIN_TOKEN of the e2e server
HOST_AWAY_SECONDS = 2


def server_settings(port: int) -> dict[str, str]:
    """The GAPLE_* settings of a browser tests' server on `port` (conftest's, a test's own)."""
    return {
        "GAPLE_ALLOWED_ORIGINS": f"http://127.0.0.1:{port},http://localhost:{port}",
        "GAPLE_ROOMS_PER_PLAYER": "50",
        # Long enough for a page to show a deal's result, short enough to keep sets quick.
        "GAPLE_DEAL_PAUSE_SECONDS": "1.0",
        # The room lifecycle, short enough to watch happen: bots fill a quick-play table after
        # BOT_FILL seconds, a host away for HOST_AWAY seconds hands over; the sweeper looks every
        # SWEEP seconds. Idle and abandoned rooms keep their defaults (minutes), longer than a test.
        "GAPLE_QUICKPLAY_BOT_FILL_SECONDS": str(QUICKPLAY_BOT_FILL_SECONDS),
        "GAPLE_HOST_AWAY_SECONDS": str(HOST_AWAY_SECONDS),
        "GAPLE_SWEEP_SECONDS": "0.5",
        # Every page and helper comes from 127.0.0.1: the per-address limits are for strangers.
        "GAPLE_RATE_GUESTS": "1000/minute",
        "GAPLE_RATE_ROOMS": "1000/minute",
        "GAPLE_RATE_QUICKPLAY": "1000/minute",
        "GAPLE_RATE_PRACTICE": "1000/minute",
        "GAPLE_RATE_RECORDS": "1000/minute",
        "GAPLE_RATE_SEATS": "1000/minute",
        "GAPLE_RATE_LOGIN": "1000/minute",
        "GAPLE_RATE_LOGIN_USER": "1000/minute",
        "GAPLE_RATE_TOURNAMENTS": "1000/minute",
        "GAPLE_RATE_TOURNAMENT_ENTRIES": "1000/minute",
        "GAPLE_MAX_SOCKETS_PER_ADDRESS": "1000",
        "GAPLE_RATE_REPORTS": "1000/minute",
        "GAPLE_ADMIN_TOKEN": ADMIN_TOKEN,  # the admin page's tests (test_admin.py)
    }


def start_server(data: Path, **overrides: str) -> ServerProcess:
    """A browser tests' server on SQLite in `data`, started: server_settings(), then `overrides`."""
    port = free_port()
    settings = {**server_settings(port), **overrides}
    server = ServerProcess(
        f"sqlite+aiosqlite:///{data / 'gaple.sqlite3'}", data, port=port, **settings
    )
    server.start()
    return server


INIT_SCRIPT = r"""
(() => {
  if (window.__gaple) return;
  const log = {
    welcome: null, snapshot: null, snapshots: 0, events: [], frames: 0,
    checks: 0, handSeen: 0, revealSeen: 0, violations: [], sockets: [], meSockets: [], banners: [],
    tones: [], animations: [], celebrations: [],
  };
  window.__gaple = log;
  if (window.OscillatorNode) {
    const start = OscillatorNode.prototype.start;
    OscillatorNode.prototype.start = function (...args) {
      // The time left on the server's clock: its remaining_ms less the time since it came.
      const clock = log.clock;
      log.tones.push({
        freq: this.frequency.value, at: Date.now(), title: document.title,
        clockLeft: clock ? clock.remaining_ms - (performance.now() - clock.at) : null,
      });
      return start.apply(this, args);
    };
  }
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (keyframes, options) {
    const host = this.closest('[data-testid]');
    log.animations.push({
      id: (options && options.id) || '', testid: host ? host.dataset.testid : null,
      tile: host ? host.dataset.tile || null : null, at: Date.now(),
    });
    if (log.animations.length > 500) log.animations.shift();
    return animate.call(this, keyframes, options);
  };
  const Native = window.WebSocket;
  if (Native) {
    class RecordingWebSocket extends Native {
      constructor(...args) {
        super(...args);
        // The player's own socket (/ws/me: presence, notifications) apart from the table's.
        if (String(args[0]).includes('/ws/me')) { log.meSockets.push(this); return; }
        log.sockets.push(this);
        // Registered before the page's own onmessage, so it always sees a frame first.
        this.addEventListener('message', (e) => {
          let m;
          try { m = JSON.parse(e.data); } catch (err) { return; }
          log.frames += 1;
          if ((m.type === 'snapshot' || m.type === 'event') && m.clock) {
            log.clock = { ...m.clock, at: performance.now() };
          }
          if (m.type === 'welcome') log.welcome = m;
          else if (m.type === 'snapshot') {
            log.snapshot = m;
            log.snapshots += 1;
          }
          else if (m.type === 'event') {
            log.events.push(m);
            if (log.events.length > 2000) log.events.shift();
          }
        });
      }
    }
    window.WebSocket = RecordingWebSocket;
  }
  const violation = (what) => {
    if (log.violations.length < 20 && !log.violations.includes(what)) log.violations.push(what);
  };
  const check = () => {
    log.checks += 1;
    const table = document.querySelector('[data-testid="table"]');
    const phase = table ? table.dataset.phase : null;
    const hands = document.querySelectorAll('[data-testid="hand"], [data-testid="hand-tile"]');
    const revealed = document.querySelectorAll(
      '[data-testid="revealed-hand"], [data-testid="revealed-tile"], ' +
      '[data-testid="revealed-discards"], [data-testid="set-aside-tiles"]');
    // Klasik: a face-down discard is drawn only on its discarder's own page.
    const ownDiscards = document.querySelectorAll(
      '[data-testid="discard-tray"], [data-testid="own-discard"]');
    if (hands.length) log.handSeen += 1;
    const banner = document.querySelector('[data-testid="connection-banner"]');
    if (banner && log.banners[log.banners.length - 1] !== banner.dataset.state) {
      log.banners.push(banner.dataset.state);
    }
    const party = document.querySelector('[data-testid="celebration"]');
    if (party && !party.dataset.recorded) {
      party.dataset.recorded = 'true';
      log.celebrations.push(party.dataset.kind);
    }
    const own = document.querySelectorAll('[data-testid="own-discard"]').length;
    log.ownDiscardSeen = Math.max(log.ownDiscardSeen || 0, own);
    const over = phase === 'deal_over' || phase === 'set_over';
    if (revealed.length && over) log.revealSeen += 1;
    if (revealed.length && !over) {
      violation(`revealed tiles while phase=${phase}: ` +
        [...revealed].map((e) => e.dataset.tile || e.dataset.testid).join(','));
    }
    if (window.__gapleSpectator && ownDiscards.length) {
      violation(`discards on a spectator page (phase=${phase}): ` +
        [...ownDiscards].map((e) => e.dataset.tile || 'tray').join(','));
    }
    if (window.__gapleSpectator && hands.length) {
      violation(`hand on a spectator page (phase=${phase}, role=` +
        `${table && table.dataset.role}): ` +
        [...hands].map((e) => e.dataset.tile || 'hand').join(','));
    }
  };
  new MutationObserver(check).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });
})();
"""

STATE_JS = r"""
() => {
  const $ = (s) => document.querySelector(s);
  const $$ = (s) => [...document.querySelectorAll(s)];
  const table = $('[data-testid="table"]');
  const turn = $('[data-testid="turn-indicator"]');
  const panel = $('[data-testid="result-panel"]');
  const log = window.__gaple || {};
  const snap = log.snapshot;
  return {
    screen: table ? 'table' : $('[data-testid="room-screen"]') ? 'room'
      : $('[data-testid="lobby"]') ? 'lobby' : null,
    phase: table ? table.dataset.phase : null,
    role: table ? table.dataset.role : null,
    seat: table && table.dataset.viewerSeat !== '' ? Number(table.dataset.viewerSeat) : null,
    mine: Boolean(turn && turn.dataset.mine === 'true'),
    hand: $$('[data-testid="hand-tile"]').map((e) => e.dataset.tile),
    handEl: Boolean($('[data-testid="hand"]')),
    legal: $$('[data-testid="hand-tile"][data-legal="true"]').map((e) => e.dataset.tile),
    // A move was sent and not yet answered: the legal tiles are shown but disabled.
    pending: $$('[data-testid="hand-tile"][data-legal="true"][aria-disabled="false"]').length === 0
      && $$('[data-testid="hand-tile"][data-legal="true"]').length > 0,
    choosing: Boolean($('[data-testid="end-choice-bar"]')),
    endsOffered: $$('[data-testid="end-choice"]').map((e) => e.dataset.end),
    endChoices: $$('[data-testid="end-choice"]').map((e) => [e.dataset.end, e.dataset.points]),
    choosingTile: ($('[data-testid="hand-tile"][aria-pressed="true"]') || { dataset: {} })
      .dataset.tile || null,
    line: $$('[data-testid="line-tile"]').map((e) => e.dataset.tile),
    result: panel ? panel.dataset.kind : null,
    revealed: $$('[data-testid="revealed-tile"]').length,
    // Klasik: the discard prompt (every legal tile is a discard) and your face-down discards.
    discarding: Boolean($('[data-testid="discard-prompt"]')),
    ownDiscards: $$('[data-testid="own-discard"]').map((e) => e.dataset.tile),
    snapshot: snap ? { set: snap.set, seq: snap.seq, view: snap.view, clock: snap.clock } : null,
    violations: log.violations || [],
  };
}
"""

# After a click on `tile`: the end choice opened, or the tile left the hand, or the turn moved on,
# or a newer snapshot came (the deal may have ended on it and the next dealt the tile back).
AFTER_CLICK_JS = r"""
([tile, seen]) => {
  if (document.querySelector('[data-testid="end-choice-bar"]')) return 'choose';
  const inHand = document.querySelector(`[data-testid="hand-tile"][data-tile="${tile}"]`);
  const turn = document.querySelector('[data-testid="turn-indicator"]');
  const snap = (window.__gaple || {}).snapshot;
  if (!inHand) return 'played';
  if (!turn || turn.dataset.mine !== 'true') return 'moved_on';
  if (snap && seen && (snap.set !== seen[0] || snap.seq > seen[1])) return 'moved_on';
  return false;
}
"""

AFTER_END_JS = r"""
([tile, seen]) => {
  const inHand = document.querySelector(`[data-testid="hand-tile"][data-tile="${tile}"]`);
  const turn = document.querySelector('[data-testid="turn-indicator"]');
  const snap = (window.__gaple || {}).snapshot;
  const newer = Boolean(snap && seen && (snap.set !== seen[0] || snap.seq > seen[1]));
  return !inHand || !turn || turn.dataset.mine !== 'true' || newer;
}
"""


def tile_key(tile: str) -> str:
    a, b = (int(x) for x in tile.split("-"))
    return f"{min(a, b)}-{max(a, b)}"


def fair_mark(page: Page, expected: str) -> str:
    """Wait (up to 20 s) for the fair-deal mark (static/js/fairness.js) to read ``expected``
    (``ok``, ``fail`` or ``pending``); its text."""
    page.wait_js(
        "(want) => { const m = document.querySelector('[data-testid=\"fair-mark\"]');"
        " return m && m.dataset.fair === want; }",
        expected,
        timeout=20,
    )
    return str(page.by("fair-mark").inner_text())


def save_screenshot(page: Any, name: str, *, docs: bool = False, full_page: bool = False) -> Path:
    """Save test-artifacts/<name>.png; a `docs` one also goes to docs/screenshots/ when
    GAPLE_E2E_UPDATE_DOCS=1."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page, animations="disabled")
    if docs and os.environ.get("GAPLE_E2E_UPDATE_DOCS") == "1":
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_SCREENSHOTS / path.name)
    return path


class LobbyApi:
    """The REST lobby, for setting tables up quickly (the UI flows have their own tests)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.http = httpx.Client(base_url=base_url, timeout=15)

    def close(self) -> None:
        self.http.close()

    def _call(self, method: str, path: str, token: str | None = None, **kw: Any) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = self.http.request(method, path, headers=headers, **kw)
        assert response.status_code < 400, (method, path, response.status_code, response.text)
        return response.json() if response.content else None

    def guest(self, name: str) -> dict[str, Any]:
        return dict(self._call("POST", "/api/guests", json={"name": name}))

    def create_room(self, token: str, **settings: Any) -> dict[str, Any]:
        return dict(self._call("POST", "/api/rooms", token, json=settings))

    def sit(self, token: str, code: str, seat: int) -> None:
        self._call("POST", f"/api/rooms/{code}/seats/{seat}", token)

    def bot(self, token: str, code: str, seat: int) -> None:
        self._call("POST", f"/api/rooms/{code}/bots/{seat}", token, json={"kind": "heuristic"})

    def start(self, token: str, code: str) -> None:
        self._call("POST", f"/api/rooms/{code}/start", token)

    def room(self, code: str) -> dict[str, Any]:
        return dict(self._call("GET", f"/api/rooms/{code}"))

    def close_room(self, token: str, code: str) -> None:
        self._call("DELETE", f"/api/rooms/{code}", token)

    def refused(self, method: str, path: str, token: str | None = None, **kw: Any) -> Any:
        """A call that must fail: returns (status, error code)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = self.http.request(method, path, headers=headers, **kw)
        assert response.status_code >= 400, (method, path, response.status_code, response.text)
        return response.status_code, response.json()["error"]["code"]


class HeldSocket:
    """A seated player's table socket, held open from Python (hello with the token, then every
    frame read and dropped on a thread), so that the room counts a connected human."""

    def __init__(self, base_url: str, code: str, token: str) -> None:
        from websockets.sync.client import connect

        url = base_url.replace("http://", "ws://") + f"/ws/rooms/{code}"
        self._stack = contextlib.ExitStack()  # websockets wants connect() as a context manager
        self.ws = self._stack.enter_context(connect(url, origin=base_url, open_timeout=10))  # type: ignore[arg-type]
        self.ws.send(json.dumps({"type": "hello", "token": token}))
        welcome = json.loads(self.ws.recv(timeout=10))
        assert welcome["type"] == "welcome", welcome
        self.welcome = welcome
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        with contextlib.suppress(Exception):  # closed: the thread ends
            for _ in self.ws:
                pass

    def close(self) -> None:
        self._stack.close()
        self.thread.join(timeout=5)


class Page:
    """One browser tab (in its own context) and what the tests read from it."""

    def __init__(self, page: Any, label: str) -> None:
        self.page = page
        self.label = label
        # Paths are opened on the test server (the context's base URL) unless a test points the
        # page at a server of its own.
        self.origin = ""
        # Play with the keyboard (focus a tile, Enter; Enter on an end) instead of clicks.
        self.keyboard = False
        self.console: list[str] = []
        self.errors: list[str] = []
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    # --- reading --------------------------------------------------------------------------

    def by(self, testid: str, **attrs: Any) -> Any:
        selector = f'[data-testid="{testid}"]'
        for key, value in attrs.items():
            selector += f'[data-{key.replace("_", "-")}="{value}"]'
        return self.page.locator(selector)

    def box(self, locator: Any) -> dict[str, float]:
        """The element's box; retried, since a re-render may swap the element mid-call."""
        return dict(
            wait_until(locator.bounding_box, 5, lambda: f"{self.label}: {locator} has no box")
        )

    def state(self) -> dict[str, Any]:
        return dict(self.page.evaluate(STATE_JS))

    def recorded(self) -> dict[str, Any]:
        return dict(
            self.page.evaluate(
                "() => ({ ...window.__gaple, sockets: undefined, meSockets: undefined })"
            )
        )

    def wait_js(self, expression: str, arg: Any = None, timeout: float = 15) -> Any:
        handle = self.page.wait_for_function(expression, arg=arg, timeout=timeout * 1000)
        value = handle.json_value()
        handle.dispose()
        return value

    def dump(self, folder: Path) -> None:
        """Screenshot, console and recorded frames, for a failed test."""
        try:
            self.page.screenshot(path=str(folder / f"{self.label}.png"))
        except Exception as exc:
            self.console.append(f"(screenshot failed: {exc})")
        try:
            state = self.state()
        except Exception as exc:
            state = {"error": str(exc)}
        (folder / f"{self.label}.txt").write_text(
            f"url: {self.page.url}\nstate: {json.dumps(state, indent=1)}\n\n"
            + "\n".join(self.console + [f"pageerror: {e}" for e in self.errors])
        )

    # --- lobby flows ----------------------------------------------------------------------

    def goto(self, path: str) -> None:
        self.page.goto(self.origin + path)

    def open_lobby(self) -> None:
        self.goto("/")
        self.by("lobby").wait_for()

    def save_name(self, name: str) -> None:
        self.by("name-input").fill(name)
        self.by("name-save").click()
        self.by("current-name").wait_for()
        assert self.by("current-name").inner_text() == name

    def create_table(
        self,
        *,
        mode: str,
        turn_seconds: int,
        length: int,
        public: bool,
    ) -> str:
        """Fill the lobby's create form; returns the new table's code (the host is in seat 0)."""
        self.by(f"create-mode-{mode}").check()
        self.by("create-turn-seconds").select_option(str(turn_seconds))
        field = "create-deals-per-set" if mode == "tunggal" else "create-target-points"
        self.by(field).fill(str(length))
        self.by("create-public").set_checked(public)
        self.by("create-submit").click()
        self.by("room-screen").wait_for()
        self.wait_seated(0)
        return self.by("room-code").inner_text().strip()

    def wait_seated(self, seat: int) -> None:
        """The room screen shows this page in `seat` and its socket speaks for the seat."""
        self.by("leave-seat-button", seat=seat).wait_for()
        self.wait_js("() => !document.querySelector('[data-testid=\"spectator-marker\"]')")

    def sit(self, seat: int) -> None:
        self.by("sit-button", seat=seat).click()
        self.wait_seated(seat)

    def login_as(self, guest: dict[str, Any]) -> None:
        """Store a REST-made guest in this page's localStorage, as the lobby would have."""
        self.open_lobby()
        player = {"name": guest["name"], "token": guest["token"], "player_id": guest["player_id"]}
        self.page.evaluate("(p) => localStorage.setItem('gaple.player', JSON.stringify(p))", player)

    def open_link(self, code: str) -> None:
        """Open the room's link and wait for what it shows (room, table, full or closed page)."""
        self.goto(f"/r/{code}")
        self.page.locator(
            '[data-testid="room-screen"], [data-testid="table"], [data-testid="room-full"],'
            ' [data-testid="room-closed"]'
        ).first.wait_for()

    def watch(self, code: str) -> None:
        """Open a full table's link and choose to watch it (the page offers watch or play now)."""
        self.open_link(code)
        full = self.by("room-full")
        full.wait_for()
        # The page re-renders on every frame of a running table; a click that lands while the
        # button is being replaced does nothing, so try again (a few times, bounded).
        for attempt in range(3):
            self.by("full-watch").click()
            try:
                full.wait_for(state="detached", timeout=5000)
                return
            except PlaywrightTimeout:
                if attempt == 2:
                    raise

    def start_set(self) -> None:
        start = self.by("start-button")
        self.wait_js(
            "() => { const b = document.querySelector('[data-testid=\"start-button\"]');"
            " return b && !b.disabled; }"
        )
        start.click()
        self.by("table").wait_for()

    # --- playing ---------------------------------------------------------------------------

    def tile(self, tile: str) -> Any:
        return self.by("hand-tile", tile=tile)

    def play_turn(
        self,
        rng: random.Random,
        state: dict[str, Any] | None = None,
        choose_tile: Callable[[dict[str, Any]], str] | None = None,
        *,
        wait: bool = True,
        fast: bool = False,
    ) -> str | None:
        """If it is this page's turn, click a legal tile (and an end when asked); with the
        keyboard flag, focus it and press Enter instead. Returns the tile (or end) chosen, or
        None when there was nothing to do. With wait=False it returns right after the input
        (the caller reads the page again: an open end choice is answered on the next call).
        fast=True clicks without Playwright's actionability wait (stable, not covered), which
        costs ~0.4 s a click on a busy machine; the focused tests click the careful way."""
        st = state if state is not None else self.state()
        if not (st["phase"] == "playing" and st["mine"]) or st["pending"]:
            return None
        if st["choosing"]:
            check_end_choice(st)
            end = rng.choice(st["endsOffered"])
            self._activate(self.by("end-choice", end=end), fast)
            return end
        if not st["legal"]:
            return None
        tile = choose_tile(st) if choose_tile else rng.choice(st["legal"])
        if not self._activate(self.tile(tile), fast):
            return None
        if st.get("discarding"):
            STATS["discards clicked"] += 1
        if not wait:
            return tile
        snap = st.get("snapshot")
        seen = [snap["set"], snap["seq"]] if snap else None
        if self.wait_js(AFTER_CLICK_JS, [tile, seen]) == "choose":
            ends = self.by("end-choice")
            assert ends.count() == 2, f"{self.label}: end choice for {tile} has {ends.count()}"
            check_end_choice(self.state())
            self._activate(self.by("end-choice", end=rng.choice(["left", "right"])), fast)
            self.wait_js(AFTER_END_JS, [tile, seen])
        return tile

    def _activate(self, locator: Any, fast: bool = False) -> bool:
        try:
            if self.keyboard:
                locator.press("Enter", timeout=5000)
            else:
                locator.click(timeout=5000, force=fast)
        except Exception as exc:
            # Re-rendered away (the clock played for us, the deal ended): look again later.
            self.console.append(f"(input skipped: {exc})")
            return False
        return True


def wait_until(
    predicate: Callable[[], Any], timeout: float, message: str | Callable[[], str]
) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(message() if callable(message) else message)
        time.sleep(0.1)


def play_set(
    players: Sequence[Page],
    rng: random.Random,
    *,
    timeout: float,
    watchers: Iterable[Page] = (),
) -> list[dict[str, Any]]:
    """Click legal tiles on every player's page until each shows the set's result panel.
    Each watcher's DOM is checked after every step. Returns the players' final states."""
    watchers = list(watchers)
    deadline = time.monotonic() + timeout
    moves = 0
    while True:
        states = [p.state() for p in players]
        if all(s["phase"] == "set_over" and s["result"] == "set" for s in states):
            return states
        acted = False
        for page, st in zip(players, states, strict=True):
            if page.play_turn(rng, st, wait=False, fast=True):
                acted = True
                moves += 1
        for watcher in watchers:
            check_spectator(watcher)
        if time.monotonic() > deadline:
            brief = [{k: s[k] for k in ("phase", "mine", "legal", "result")} for s in states]
            raise AssertionError(
                f"the set did not end within {timeout}s ({moves} inputs); last: {json.dumps(brief)}"
            )
        if not acted:
            time.sleep(0.05)


def check_end_choice(st: dict[str, Any]) -> None:
    """The open end choice offers exactly the snapshot's two placements of that tile, each
    button carrying its Domi points (or "" for null)."""
    tile = st["choosingTile"]
    view = st["snapshot"]["view"]
    expected = sorted(
        (e["end"], "" if e["domi_points"] is None else str(e["domi_points"]))
        for e in view["legal"]
        if tile_key(e["tile"]) == tile and e["end"] in ("left", "right")
    )
    assert sorted(tuple(x) for x in st["endChoices"]) == expected, (tile, st["endChoices"], view)
    STATS["end choices checked"] += 1
    if any(points for _, points in expected):
        STATS["end choices with Domi points"] += 1


# Counted over the run and printed at its end (conftest), to show what the random play covered.
STATS = {"end choices checked": 0, "end choices with Domi points": 0, "discards clicked": 0}


def check_spectator(page: Page) -> dict[str, Any]:
    """A spectator's DOM, read now: never a hand; revealed tiles only once a deal is over."""
    st = page.state()
    assert not st["handEl"] and not st["hand"], f"{page.label} shows a hand: {st}"
    assert not st["ownDiscards"], f"{page.label} shows face-down discards: {st}"
    if st["phase"] == "playing":
        assert st["revealed"] == 0, f"{page.label} reveals tiles while playing: {st}"
    if st["role"] is not None:
        assert st["role"] == "spectator", st
    assert not st["violations"], f"{page.label}: {st['violations']}"
    return st


MY_TURN_JS = r"""
() => {
  const turn = document.querySelector('[data-testid="turn-indicator"]');
  const table = document.querySelector('[data-testid="table"]');
  if (table && table.dataset.phase === 'set_over') return 'set_over';
  return Boolean(turn && turn.dataset.mine === 'true'
    && document.querySelector('[data-testid="hand-tile"][data-legal="true"]')
    && !document.querySelector('[data-testid="end-choice-bar"]'));
}
"""


def wait_my_turn(page: Page, timeout: float = 30) -> dict[str, Any]:
    """Wait until this page may play (a legal tile is highlighted); returns its state."""
    outcome = page.wait_js(MY_TURN_JS, timeout=timeout)
    assert outcome is True, f"{page.label}: the set ended before its turn came"
    return page.state()


def bot_table(
    api: LobbyApi,
    open_page: Callable[..., Page],
    *,
    name: str,
    seat: int,
    mode: str = "tunggal",
    turn_seconds: int = 60,
    start: bool = True,
    page_options: dict[str, Any] | None = None,
    origin: str = "",
    **settings: Any,
) -> tuple[Page, str, dict[str, Any]]:
    """One human (the host, in `seat`) and three bots, set up over REST; the page opens the
    room's link with the guest's token already stored and (by default) presses Start. `origin`:
    the server of `api` when it is not the test server."""
    guest = api.guest(name)
    room = api.create_room(
        guest["token"], mode=mode, turn_seconds=turn_seconds, public=False, **settings
    )
    code = room["code"]
    api.sit(guest["token"], code, seat)
    for other in range(4):
        if other != seat:
            api.bot(guest["token"], code, other)
    page = open_page(label=name.lower(), **(page_options or {}))
    page.origin = origin
    page.login_as(guest)
    page.goto(f"/r/{code}")
    page.by("room-screen").wait_for()
    page.wait_seated(seat)
    if start:
        page.start_set()
    return page, code, guest


def no_horizontal_scroll(page: Page) -> None:
    widths = page.page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
        " window.innerWidth]"
    )
    assert widths[0] <= widths[1], f"{page.label} scrolls sideways: {widths}"


# The WCAG 2 contrast ratio of an element's text against the first solid background behind it
# (its own or an ancestor's; a translucent one is laid over what is behind it).
CONTRAST_JS = r"""
(el) => {
  const rgba = (s) => {
    const m = s.match(/[\d.]+/g).map(Number);
    return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1];
  };
  const over = (top, under) =>
    top.slice(0, 3).map((c, i) => c * top[3] + under[i] * (1 - top[3])).concat(1);
  const layers = [];
  for (let node = el; node; node = node.parentElement) {
    const bg = rgba(getComputedStyle(node).backgroundColor);
    if (bg[3] > 0) layers.push(bg);
    if (bg[3] >= 1) break;
  }
  let back = [255, 255, 255, 1];
  for (const layer of layers.reverse()) back = over(layer, back);
  const ink = over(rgba(getComputedStyle(el).color), back);
  const linear = (v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
  const lum = (c) => 0.2126 * linear(c[0]) + 0.7152 * linear(c[1]) + 0.0722 * linear(c[2]);
  const [hi, lo] = [lum(ink), lum(back)].sort((a, b) => b - a);
  return (hi + 0.05) / (lo + 0.05);
}
"""

WCAG_AA = 4.5  # normal-size text


def contrast(locator: Any) -> float:
    """The WCAG contrast ratio of the element's text against its background."""
    return float(locator.evaluate(CONTRAST_JS))
