// A tournament page's live feed: the socket GET /ws/tournaments/{id} (docs/PROTOCOL.md), each
// frame carrying the whole view as `tournament`, reconnected with socket.js's backoff. While the
// socket is down (or refused, or not served at all) the view is read over REST on a timer, so the
// page never goes stale. The caller draws from every view it is handed and uses the frame only
// for effects.

import { backoffDelay } from './socket.js';
import { frameView } from './tournament.js';

const POLL_MS = 5000; // REST while no socket is open
const GIVE_UP = 6; // sockets closed before opening in a row: stop trying, REST only

/**
 * Follow tournament `id`. `onView(view, frame)`: a fresh view (frame null when it came over REST);
 * `onStatus(status)`: "live" | "polling"; `fetchView()`: GET /api/tournaments/{id}.
 * Returns stop().
 */
export function follow(id, { onView, onStatus, fetchView }) {
  let ws = null;
  let stopped = false;
  let attempt = 0;
  let refused = 0;
  let retry = null;
  let poll = null;

  const url = () => {
    const proto = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${proto}//${window.location.host}/ws/tournaments/${id}`;
  };

  async function readRest() {
    try {
      const view = await fetchView();
      if (!stopped) onView(view, null);
    } catch { /* the next tick tries again; the page keeps what it drew */ }
  }

  function startPolling() {
    if (poll || stopped) return;
    onStatus('polling');
    poll = setInterval(() => {
      if (typeof document === 'undefined' || document.visibilityState === 'visible') readRest();
    }, POLL_MS);
  }

  function stopPolling() {
    clearInterval(poll);
    poll = null;
  }

  function connect() {
    if (stopped) return;
    let opened = false;
    let sock;
    try {
      sock = new WebSocket(url());
    } catch {
      startPolling();
      return;
    }
    ws = sock;
    sock.onopen = () => {
      opened = true;
      attempt = 0;
      refused = 0;
    };
    sock.onmessage = (e) => {
      let frame;
      try { frame = JSON.parse(e.data); } catch { return; }
      const view = frameView(frame);
      if (!view) return;
      stopPolling();
      onStatus('live');
      onView(view, frame);
    };
    sock.onclose = () => {
      if (ws !== sock) return;
      ws = null;
      if (stopped) return;
      startPolling();
      if (!opened) refused += 1;
      if (refused >= GIVE_UP) return; // no socket served here: REST alone keeps the page
      retry = setTimeout(() => { retry = null; connect(); }, backoffDelay(attempt++));
    };
  }

  connect();
  return function stop() {
    stopped = true;
    clearTimeout(retry);
    stopPolling();
    if (ws) {
      const sock = ws;
      ws = null;
      sock.close();
    }
  };
}
