// A live table for this browser: one room, its socket, and the actions a player can take.
// Everything drawn comes from the server: REST room details, then the socket's welcome,
// snapshots, events, presence and room messages.

import * as api from './api.js';
import { state, changed, toast, announce } from './store.js';
import { TableSocket } from './socket.js';
import { applyEvent, applySnapshot, emptyGame, legalByTile } from './game.js';
import { t } from './i18n.js';
import { errorText, seatLabel, takeableSeats } from './views/common.js';
import { loadPlayer } from './storage.js';
import * as chat from './chat.js';
import { defaultBot } from './presets.js';
import * as motion from './motion.js';

const PASS_SHOW_MS = 2600;
const AUTO_SHOW_MS = 4500;
const PENDING_TIMEOUT_MS = 6000;
const ROLE_WAIT_MS = 1500;
const CLOSE_ROOM_CLOSED = 4000;
const CLOSE_REPLACED = 4001;
// An operator took this player off the table, or banned them (PROTOCOL.md): never reconnect.
const CLOSE_SENT_AWAY = { 4002: 'removed', 4003: 'banned' };

let socket = null;
let moveCounter = 0;
let lastResync = 0;
let haltReason = null;
let helloHadToken = false;

export function openRoom(code, intent = null) {
  closeRoom();
  haltReason = null;
  state.room = {
    code,
    intent,
    info: null,
    notFound: false,
    role: null,
    seat: null,
    playerId: null,
    presence: {},
    spectators: 0,
    conn: { state: 'connecting', retryAt: null, everOpen: false },
    halted: null,
    game: emptyGame(),
    pending: null,
    choosing: null,
    flashes: { pass: {}, auto: {}, discard: {}, draw: {} },
    settingsError: null,
    resultHidden: false,
    busy: false,
    settingsDraft: null,
    welcomed: false,
    // "This table is full": shown once to someone who came by link and has no seat to take.
    full: false,
    fullChecked: Boolean(intent),
    closedReason: null,
  };
  changed();
  refreshRoom();
  chat.open((message) => Boolean(socket && socket.send(message)));
  socket = new TableSocket({
    code,
    hello: buildHello,
    onMessage,
    onStatus: (st) => {
      if (!state.room) return;
      state.room.conn = st;
      changed();
    },
    onClose: (closeCode) => {
      if (!state.room) return false;
      if (haltReason) {
        state.room.halted = haltReason;
        changed();
        return false;
      }
      if (closeCode === 1008 && state.room.notFound) return false;
      // 4000 room closed, 4001 replaced by a newer socket (PROTOCOL.md): even if the `bye` got
      // lost, never reconnect.
      if (closeCode === CLOSE_ROOM_CLOSED) {
        halt('room_closed');
        changed();
        return false;
      }
      if (CLOSE_SENT_AWAY[closeCode]) {
        halt(CLOSE_SENT_AWAY[closeCode]);
        changed();
        return false;
      }
      if (closeCode === CLOSE_REPLACED) {
        state.room.halted = 'replaced';
        haltReason = 'replaced';
        changed();
        return false;
      }
      return true;
    },
  });
  socket.start();
}

export function closeRoom() {
  chat.close();
  if (socket) socket.stop();
  socket = null;
  state.room = null;
}

function buildHello() {
  const player = loadPlayer();
  const room = state.room;
  const msg = { type: 'hello', token: (player && player.token) || null };
  helloHadToken = Boolean(msg.token);
  if (room && room.game.view && typeof room.game.set === 'number') {
    msg.resume = { set: room.game.set, seq: room.game.seq };
  }
  return msg;
}

async function refreshRoom() {
  const room = state.room;
  if (!room) return;
  try {
    const info = await api.getRoom(room.code);
    if (state.room !== room) return;
    // The socket's welcome/room messages are newer than this answer if they came first.
    if (!room.welcomed || isOver(info)) room.info = room.info ? mergeInfo(room.info, info) : info;
    else room.info = withLeftBy(room.info, info);
    if (info.closedReason) room.closedReason = info.closedReason;
    if (isOver(info)) halt('room_closed');
    changed();
    runIntent();
  } catch (err) {
    if (state.room !== room) return;
    if (err.status === 404) {
      room.notFound = true;
      haltReason = 'not_found';
      if (socket) socket.stop();
      changed();
    }
  }
}

const isOver = (info) => Boolean(info && (info.status === 'closed' || info.status === 'abandoned'));

