// What a player does at the table over the socket: tap a tile, choose its end, leave the seat;
// and the table's own view toggles (the end choice, the result panel).

import { state, changed, toast } from './store.js';
import { t } from './i18n.js';
import { errorText } from './errors.js';
import { tapTile } from './game.js';
import { viewerSeat } from './roominfo.js';
import { send } from './connection.js';

// A move with no answer by then is given up on (the snapshot redraws the table anyway).
const PENDING_TIMEOUT_MS = 6000;

let moveCounter = 0;

/**
 * A tap (click, Enter) on a hand tile: play it, or open the end choice when it fits both ends to
 * different effect. Tapping the tile whose choice is open keeps the choice open (a double tap
 * never plays at an end nobody picked, nor closes the choice it just opened).
 */
export function chooseTile(tile) {
  const room = state.room;
  if (!room || room.pending) return;
  const what = tapTile(room.game, viewerSeat(room), tile);
  if (!what) return;
  if (what.choose) {
    room.choosing = tile;
    changed();
    return;
  }
  room.choosing = null;
  play(tile, what.play);
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
  if (!send(msg)) {
    toast(errorText('network'), 'error');
    return;
  }
  room.pending = { moveId, tile, at: Date.now(), seq: null };
  changed();
  setTimeout(() => {
    if (state.room === room && room.pending && room.pending.moveId === moveId) {
      room.pending = null;
      changed();
    }
  }, PENDING_TIMEOUT_MS);
}

export function leaveTable() {
  if (!window.confirm(t('table.leave.confirm'))) return;
  if (!send({ type: 'leave' })) toast(errorText('network'), 'error');
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
