// Boot, routing (/, /r/{code}, /replay/{set_id}, /p/{player_id}, /leaderboard, /turnamen, /klub, /admin), the render loop
// and the lobby's actions.

import { replaceKeepingFocus, patchRegions, cssEscape } from './dom.js';
import { t, onLangChange, lang } from './i18n.js';
import { state, subscribe, changed, toast } from './store.js';
import { holdWhilePressed } from './taps.js';
import * as api from './api.js';
import { loadPlayer } from './storage.js';
import * as session from './session.js';
import * as roomActions from './room_actions.js';
import * as tableActions from './table_actions.js';
import { nextDealMs, remainingMs } from './game.js';
import { nextDealText } from './views/results.js';
import { topbar, connectionBanner, toasts } from './views/common.js';
import { errorText } from './errors.js';
import { lobbyView, settingsPayload } from './views/lobby.js';
import { roomView, isClosed } from './views/room.js';
import { setCatalogue, defaultPreset, draftFor, quickplayChoices, nameMaxLength } from './presets.js';
import { codeFromText } from './roomcode.js';
import { roomClubField } from './clubs.js';
import { nameLength } from './text.js';
import { tableView } from './views/table.js';
import { replayRoute, openReplay, closeReplay, replayView } from './views/replay.js';
import { profileRoute, openProfile, closeProfile, profileView } from './views/profile.js';
import { leaderboardRoute, openLeaderboard, closeLeaderboard, leaderboardView } from './views/leaderboard.js';
import { initAccount, accountLayer } from './views/account.js';
import { adminRoute, openAdmin, closeAdmin, adminView } from './views/admin.js';
import { rulesRoute } from './views/rules.js';
import {
  tournamentsRoute, openTournaments, closeTournaments, tournamentsView, followNextRound,
} from './views/tournaments.js';
import { clubsRoute, openClubs, closeClubs, clubsView } from './views/clubs.js';
import { initAlerts } from './alerts.js';
import { initBell, onMe } from './bell.js';
import { initSocial, openDrawer, closeDrawer, social } from './social.js';
import { socialLayer, friendsButton } from './views/social.js';

const LOBBY_REFRESH_MS = 4000;

const els = {
  topbar: document.getElementById('topbar'),
  banner: document.getElementById('banner-slot'),
  main: document.getElementById('main'),
  toasts: document.getElementById('toasts'),
  account: document.getElementById('account-slot'),
  social: document.getElementById('social-slot'),
};

let lobbyTimer = null;
let boardObserver = null;
let redrawBoard = null;
let focusAfterRender = null;

// --- routing ---------------------------------------------------------------------------------

function parseRoute() {
  const replay = replayRoute(window.location.pathname);
  if (replay) return replay;
  const page = profileRoute(window.location.pathname) || leaderboardRoute(window.location.pathname)
    || adminRoute(window.location.pathname) || rulesRoute(window.location.pathname)
    || tournamentsRoute(window.location.pathname) || clubsRoute(window.location.pathname);
  if (page) return page;
  const m = /^\/r\/([A-Za-z0-9]+)\/?$/.exec(window.location.pathname);
  return m ? { name: 'room', code: m[1].toUpperCase() } : { name: 'lobby' };
}

export function navigate(path, intent = null) {
  if (window.location.pathname !== path) window.history.pushState({}, '', path);
  applyRoute(intent);
}