/** The room is over (closed or abandoned): no more socket, the page says so. */
function halt(reason) {
  haltReason = reason;
  const room = state.room;
  if (room) room.halted = reason;
  if (socket) socket.stop();
  // A `room` frame or `bye` says closed but not why: the REST room does (closed_reason), once.
  if (room && reason === 'room_closed' && !room.closedReason && !room.reasonAsked) {
    room.reasonAsked = true;
    refreshRoom();
  }
}

/**
 * What the lobby asked for when it sent us here ("sit": the first seat this player may take,
 * which is a bot's seat once the set runs); with no intent (a link, a code), whether the table
 * is full for this player, which the page then says instead of making them a silent spectator.
 */
function runIntent() {
  const room = state.room;
  if (!room || !room.info || !room.welcomed) return;
  const me = room.playerId || (state.player && state.player.player_id);
  const intent = room.intent;
  room.intent = null;
  if (intent && intent.sit && room.role !== 'seat') {
    const offers = takeableSeats(room.info, me);
    const preferred = offers.find((x) => x.seat === intent.seat) || offers[0];
    if (preferred) sit(preferred.seat);
    else room.full = true;
  }
  if (!room.fullChecked) {
    room.fullChecked = true;
    const live = room.info.status === 'open' || room.info.status === 'playing';
    const host = Boolean(me && room.info.hostId === me);
    if (live && !host && room.role !== 'seat' && takeableSeats(room.info, me).length === 0) room.full = true;
  }
}

/** "Watch" on the full-table page. */
export function watchFull() {
  if (state.room) {
    state.room.full = false;
    changed();
  }
}

export function viewer() {
  const room = state.room;
  return room && room.role === 'seat' && typeof room.seat === 'number' ? room.seat : null;
}

function onMessage(msg) {
  const room = state.room;
  if (!room) return;
  if (chat.isTalk(msg)) {
    chat.receive(msg);
    return;
  }
  const now = performance.now();
  switch (msg.type) {
    case 'welcome':
      room.role = msg.role === 'seat' ? 'seat' : 'spectator';
      room.seat = typeof msg.seat === 'number' ? msg.seat : null;
      room.playerId = msg.player_id || null;
      if (msg.room) room.info = mergeInfo(room.info, api.normRoom(msg.room));
      room.welcomed = true;
      socket.markWelcomed();
      runIntent();
      refreshSoon();
      break;
    case 'resync':
      // Too far behind for the missed events (PROTOCOL §4): nothing to animate; the snapshot
      // that follows replaces the table (applySnapshot), so this is not a gap to reconnect for.
      break;
    case 'snapshot':
      room.game = applySnapshot(room.game, msg, now);
      if (room.pending && !isMyTurn(room)) room.pending = null;
      keepChoiceIfLegal(room);
      announceTurn(room);
      break;
    case 'event':
      onEvent(room, msg, now);
      break;
    case 'ack':
      if (room.pending && room.pending.moveId === msg.move_id) room.pending = null;
      break;
    case 'error':
      onError(room, msg);
      break;
    case 'presence':
      applyPresence(room, msg);
      break;
    case 'room':
      if (msg.room) room.info = mergeInfo(room.info, api.normRoom(msg.room));
      refreshSoon();
      if (room.info && room.info.closedReason) room.closedReason = room.info.closedReason;
      if (isOver(room.info)) halt('room_closed');
      break;
    case 'bye':
      // `replaced`: this player opened the table elsewhere; reconnecting here would only take the
      // seat back from that tab, so this page stops and says so. `room_closed`: the room is over.
      // Other reasons (a node draining, the table moving) reconnect as usual.
      if (msg.reason === 'replaced') haltReason = 'replaced';
      if (msg.reason === 'removed' || msg.reason === 'banned') halt(msg.reason);
      if (msg.reason === 'room_closed') {
        if (room.info && !isOver(room.info)) room.info = { ...room.info, status: 'closed' };
        halt('room_closed'); // and asks the REST room why (host closed, idle, …)
      }
      break;
    default:
      return; // pong and anything unknown: nothing to draw
  }
  changed();
}

function mergeInfo(old, next) {
  if (!old) return next;
  const merged = { ...old };
  // A frame may leave a field out (null): the older answer's value stands.
  for (const [key, value] of Object.entries(next)) if (value !== null && value !== undefined) merged[key] = value;
  return withLeftBy(merged, old);
}

