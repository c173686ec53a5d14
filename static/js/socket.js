// One WebSocket to one table, kept alive: reconnects with capped exponential backoff and full
// jitter, says hello (with the last set/seq for resuming) on every new socket, pings to notice a
// dead link, and reports its status so the UI can show a banner.
//
// A link can die without a close frame (a phone's radio sleeps, Wi-Fi drops, a proxy forgets the
// connection): the socket still says OPEN while nothing arrives. So the link is watched: once it
// has been quiet for QUIET_MS a `ping` goes out, and a ping that nothing answers within
// PONG_TIMEOUT_MS (any frame counts as an answer) marks it dead, well inside 10 s of the last frame.
// The browser's `offline` event drops the socket at once.

import { CLOSE } from './protocol.js';

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 15000;
export const WATCH_EVERY_MS = 500;
export const QUIET_MS = 2500;
export const PONG_TIMEOUT_MS = 3500;
// A handshake that a frozen server never answers would otherwise hang for the browser's own limit.
export const CONNECT_TIMEOUT_MS = 5000;

export function backoffDelay(attempt, random = Math.random) {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.min(attempt, 10));
  // "Equal jitter": at least half the ceiling, so a reconnect storm still spreads out.
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * What the watch does now: "ping" (quiet for long enough, no ping waiting), "dead" (a ping went
 * unanswered for PONG_TIMEOUT_MS) or "wait". Times in ms; `pingAt` null when no ping is out, and a
 * ping counts as answered once anything was heard after it.
 */
export function linkCheck({ now, lastHeard, pingAt }) {
  const waiting = pingAt !== null && pingAt !== undefined && lastHeard < pingAt;
  if (waiting) return now - pingAt >= PONG_TIMEOUT_MS ? 'dead' : 'wait';
  return now - lastHeard >= QUIET_MS ? 'ping' : 'wait';
}

export class TableSocket {
  /**
   * @param {object} opts
   * @param {string} opts.code room code
   * @param {() => object} opts.hello builds the hello message for a new socket
   * @param {(msg: object) => void} opts.onMessage
   * @param {(status: object) => void} opts.onStatus {state, retryAt, attempt, everOpen}
   * @param {(code: number, reason: string) => boolean} [opts.onClose] return false to stop retrying
   */
  constructor({ code, hello, onMessage, onStatus, onClose }) {
    this.code = code;
    this.hello = hello;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.onClose = onClose || (() => true);
    this.ws = null;
    this.attempt = 0;
    this.everOpen = false;
    this.stopped = false;
    this.retryTimer = null;
    this.pingTimer = null;
    this.connectTimer = null;
    this.lastHeard = 0;
    this.pingAt = null;
    this.state = 'idle';
    this.retryAt = null;
    // A halted socket (replaced by another tab, room closed) stays down: coming back to this tab
    // must not take the seat back from the other one, which would then do the same.
    this._onOnline = () => {
      if (this.state !== 'halted') this.reconnectNow();
    };
    this._onVisible = () => {
      if (document.visibilityState === 'visible' && this.state !== 'open' && this.state !== 'halted') this.reconnectNow();
    };
    // The browser says the network is gone: the socket is as good as dead, though it may take
    // SILENCE_LIMIT_MS to notice. Drop it now, so the page shows itself offline at once (the
    // retries wait for the network; `online` reconnects at once).
    this._onOffline = () => {
      if (this.ws && !this.stopped) this._dropDead();
    };
    window.addEventListener('online', this._onOnline);
    window.addEventListener('offline', this._onOffline);
    document.addEventListener('visibilitychange', this._onVisible);
  }

  url() {
    const proto = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${proto}//${window.location.host}/ws/rooms/${encodeURIComponent(this.code)}`;
  }

  start() {
    this.stopped = false;
    this._open();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    clearTimeout(this.connectTimer);
    window.removeEventListener('online', this._onOnline);
    window.removeEventListener('offline', this._onOffline);
    document.removeEventListener('visibilitychange', this._onVisible);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      try { ws.close(CLOSE.NORMAL, 'bye'); } catch { /* already closed */ }
    }
    this._status('stopped');
  }

  /** Drop the current socket (if any) and connect again at once, e.g. to resync after a gap. */
  reconnectNow() {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      this._detach(ws);
      try { ws.close(CLOSE.NORMAL, 'resync'); } catch { /* ignore */ }
    }
    this._open();
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || this.state !== 'open') return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Called by the owner once the server's welcome arrived: the link is healthy again. */
  markWelcomed() {
    this.attempt = 0;
  }

  _open() {
    clearInterval(this.pingTimer);
    clearTimeout(this.connectTimer);
    this._status('connecting');
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this._scheduleRetry();
      return;
    }
    this.ws = ws;
    this.connectTimer = setTimeout(() => {
      if (this.ws === ws && ws.readyState === WebSocket.CONNECTING) this._dropDead();
    }, CONNECT_TIMEOUT_MS);
    ws.onopen = () => {
      if (this.ws !== ws) return;
      clearTimeout(this.connectTimer);
      this.lastHeard = Date.now();
      this.pingAt = null;
      ws.send(JSON.stringify(this.hello()));
      this.everOpen = true;
      this._status('open');
      this.pingTimer = setInterval(() => this._watch(ws), WATCH_EVERY_MS);
    };
    ws.onmessage = (e) => {
      if (this.ws !== ws) return;
      this.lastHeard = Date.now();
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      if (msg && typeof msg === 'object') this.onMessage(msg);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pingTimer);
      clearTimeout(this.connectTimer);
      if (this.stopped) return;
      if (this.onClose(e.code, e.reason || '') === false) {
        this._status('halted');
        return;
      }
      this._scheduleRetry();
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  _detach(ws) {
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
  }

  _watch(ws) {
    if (this.ws !== ws) return;
    const now = Date.now();
    const verdict = linkCheck({ now, lastHeard: this.lastHeard, pingAt: this.pingAt });
    if (verdict === 'dead') {
      // Dead without a close frame: connect again at once (a resume loses nothing).
      this.reconnectNow();
    } else if (verdict === 'ping' && ws.readyState === WebSocket.OPEN) {
      this.pingAt = now;
      ws.send(JSON.stringify({ type: 'ping', t: now }));
    }
  }

  /** Give up on the current socket (offline, a handshake that hangs) and retry with backoff. */
  _dropDead() {
    const ws = this.ws;
    this.ws = null;
    clearInterval(this.pingTimer);
    clearTimeout(this.connectTimer);
    if (ws) {
      this._detach(ws);
      try { ws.close(CLOSE.NORMAL, 'dead'); } catch { /* ignore */ }
    }
    this._scheduleRetry();
  }

  _scheduleRetry() {
    clearTimeout(this.retryTimer);
    const delay = backoffDelay(this.attempt);
    this.attempt += 1;
    this.retryAt = Date.now() + delay;
    this._status('retrying');
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.stopped) return;
      // Offline, an attempt can only fail: wait (the `online` event connects at once).
      if (navigator.onLine === false) this._scheduleRetry();
      else this._open();
    }, delay);
  }

  _status(state) {
    this.state = state;
    if (state !== 'retrying') this.retryAt = null;
    this.onStatus({ state, retryAt: this.retryAt, attempt: this.attempt, everOpen: this.everOpen });
  }
}
