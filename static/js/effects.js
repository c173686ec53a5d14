// Effects: what the table does besides drawing — badges, announcements, animations, sounds.
//
// The table is drawn from snapshots alone (game.js); each `event` message is handed here, once,
// to every subscribed handler. A sound or motion module subscribes with onEffect() and never
// touches the socket or the drawn state. No DOM here: checked under node (tests/effects.test.js).
//
// A handler is called as handler(event, meta):
//   event  the server's event object as sent (`kind`: deal_started, played, discarded, drew,
//          passed, deal_ended, set_ended, redeal — PROTOCOL §3), or one the client makes:
//          {kind: "my_turn", deal_number, legal} when a snapshot gives this viewer the turn
//          (once per turn) — not an event the server sends
//   meta   {set, seq, viewer, catchUp, at}: `catchUp` is true for events replayed after a
//          reconnect (before that socket's first snapshot: already past, so no sound);
//          `at` is performance.now() when it arrived

const handlers = new Set();
let last = { set: null, seq: 0 };

/** Subscribe; returns the function that unsubscribes. */
export function onEffect(handler) {
  handlers.add(handler);
  return () => handlers.delete(handler);
}

/** A new table (or none): forget which events were seen. */
export function resetEffects() {
  last = { set: null, seq: 0 };
}

/**
 * One `event` message from the socket. Events already handed on (a resume that replays them)
 * are dropped; returns whether this one was new.
 */
export function receiveEvent(msg, { viewer, catchUp = false, at = 0 }) {
  const seen = msg.set === last.set ? msg.seq <= last.seq : msg.set < last.set;
  if (seen) return false;
  last = { set: msg.set, seq: msg.seq };
  emit(msg.event, { set: msg.set, seq: msg.seq, viewer, catchUp, at });
  return true;
}

/** A snapshot was drawn: the events up to its seq need no effects any more. */
export function caughtUp(set, seq) {
  if (set !== last.set || seq > last.seq) last = { set, seq };
}

/** Hand `event` to every handler; one that throws does not stop the others. */
export function emit(event, meta) {
  for (const handler of handlers) {
    try {
      handler(event, meta);
    } catch (err) {
      // Reported as an uncaught error (the page's error log), and the other handlers still run.
      if (typeof globalThis.reportError === 'function') globalThis.reportError(err);
      else setTimeout(() => { throw err; }, 0);
    }
  }
}