/**
 * Who left each bot's seat (`left_by`) is in the REST room, not in the socket's room object: keep
 * it on a seat while the same bot sits there.
 */
function withLeftBy(info, from) {
  if (!from || !Array.isArray(from.seats)) return info;
  const seats = info.seats.map((seat) => {
    const other = from.seats.find((x) => x.seat === seat.seat);
    if (seat.left_by || !seat.bot || !other || other.bot !== seat.bot) return seat;
    return { ...seat, left_by: other.left_by };
  });
  return { ...info, seats };
}

let refreshTimer = null;

/** After a seat change at a running table, ask the REST room who may take which bot's seat. */
function refreshSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => {
    if (state.room && state.room.info && state.room.info.status === 'playing') refreshRoom();
  }, 250);
}

function onEvent(room, msg, now) {
  const me = viewer();
  const { game, status, effects } = applyEvent(room.game, msg, now, me);
  if (status === 'duplicate') return;
  if (status === 'gap') {
    resync();
    return;
  }
  room.game = game;
  motion.onEvent(msg.event, me);
  for (const effect of effects) showEffect(room, effect, me);
  keepChoiceIfLegal(room);
}

function showEffect(room, effect, me) {
  const name = (seat) => seatLabel(room, seat);
  switch (effect.kind) {
    case 'played':
      if (effect.seat === me) {
        room.pending = null;
        room.choosing = null;
      }
      if (effect.auto) {
        flash(room.flashes.auto, effect.seat, { tile: effect.tile }, AUTO_SHOW_MS);
        announce(t('announce.auto', { tile: effect.tile, name: name(effect.seat) }));
      } else {
        announce(t('announce.played', { name: name(effect.seat), tile: effect.tile }));
      }
      break;
    case 'discarded':
      // Klasik: a tile laid face down; only the discarder's own page knows which.
      if (effect.seat === me) {
        room.pending = null;
        room.choosing = null;
      }
      if (effect.auto) {
        flash(room.flashes.auto, effect.seat, { tile: effect.tile, discard: true }, AUTO_SHOW_MS);
        announce(effect.tile
          ? t('announce.auto_discard_tile', { tile: effect.tile, name: name(effect.seat) })
          : t('announce.auto_discard', { name: name(effect.seat) }));
      } else {
        flash(room.flashes.discard, effect.seat, true, PASS_SHOW_MS);
        announce(effect.tile
          ? t('announce.discarded_tile', { tile: effect.tile })
          : t('announce.discarded', { name: name(effect.seat) }));
      }
      break;
    case 'drew': {
      // Draw Domino: the seat's badge counts this turn's draws; the boneyard chip pulses.
      room.flashes.draw = room.flashes.draw || {};
      const before = room.flashes.draw[effect.seat];
      flash(room.flashes.draw, effect.seat, { n: before ? before.value.n + 1 : 1 }, PASS_SHOW_MS);
      announce(effect.tile
        ? t('announce.drew_tile', { tile: effect.tile, n: effect.left })
        : t('announce.drew', { name: name(effect.seat), n: effect.left }));
      break;
    }
    case 'passed':
      flash(room.flashes.pass, effect.seat, true, PASS_SHOW_MS);
      announce(t('announce.passed', { name: name(effect.seat) }));
      break;
    case 'deal_started':
      room.resultHidden = false;
      room.choosing = null;
      room.flashes = { pass: {}, auto: {}, discard: {}, draw: {} };
      announce(t('announce.deal_started', { n: effect.dealNumber }));
      break;
    case 'deal_ended':
      if (effect.result && effect.result.result) {
        const winner = effect.result.winner;
        announce(`${t(`result.${effect.result.result}`)}. ${winner === null ? '' : t('result.winner', { name: name(winner) })}`);
      }
      room.resultHidden = false;
      room.choosing = null;
      room.pending = null;
      break;
    case 'set_ended':
      announce(t('set.title'));
      room.resultHidden = false;
      room.choosing = null;
      room.pending = null;
      break;
    default:
      break;
  }
}

function flash(map, seat, value, ms) {
  const at = Date.now();
  map[seat] = { value, at };
  setTimeout(() => {
    if (map[seat] && map[seat].at === at) {
      delete map[seat];
      changed();
    }
  }, ms);
}

