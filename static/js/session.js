// A live table for this browser: opening and closing a room, and the dispatch of what its socket
// receives. Snapshots replace the drawn table (game.js); events go to the effects (effects.js);
// the room's REST side is room_actions.js, the player's moves table_actions.js, the socket
// connection.js.

import * as api from './api.js';
import { state, changed, toast } from './store.js';
import { applySnapshot, isMyTurn, legalByTile, tapTile } from './game.js';
import { errorText } from './errors.js';
import { loadPlayer } from './storage.js';
import * as chat from './chat.js';
import {
  connect, disconnect, send, welcomed, reconnect, stopAfterClose, halt,
} from './connection.js';
import { onEffect, receiveEvent, caughtUp, emit, resetEffects } from './effects.js';
import { tableEffect } from './table_effects.js';
import { refreshRoom, runIntent, haltRoom } from './room_actions.js';
import { newRoom, viewerSeat, isOver, mergeInfo, presenceOf } from './roominfo.js';
import * as motion from './motion.js';

onEffect(tableEffect);
// A placed tile travels, a deal flies in, a result is celebrated; not for a resume's catch-up.
onEffect((event, meta) => {
  if (!meta.catchUp) motion.onEvent(event, meta.viewer);
});

// Events that come between a welcome and that socket's first snapshot were missed while away.
let catchingUp = false;

export function openRoom(code, intent = null) {
  closeRoom();
  state.room = newRoom(code, intent);
  changed();
  refreshRoom();
  chat.open(send);
  connect(code, { onMessage, onHalt: haltRoom });
}

export function closeRoom() {
  chat.close();
  disconnect();
  resetEffects();
  state.room = null;
}

/** The banner's "try again": a halted or waiting socket connects now. */
export function retryNow() {
  if (!state.room) return;
  if (!reconnect()) openRoom(state.room.code);
}

function onMessage(msg) {
  const room = state.room;
  if (!room) return;
  if (chat.isTalk(msg)) {
    chat.receive(msg);
    return;
  }
  switch (msg.type) {
    case 'welcome':
      room.role = msg.role === 'seat' ? 'seat' : 'spectator';
      room.seat = typeof msg.seat === 'number' ? msg.seat : null;
      room.playerId = msg.player_id || null;
      if (msg.room) room.info = mergeInfo(room.info, api.normRoom(msg.room));
      room.welcomed = true;
      catchingUp = true;
      welcomed();
      runIntent();
      break;
    case 'resync':
      // Too far behind for the missed events (PROTOCOL §4): nothing to animate; the snapshot
      // that follows replaces the table like any other.
      break;
    case 'snapshot':
      onSnapshot(room, msg);
      break;
    case 'event':
      receiveEvent(msg, { viewer: viewerSeat(room), catchUp: catchingUp, at: performance.now() });
      return; // the handlers say changed() when they change something
    case 'ack':
      // The move is stored; it is drawn with the snapshot that closes its batch (seq >= this).
      if (room.pending && room.pending.moveId === msg.move_id) room.pending.seq = msg.seq;
      break;
    case 'error':
      onError(room, msg);
      break;
    case 'presence': {
      const presence = presenceOf(msg);
      room.presence = presence.seats;
      room.spectators = presence.spectators;
      break;
    }
    case 'room':
      room.info = mergeInfo(room.info, api.normRoom(msg.room));
      if (room.info.closedReason) room.closedReason = room.info.closedReason;
      if (isOver(room.info)) haltRoom('room_closed');
      break;
    case 'bye':
      // `replaced`: this player opened the table elsewhere; reconnecting here would only take the
      // seat back from that tab, so this page stops and says so. `room_closed`: the room is over.
      // Other reasons (a node draining, the table moving) reconnect as usual.
      if (msg.reason === 'replaced') stopAfterClose('replaced');
      // An operator took this player off the table, or banned them: never reconnect.
      if (msg.reason === 'removed' || msg.reason === 'banned') halt(msg.reason);
      if (msg.reason === 'room_closed') {
        if (room.info && !isOver(room.info)) room.info = { ...room.info, status: 'closed' };
        haltRoom('room_closed'); // and asks the REST room why (host closed, idle, …)
      }
      break;
    default:
      return; // pong and anything unknown: nothing to draw
  }
  changed();
}

function onSnapshot(room, msg) {
  const before = room.game;
  room.game = applySnapshot(before, msg, performance.now());
  caughtUp(msg.set, msg.seq);
  catchingUp = false;
  const view = room.game.view;
  const me = viewerSeat(room);
  const was = before.view;
  // A new deal, or a result to show: the result panel opens again.
  if (!was || before.set !== msg.set || was.dealNumber !== view.dealNumber || was.phase !== view.phase) {
    room.resultHidden = false;
  }
  const pending = room.pending;
  if (pending && ((pending.seq !== null && msg.seq >= pending.seq) || !isMyTurn(view, me))) room.pending = null;
  // The end choice stays open only while that tile still asks for its end.
  if (room.choosing && !(tapTile(room.game, me, room.choosing) || {}).choose) room.choosing = null;
  if (isMyTurn(view, me) && view.legal.length) {
    const key = `${msg.set}:${msg.seq}`;
    if (room.turnAnnounced !== key) {
      room.turnAnnounced = key;
      const event = { kind: 'my_turn', deal_number: view.dealNumber, legal: legalByTile(view.legal).size };
      emit(event, { set: msg.set, seq: msg.seq, viewer: me, catchUp: false, at: performance.now() });
    }
  }
}

function onError(room, msg) {
  if (room.pending && (!msg.move_id || msg.move_id === room.pending.moveId)) room.pending = null;
  if (msg.code === 'bad_token') {
    api.forgetToken();
    state.player = loadPlayer();
  }
  if (msg.code === 'banned') stopAfterClose('banned'); // a hello refused: do not try again
  if (msg.code === 'room_not_found') {
    room.notFound = true;
    stopAfterClose('not_found');
  }
  toast(errorText(msg.code, msg.message, msg.field), 'error');
}