function applyRoute(intent = null) {
  const route = parseRoute();
  state.route = route;
  if (route.name !== 'replay') closeReplay();
  if (route.name !== 'profile') closeProfile();
  if (route.name !== 'leaderboard') closeLeaderboard();
  if (route.name !== 'admin') closeAdmin();
  if (route.name !== 'tournaments') closeTournaments();
  if (route.name !== 'clubs') closeClubs();
  if (['profile', 'leaderboard', 'admin', 'tournaments', 'clubs'].includes(route.name)) {
    stopLobbyPolling();
    session.closeRoom();
    if (route.name === 'profile') openProfile(route.id);
    else if (route.name === 'admin') openAdmin();
    else if (route.name === 'tournaments') openTournaments(route.id);
    else if (route.name === 'clubs') openClubs(route.id);
    else openLeaderboard();
  } else if (route.name === 'replay') {
    stopLobbyPolling();
    session.closeRoom();
    openReplay(route.id);
  } else if (route.name === 'room') {
    stopLobbyPolling();
    if (!state.room || state.room.code !== route.code) session.openRoom(route.code, intent);
  } else {
    session.closeRoom();
    startLobbyPolling();
  }
  changed();
  els.main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

// --- lobby -------------------------------------------------------------------------------------

async function loadRooms() {
  try {
    const page = await api.listRooms();
    state.lobby.rooms = page.rooms;
    // The first page moved on; "more" continues after it (pages already shown stay).
    if (!state.lobby.extra.length) state.lobby.next = page.next;
    state.lobby.error = false;
  } catch {
    state.lobby.error = true;
  }
  changed();
}

/** "More": the next page of the lobby, appended. */
async function moreRooms() {
  if (state.lobby.more || !state.lobby.next) return;
  state.lobby.more = true;
  changed();
  try {
    const page = await api.listRooms({ cursor: state.lobby.next });
    const known = new Set([...(state.lobby.rooms || []), ...state.lobby.extra].map((r) => r.code));
    state.lobby.extra = [...state.lobby.extra, ...page.rooms.filter((r) => !known.has(r.code))];
    state.lobby.next = page.next;
  } catch (err) {
    toast(errorText(err.code, err.message, err.field), 'error');
  } finally {
    state.lobby.more = false;
    changed();
  }
}

/** The server's presets: the create form's defaults and choices, and play-now's. */
async function loadPresets() {
  state.presets = 'loading';
  changed();
  try {
    const cat = setCatalogue(await api.getPresets());
    if (!cat) throw new Error('no presets');
    if (!state.drafts.create) state.drafts.create = draftFor(defaultPreset());
    const quick = quickplayChoices();
    if (quick && !state.drafts.quick) state.drafts.quick = { ...quick.default };
    state.presets = 'ready';
  } catch {
    state.presets = 'error';
  }
  changed();
}

/**
 * Play now: a seat at a public table that starts soon (bots fill it after a short wait). The
 * lobby's choice, or from a dead end (closed or full room) the quick-play default.
 */
async function quickPlay(given = null) {
  if (state.lobby.quickBusy) return;
  if (!(await saveName())) {
    if (state.route.name !== 'lobby') navigate('/');
    return;
  }
  const choices = quickplayChoices();
  const choice = given || state.drafts.quick || (choices && choices.default);
  if (!choice) {
    toast(t('presets.error'), 'error');
    return;
  }
  state.lobby.quickBusy = true;
  changed();
  try {
    const { room } = await api.quickplay({ preset: choice.preset, mode: choice.mode, turn_seconds: choice.turn_seconds });
    state.player = loadPlayer();
    if (state.room) session.closeRoom();
    navigate(`/r/${room.code}`, { quick: true });
  } catch (err) {
    toast(errorText(err.code, err.message, err.field), 'error');
  } finally {
    state.lobby.quickBusy = false;
    changed();
  }
}

function startLobbyPolling() {
  stopLobbyPolling();
  loadRooms();
  lobbyTimer = setInterval(() => {
    if (document.visibilityState === 'visible') loadRooms();
  }, LOBBY_REFRESH_MS);
}

function stopLobbyPolling() {
  clearInterval(lobbyTimer);
  lobbyTimer = null;
}

function currentName() {
  return String(state.drafts.name || (state.player && state.player.name) || '').trim();
}

async function saveName() {
  const name = currentName();
  if (!name) {
    toast(t('name.required'), 'error');
    focusAfterRender = '[data-testid="name-input"]';
    changed();
    return false;
  }
  const max = nameMaxLength();
  if (max !== null && nameLength(name) > max) {
    // Said in the form too (lobby.js nameLimitText); nothing is sent, nothing is cut.
    toast(t('name.too_long', { n: nameLength(name), max }), 'error');
    focusAfterRender = '[data-testid="name-input"]';
    changed();
    return false;
  }
  try {
    state.player = await api.ensureGuest(name);
    state.drafts.editingName = false;
    state.drafts.name = state.player.name;
    changed();
    return true;
  } catch (err) {
    toast(errorText(err.code, err.message, err.field), 'error');
    return false;
  }
}

async function createTable() {
  if (state.lobby.busy) return;
  if (!(await saveName())) return;
  state.lobby.busy = true;
  changed();
  const d = state.drafts.create;
  if (!d) return;
  state.lobby.createError = null;
  try {
    const room = await api.createRoom({ ...settingsPayload(d), ...roomClubField(d.club_id) });
    state.player = loadPlayer();
    // The host sits down at once (seat 0 if free); they can move or stand up before the start.
    navigate(`/r/${room.code}`, { sit: true, seat: 0 });
  } catch (err) {
    // A setting the server refused (422 with `field`) is shown next to that field.
    if (err.field) state.lobby.createError = { field: err.field, text: errorText(err.code, err.message, err.field) };
    toast(errorText(err.code, err.message, err.field), 'error');
  } finally {
    state.lobby.busy = false;
    changed();
  }
}

function joinCode() {
  const code = codeFromText(state.drafts.code);
  if (!code) {
    toast(t('join.bad_code'), 'error');
    return;
  }
  state.drafts.code = '';
  navigate(`/r/${code}`);
}

async function openTable(code, sit) {
  if (sit && !(await saveName())) return;
  navigate(`/r/${code}`, sit ? { sit: true } : null);
}

async function sitWithName(seat) {
  if (!(state.player && state.player.name) || state.drafts.editingName) {
    if (!(await saveName())) return;
  }
  await roomActions.sit(seat);
}

async function copyLink(link) {
  try {
    await navigator.clipboard.writeText(link);
    toast(t('room.copied'), 'ok', 2000);
  } catch {
    const input = document.querySelector('[data-testid="share-link"]');
    if (input) {
      input.focus();
      input.select();
      try {
        if (document.execCommand('copy')) {
          toast(t('room.copied'), 'ok', 2000);
          return;
        }
      } catch { /* fall through */ }
    }
    toast(t('err.clipboard'), 'error');
  }
}

const actions = {
  redraw: changed,
  saveName,
  editName: () => {
    state.drafts.editingName = true;
    state.drafts.name = (state.player && state.player.name) || '';
    focusAfterRender = '[data-testid="name-input"]';
    changed();
  },
  createTable,
  quickPlay,
  moreRooms,
  loadPresets,
  fillBots: roomActions.fillBots,
  closeRoom: roomActions.closeTable,
  watchFull: roomActions.watchFull,
  clearCreateError: () => {
    state.lobby.createError = null;
  },
  joinCode,
  openTable,
  toLobby: (e) => {
    if (e) e.preventDefault();
    navigate('/');
  },
  copyLink,
  sit: sitWithName,
  standUp: roomActions.standUp,
  addBot: roomActions.addBot,
  removeBot: roomActions.removeBot,
  saveSettings: roomActions.saveSettings,
  startSet: roomActions.startSet,
  nextSet: roomActions.nextSet,
  playAgain: roomActions.playAgain,
  fillNow: roomActions.fillNow,
  leaveQuick: async () => {
    if (await roomActions.leaveQuick()) navigate('/');
  },
  leaveTable: tableActions.leaveTable,
  chooseTile: (tile) => {
    tableActions.chooseTile(tile);
    if (state.room && state.room.choosing === tile) {
      focusAfterRender = '[data-testid="end-choice"]';
    }
  },
  chooseEnd: (end) => {
    tableActions.chooseEnd(end);
    focusAfterRender = '[data-testid="hand"] [tabindex="0"]';
  },
  cancelChoice: () => {
    const tile = state.room && state.room.choosing;
    tableActions.cancelChoice();
    if (tile) focusAfterRender = `[data-testid="hand-tile"][data-tile="${tile}"]`;
  },
  hideResult: tableActions.hideResult,
  showResult: tableActions.showResult,
  retryNow: session.retryNow,
};

// --- rendering ---------------------------------------------------------------------------------

function render() {
  document.documentElement.lang = lang();
  document.title = state.room ? `${state.room.code} · ${t('app.name')}` : t('app.name');
  const skip = document.querySelector('.skip-link');
  if (skip) skip.textContent = t('skip');
  replaceKeepingFocus(els.topbar, topbar(state, navigate, [friendsButton()]));
  renderBanner();
  replaceKeepingFocus(els.toasts, toasts(state.toasts));
  if (els.account) replaceKeepingFocus(els.account, accountLayer());
  if (els.social) replaceKeepingFocus(els.social, socialLayer());

  if (boardObserver) {
    boardObserver.disconnect();
    boardObserver = null;
  }
  redrawBoard = null;
  let after = null;
  let screen;
  if (state.route.name === 'profile') {
    screen = profileView();
  } else if (state.route.name === 'leaderboard') {
    screen = leaderboardView();
  } else if (state.route.name === 'admin') {
    screen = adminView();
  } else if (state.route.name === 'tournaments') {
    screen = tournamentsView();
  } else if (state.route.name === 'clubs') {
    screen = clubsView();
  } else if (state.route.name === 'replay') {
    const replay = replayView();
    screen = replay.node;
    after = () => {
      redrawBoard = replay.after();
      boardObserver = new ResizeObserver(() => redrawBoard && redrawBoard());
      boardObserver.observe(replay.boardEl);
    };
  } else if (state.route.name === 'room' && state.room) {
    const v = state.room.game.view;
    const live = v && v.phase !== 'ready';
    if (live && !state.room.notFound && !isClosed(state.room) && !state.room.full) {
      const table = tableView(state, actions);
      screen = table.node;
      after = () => {
        redrawBoard = table.after();
        boardObserver = new ResizeObserver(() => redrawBoard && redrawBoard());
        boardObserver.observe(table.boardEl);
      };
    } else {
      screen = roomView(state, actions);
    }
  } else {
    screen = (state.route.view || lobbyView)(state, actions);
  }
  const active = document.activeElement;
  const wasInHand = Boolean(active && active.closest && active.closest('[data-testid="hand"]'));
  const focusKey = active && els.main.contains(active) ? active.getAttribute('data-focus') : null;
  if (!patchRegions(els.main, screen)) replaceKeepingFocus(els.main, screen);
  if (after) after();
  if (focusKey && !els.main.contains(document.activeElement) && !focusAfterRender) {
    // Drawn by after() (the end choice over the board): focus comes back to the same control.
    const again = els.main.querySelector(`[data-focus="${cssEscape(focusKey)}"]`);
    if (again) again.focus({ preventScroll: true });
  }
  if (wasInHand && !focusAfterRender && !els.main.contains(document.activeElement)) {
    // The focused tile was just played: stay in the hand.
    focusAfterRender = '[data-testid="hand"] [tabindex="0"]';
  }
  if (focusAfterRender) {
    const el = document.querySelector(focusAfterRender);
    focusAfterRender = null;
    if (el) el.focus({ preventScroll: true });
  }
}

function renderBanner() {
  replaceKeepingFocus(els.banner, connectionBanner(state.room, actions));
}

// The countdowns move every 200 ms without re-rendering the page.
function tick() {
  const room = state.room;
  if (!room) return;
  const rem = remainingMs(room.game, performance.now());
  const secs = room.info && room.info.settings.turn_seconds;
  const total = secs ? secs * 1000 : null;
  for (const el of document.querySelectorAll('[data-countdown]')) {
    el.textContent = rem === null ? '' : String(Math.ceil(rem / 1000));
    el.classList.toggle('urgent', rem !== null && rem < 5000);
  }
  for (const el of document.querySelectorAll('[data-countdown-ring]')) {
    el.style.setProperty('--p', rem === null ? 0 : Math.min(1, total ? rem / total : 1));
  }
  for (const el of document.querySelectorAll('[data-bots-due]')) {
    const left = Math.max(0, Math.ceil((Number(el.dataset.botsDue) - Date.now()) / 1000));
    el.textContent = t(el.dataset.botsKey, { n: left });
    el.dataset.secondsLeft = String(left);
  }
  const next = nextDealMs(room.game, performance.now());
  for (const el of document.querySelectorAll('[data-next-deal]')) el.textContent = nextDealText(next);
  if (room.conn && room.conn.state === 'retrying') renderBanner();
}

function boot() {
  document.documentElement.lang = lang();
  if (state.player && state.player.name) state.drafts.name = state.player.name;
  subscribe(holdWhilePressed(render)); // a redraw waits for the click of a pressed control
  initAlerts(); // after render: it decorates the title render sets
  onLangChange(() => changed());
  window.addEventListener('popstate', () => applyRoute());
  window.addEventListener('storage', (e) => {
    if (e.key === 'gaple.player') {
      state.player = loadPlayer();
      changed();
    }
  });
  setInterval(tick, 200);
  initAccount({
    navigate,
    // Another player on this browser (logged in or out): a table's socket says hello again.
    identityChanged: () => {
      if (state.room) {
        const code = state.room.code;
        session.closeRoom();
        session.openRoom(code);
      }
      changed();
    },
  });
  loadPresets();
  applyRoute();
  initBell({ onOpen: () => openDrawer('notices') });
  initSocial({ navigate });
  // A tournament table's player goes on to the next round's table by themselves.
  onMe((msg) => { if (state.route.name === 'room') followNextRound(msg, state.room); });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && social.open) closeDrawer();
  });
}

boot();