function isMyTurn(room) {
  const v = room.game.view;
  return Boolean(v && v.phase === 'playing' && v.turn !== null && v.turn === viewer());
}

/** Tell a screen reader once per turn, when the snapshot has brought the legal placements. */
function announceTurn(room) {
  const v = room.game.view;
  if (!isMyTurn(room) || !v.legal.length) return;
  const key = `${room.game.set}:${v.dealNumber}:${v.line.length}`;
  if (room.turnAnnounced === key) return;
  room.turnAnnounced = key;
  announce(t('announce.your_turn', { n: legalByTile(v.legal).size }));
}

function keepChoiceIfLegal(room) {
  if (!room.choosing) return;
  const v = room.game.view;
  const entries = v ? legalByTile(v.legal).get(room.choosing) : null;
  if (!entries || entries.length < 2) room.choosing = null;
}

function applyPresence(room, msg) {
  const map = {};
  if (Array.isArray(msg.seats)) {
    msg.seats.forEach((entry, i) => {
      if (typeof entry === 'boolean') map[i] = entry;
      else if (entry && typeof entry === 'object') {
        const seat = typeof entry.seat === 'number' ? entry.seat : i;
        map[seat] = Boolean(entry.connected ?? entry.online);
      }
    });
  } else if (msg.seats && typeof msg.seats === 'object') {
    for (const [k, v] of Object.entries(msg.seats)) map[Number(k)] = Boolean(v);
  }
  room.presence = map;
  if (typeof msg.spectators === 'number') room.spectators = msg.spectators;
  else if (Array.isArray(msg.spectators)) room.spectators = msg.spectators.length;
}

function onError(room, msg) {
  if (room.pending && (!msg.move_id || msg.move_id === room.pending.moveId)) room.pending = null;
  if (msg.code === 'bad_token') {
    api.forgetToken();
    state.player = loadPlayer();
  }
  if (msg.code === 'banned') haltReason = 'banned'; // a hello refused: do not try again
  if (msg.code === 'room_not_found') {
    room.notFound = true;
    haltReason = 'not_found';
  }
  toast(errorText(msg.code, msg.message), 'error');
}

function resync() {
  // A gap in the event sequence: a new socket brings a fresh snapshot (PROTOCOL §4).
  const now = Date.now();
  if (now - lastResync < 1000) {
    setTimeout(resync, 1000);
    return;
  }
  lastResync = now;
  if (socket) socket.reconnectNow();
}

/** After a lobby change to our own seat, the socket must speak for the new role. */
function expectRole(role) {
  if (!socket) return;
  if (!helloHadToken) {
    socket.reconnectNow();
    return;
  }
  setTimeout(() => {
    if (state.room && socket && state.room.role !== role) socket.reconnectNow();
  }, ROLE_WAIT_MS);
}

// --- actions -----------------------------------------------------------------------------

async function lobbyCall(fn, { busy = true, onError = null } = {}) {
  const room = state.room;
  if (!room) return null;
  if (busy) room.busy = true;
  changed();
  try {
    const result = await fn();
    return result;
  } catch (err) {
    if (onError) onError(err);
    if (err.code === 'name_required') toast(t('name.required'), 'error');
    else toast(errorText(err.code, err.message), 'error');
    return null;
  } finally {
    if (state.room === room) {
      room.busy = false;
      changed();
    }
    state.player = loadPlayer();
  }
}

export async function sit(seat) {
  const room = state.room;
  const info = await lobbyCall(() => api.sit(room.code, seat), {
    onError: (err) => {
      if (err.code === 'room_full' && state.room === room) room.full = true;
    },
  });
  if (info && state.room === room) {
    room.info = mergeInfo(room.info, info);
    expectRole('seat');
  }
}

export async function standUp(seat) {
  const room = state.room;
  const info = await lobbyCall(() => api.vacate(room.code, seat));
  if (info && state.room === room) {
    room.info = mergeInfo(room.info, info);
    expectRole('spectator');
  }
}

/** The host seats a bot of level `kind` (default: the server's) or changes the level of one. */
export async function addBot(seat, kind = defaultBot()) {
  const room = state.room;
  const info = await lobbyCall(() => api.addBot(room.code, seat, kind));
  if (info && state.room === room) room.info = mergeInfo(room.info, info);
}

