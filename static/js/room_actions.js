// The room's REST side: reading the room (GET /api/rooms/{code}) and the lobby actions a player
// takes at it — seats, bots, settings, start, close (docs/API.md). Each answer is merged into
// state.room.info; the socket then says the rest.

import * as api from './api.js';
import { state, changed, toast } from './store.js';
import { t } from './i18n.js';
import { errorText } from './errors.js';
import { takeableSeats } from './seats.js';
import { loadPlayer } from './storage.js';
import { defaultBot } from './presets.js';
import { halt, expectRole } from './connection.js';
import { isOver, mergeInfo } from './roominfo.js';

/** Read the REST room; a 404 stops the page (not found). */
export async function refreshRoom() {
  const room = state.room;
  if (!room) return;
  try {
    const info = await api.getRoom(room.code);
    if (state.room !== room) return;
    // The socket's welcome/room messages are newer than this answer if they came first: then
    // this answer only fills in what they leave out (whether the table is a quick-play one).
    if (!room.welcomed || isOver(info)) room.info = room.info ? mergeInfo(room.info, info) : info;
    else room.info = mergeInfo(info, room.info);
    if (info.closedReason) room.closedReason = info.closedReason;
    if (isOver(info)) haltRoom('room_closed');
    changed();
    runIntent();
  } catch (err) {
    if (state.room !== room) return;
    if (err.status === 404) {
      room.notFound = true;
      halt('not_found');
      changed();
    }
  }
}

/** The room is over (closed or abandoned): no more socket, the page says so. */
export function haltRoom(reason) {
  const room = state.room;
  halt(reason);
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
export function runIntent() {
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

async function lobbyCall(fn, { busy = true, onError = null } = {}) {
  const room = state.room;
  if (!room) return null;
  if (busy) room.busy = true;
  changed();
  try {
    return await fn();
  } catch (err) {
    if (onError) onError(err);
    if (err.code === 'name_required') toast(t('name.required'), 'error');
    else toast(errorText(err.code, err.message, err.field), 'error');
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
    haltRoom('room_closed');
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
      if (err.field && state.room === room) room.settingsError = { field: err.field, text: errorText(err.code, err.message, err.field) };
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
    toast(errorText(err.code, err.message, err.field), 'error');
  } finally {
    if (state.room === room) room.busy = false;
    changed();
  }
}

export const nextSet = startSet;

/** Quick play after a set: "play again" at the same table. */
export async function playAgain() {
  const room = state.room;
  if (!room || room.busy) return;
  const info = await lobbyCall(() => api.playAgain(room.code));
  if (info && state.room === room) room.info = mergeInfo(room.info, info);
}

/** Quick play: "start now with bots" (while waiting, or after "play again"). */
export async function fillNow() {
  const room = state.room;
  if (!room || room.busy) return;
  const info = await lobbyCall(() => api.fillNow(room.code));
  if (info && state.room === room) room.info = mergeInfo(room.info, info);
}

/** Quick play after a set: stand up (the last one out closes the table). True when done, and
 * the player may go to the lobby. */
export async function leaveQuick() {
  const room = state.room;
  if (!room || room.busy) return false;
  const seat = typeof room.seat === 'number' && room.role === 'seat' ? room.seat : null;
  if (seat === null) return true;
  return Boolean(await lobbyCall(() => api.vacate(room.code, seat)));
}
