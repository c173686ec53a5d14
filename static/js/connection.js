// The open room's one table socket (socket.js keeps it alive): what hello says, when a close
// means "stop" rather than "reconnect", and sending. session.js dispatches what it receives.

import { state, changed } from './store.js';
import { TableSocket } from './socket.js';
import { loadPlayer } from './storage.js';
import { CLOSE } from './protocol.js';

const ROLE_WAIT_MS = 1500;
// An operator took this player off the table, or banned them (PROTOCOL.md): never reconnect.
const CLOSE_SENT_AWAY = { [CLOSE.REMOVED]: 'removed', [CLOSE.BANNED]: 'banned' };

let socket = null;
let haltReason = null;
let helloHadToken = false;

/**
 * Connect to room `code`. onMessage(msg) gets every frame; onHalt(reason) is told when the
 * socket stops for good because the room is over ("room_closed").
 */
export function connect(code, { onMessage, onHalt }) {
  disconnect();
  haltReason = null;
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
      const room = state.room;
      if (!room) return false;
      if (haltReason) {
        room.halted = haltReason;
        changed();
        return false;
      }
      if (closeCode === CLOSE.POLICY && room.notFound) return false;
      // Room closed, or replaced by a newer socket (PROTOCOL.md §5): even if the `bye` got lost,
      // never reconnect.
      if (closeCode === CLOSE.ROOM_CLOSED) {
        onHalt('room_closed');
        changed();
        return false;
      }
      if (CLOSE_SENT_AWAY[closeCode]) {
        halt(CLOSE_SENT_AWAY[closeCode]);
        changed();
        return false;
      }
      if (closeCode === CLOSE.REPLACED) {
        haltReason = 'replaced';
        room.halted = 'replaced';
        changed();
        return false;
      }
      return true;
    },
  });
  socket.start();
}

export function disconnect() {
  if (socket) socket.stop();
  socket = null;
}

function buildHello() {
  const player = loadPlayer();
  const room = state.room;
  const msg = { type: 'hello', token: (player && player.token) || null };
  helloHadToken = Boolean(msg.token);
  if (room && room.game.view) msg.resume = { set: room.game.set, seq: room.game.seq };
  return msg;
}

/** Send one message; false when the socket is not open (nothing was sent). */
export function send(msg) {
  return Boolean(socket && socket.send(msg));
}

/** The server's welcome arrived: the link is healthy again. */
export function welcomed() {
  if (socket) socket.markWelcomed();
}

/** This page stops talking to the room: "replaced", "room_closed", "not_found", "removed" or
 * "banned". */
export function halt(reason) {
  haltReason = reason;
  if (state.room) state.room.halted = reason;
  if (socket) socket.stop();
}

/** A close that follows (e.g. a `bye` "replaced") must not reconnect. */
export function stopAfterClose(reason) {
  haltReason = reason;
}

/** Connect again now (retry button), forgetting an earlier halt. */
export function reconnect() {
  haltReason = null;
  if (state.room) state.room.halted = null;
  if (socket) socket.reconnectNow();
  return Boolean(socket);
}

/** After a lobby change to our own seat, the socket must speak for the new role. */
export function expectRole(role) {
  if (!socket) return;
  if (!helloHadToken) {
    socket.reconnectNow();
    return;
  }
  setTimeout(() => {
    if (state.room && socket && state.room.role !== role) socket.reconnectNow();
  }, ROLE_WAIT_MS);
}
