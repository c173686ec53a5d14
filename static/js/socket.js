// One WebSocket to one table, kept alive: reconnects with capped exponential backoff and full
// jitter, says hello (with the last set/seq for resuming) on every new socket, pings to notice a
// dead link, and reports its status so the UI can show a banner.

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 15000;
const PING_EVERY_MS = 15000;
const SILENCE_LIMIT_MS = 40000;

export function backoffDelay(attempt, random = Math.random) {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.min(attempt, 10));
  // "Equal jitter": at least half the ceiling, so a reconnect storm still spreads out.
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
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
    this.lastHeard = 0;
    this.state = 'idle';
    this.retryAt = null;
    // A halted socket (replaced by another tab, room closed) stays down: coming back to this tab
    // must not take the seat back from the other one, which would then do the same.
    this._onOnline = () => {
      if (this.state !== 'halted') this.reconnectNow();
    };
    // The browser says the network is gone: the socket is as good as dead, though it may take
    // SILENCE_LIMIT_MS to notice. Drop it now, so the page shows itself offline at once (the
    // retries wait for the network; `online` reconnects at once).
    this._onOffline = () => {
      if (this.state === 'open' || this.state === 'connecting') this.reconnectNow();
    };
    this._onVisible = () => {
      if (document.visibilityState === 'visible' && this.state !== 'open' && this.state !== 'halted') this.reconnectNow();
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
    window.removeEventListener('online', this._onOnline);
    window.removeEventListener('offline', this._onOffline);
    document.removeEventListener('visibilitychange', this._onVisible);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      try { ws.close(1000, 'bye'); } catch { /* already closed */ }
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
      try { ws.close(1000, 'resync'); } catch { /* ignore */ }
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
    this._status('connecting');
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this._scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.lastHeard = Date.now();
      ws.send(JSON.stringify(this.hello()));
      this.everOpen = true;
      this._status('open');
      this.pingTimer = setInterval(() => this._keepAlive(ws), PING_EVERY_MS);
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

  _keepAlive(ws) {
    if (this.ws !== ws) return;
    if (Date.now() - this.lastHeard > SILENCE_LIMIT_MS) {
      // The link is dead without a close frame (sleeping phone, lost Wi-Fi): start over.
      this.reconnectNow();
      return;
    }
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'ping', t: Date.now() }));
  }

  _scheduleRetry() {
    clearTimeout(this.retryTimer);
    const delay = backoffDelay(this.attempt);
    this.attempt += 1;
    this.retryAt = Date.now() + delay;
    this._status('retrying');
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped) this._open();
    }, delay);
  }

  _status(state) {
    this.state = state;
    if (state !== 'retrying') this.retryAt = null;
    this.onStatus({ state, retryAt: this.retryAt, attempt: this.attempt, everOpen: this.everOpen });
  }
}