/** The host fills every empty seat with the default bot, one call per seat, in seat order. */
export async function fillBots() {
  const room = state.room;
  if (!room || !room.info || room.busy) return;
  const empty = room.info.seats.filter((x) => !x.player_id && !x.bot).map((x) => x.seat);
  await lobbyCall(async () => {
    for (const seat of empty) {
      const info = await api.addBot(room.code, seat, defaultBot());
      if (state.room === room) {
        room.info = mergeInfo(room.info, info);
        changed();
      }
    }
  });
}

/** The host closes the room for good; every page at it then shows the closed-room page. */
export async function closeTable() {
  const room = state.room;
  if (!room || !window.confirm(t('room.close.confirm'))) return;
  const info = await lobbyCall(() => api.closeRoom(room.code));
  if (info && state.room === room) {
    room.info = mergeInfo(room.info, info);
    if (!isOver(room.info)) room.info = { ...room.info, status: 'closed' };
    room.closedReason = room.info.closedReason || 'host_closed';
    halt('room_closed');
  }
}

export async function removeBot(seat) {
  const room = state.room;
  const info = await lobbyCall(() => api.vacate(room.code, seat));
  if (info && state.room === room) room.info = mergeInfo(room.info, info);
}

export async function saveSettings(patch) {
  const room = state.room;
  room.settingsError = null;
  const info = await lobbyCall(() => api.patchSettings(room.code, patch), {
    // A refused setting (422 invalid, 409 seat_in_use) is shown next to the field it names.
    onError: (err) => {
      if (err.field && state.room === room) room.settingsError = { field: err.field, text: errorText(err.code, err.message) };
    },
  });
  if (info && state.room === room) {
    room.info = mergeInfo(room.info, info);
    room.settingsDraft = null;
    toast(t('room.settings.saved'), 'ok', 2500);
  }
}

/** Start the set, or the next one after a set ended: the one REST call (PROTOCOL §2). */
export async function startSet() {
  const room = state.room;
  if (!room || room.busy) return;
  room.busy = true;
  changed();
  try {
    await api.startRoom(room.code);
  } catch (err) {
    toast(errorText(err.code, err.message), 'error');
  } finally {
    if (state.room === room) room.busy = false;
    changed();
  }
}

export const nextSet = startSet;

export function leaveTable() {
  if (!window.confirm(t('table.leave.confirm'))) return;
  if (!socket || !socket.send({ type: 'leave' })) toast(errorText('network'), 'error');
}

/** A tap on a hand tile: play it, or ask which end when it fits both. */
export function chooseTile(tile) {
  const room = state.room;
  if (!room || room.pending) return;
  const v = room.game.view;
  if (!v || v.phase !== 'playing' || v.turn !== viewer()) return;
  const entries = legalByTile(v.legal).get(tile);
  if (!entries) return;
  if (entries.some((e) => e.discard)) {
    play(tile, 'discard'); // Klasik: lay it face down (PROTOCOL §2)
    return;
  }
  const ends = new Set(entries.map((e) => e.end));
  if (entries.length >= 2 && ends.has('left') && ends.has('right')) {
    room.choosing = room.choosing === tile ? null : tile;
    changed();
    return;
  }
  play(tile, entries[0].end);
}

export function chooseEnd(end) {
  const room = state.room;
  if (!room || !room.choosing) return;
  const tile = room.choosing;
  room.choosing = null;
  play(tile, end);
}

export function cancelChoice() {
  if (state.room && state.room.choosing) {
    state.room.choosing = null;
    changed();
  }
}

function play(tile, end) {
  const room = state.room;
  moveCounter += 1;
  const moveId = `m${Date.now().toString(36)}-${moveCounter}`;
  const msg = { type: 'play', move_id: moveId, tile };
  if (end) msg.end = end;
  if (!socket || !socket.send(msg)) {
    toast(errorText('network'), 'error');
    return;
  }
  room.pending = { moveId, tile, at: Date.now() };
  changed();
  setTimeout(() => {
    if (state.room === room && room.pending && room.pending.moveId === moveId) {
      room.pending = null;
      changed();
    }
  }, PENDING_TIMEOUT_MS);
}

export function hideResult() {
  if (state.room) {
    state.room.resultHidden = true;
    changed();
  }
}

export function showResult() {
  if (state.room) {
    state.room.resultHidden = false;
    changed();
  }
}

export function retryNow() {
  if (!state.room) return;
  haltReason = null;
  state.room.halted = null;
  if (socket) socket.reconnectNow();
  else openRoom(state.room.code);
}
