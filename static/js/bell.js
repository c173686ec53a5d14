// The notification bell on the top bar, driven by the player's own socket /ws/me
// (docs/PROTOCOL.md §7): the count of unread notifications, reset when the bell is tapped (which
// marks them read: POST /api/notifications/read, and opens the list: views/social.js). When the
// tab is hidden and the player has allowed it (asked on the first tap of the bell), the
// browser's Notification API shows each one. Other modules read the socket's frames (onMe).

import { h } from './dom.js';
import { icon } from './icons.js';
import { t } from './i18n.js';
import { changed } from './store.js';
import { loadPlayer } from './storage.js';
import { request } from './api.js';
import { backoffDelay } from './socket.js';
import { clubPath } from './clubs.js';

const CHECK_MS = 3000; // how often to look for a token that has no socket yet
const bell = { unread: 0, token: null, ws: null, live: false, attempt: 0, halted: false, timer: null };
const listeners = new Set(); // what else reads /ws/me (social.js: presence, news)
let opened = () => {}; // a tap on the bell also opens the notifications (main.js says how)

/** ``fn(msg)`` for every frame /ws/me brings (presence, notification, welcome_me). */
export function onMe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function url() {
  const proto = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${proto}//${window.location.host}/ws/me`;
}

/** Open /ws/me for the saved player, and keep it open (a new one when the player changes). */
export function initBell({ onOpen = null } = {}) {
  if (onOpen) opened = onOpen;
  check();
  setInterval(check, CHECK_MS);
  window.addEventListener('storage', (e) => { if (e.key === 'gaple.player') check(); });
}

function check() {
  const player = loadPlayer();
  const token = (player && player.token) || null;
  if (token !== bell.token) {
    bell.token = token;
    bell.halted = false;
    bell.attempt = 0;
    bell.unread = 0;
    if (bell.ws) bell.ws.close();
    bell.ws = null;
    changed();
  }
  if (token && !bell.ws && !bell.halted && !bell.timer) connect(token);
}

function connect(token) {
  const ws = new WebSocket(url());
  bell.ws = ws;
  ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', token }));
  ws.onmessage = (e) => {
    let msg;
    try { msg = JSON.parse(e.data); } catch { return; }
    handle(msg);
  };
  ws.onclose = (e) => {
    if (bell.ws !== ws) return;
    bell.ws = null;
    bell.live = false;
    changed();
    // Replaced by another tab, or refused: stay quiet until the player changes.
    if (e.code === 4001 || e.code === 1008 || e.code === 4003) { bell.halted = true; return; }
    const delay = backoffDelay(bell.attempt++);
    bell.timer = setTimeout(() => { bell.timer = null; check(); }, delay);
  };
}

function handle(msg) {
  for (const fn of listeners) fn(msg);
  if (msg.type === 'welcome_me') {
    bell.attempt = 0;
    bell.live = true;
    bell.unread = msg.unread;
    changed();
  } else if (msg.type === 'notification') {
    if (msg.id !== null) bell.unread += 1; // your_turn is not stored: nothing to mark read
    changed();
    showOutside(msg);
  }
}

/** The sentence for a notification, in the player's language (every kind: docs/API.md). */
export function notificationText(msg) {
  const p = msg.payload || {};
  let key = `bell.${msg.kind}`;
  if (msg.kind === 'challenge_answered') key += p.answer === 'declined' ? '.declined' : p.room ? '.ready' : '.accepted';
  const mode = p.mode === 'ganda' ? t('mode.ganda') : p.mode === 'tunggal' ? t('mode.tunggal') : '';
  return t(key, {
    name: p.name || '?',
    table: p.table || p.room || '',
    reason: p.reason || '',
    mode,
    round: p.round || '',
    tournament: p.tournament || '',
    club: p.club || '',
  });
}

const TOURNAMENT_KINDS = ['tournament_round', 'club_tournament', 'club_tournament_started'];

/** Where a notification leads, or null: a tournament's round, or a club's event, to the
 * tournament's page. */
export function notificationLink(msg) {
  const p = msg.payload || {};
  if (TOURNAMENT_KINDS.includes(msg.kind) && Number.isInteger(p.tournament_id)) return `/turnamen/${p.tournament_id}`;
  return null;
}

const CLUB_KINDS = ['club_tournament', 'club_tournament_started'];

/** The club a notification is about (a club event's), as a path to its page, or null. */
export function notificationClubLink(msg) {
  const p = msg.payload || {};
  return CLUB_KINDS.includes(msg.kind) && Number.isInteger(p.club_id) ? clubPath(p.club_id) : null;
}

function showOutside(msg) {
  if (typeof document === 'undefined' || !document.hidden) return;
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  try {
    const shown = new Notification(t('app.name'), { body: notificationText(msg), tag: msg.id ? `n${msg.id}` : undefined });
    const path = notificationLink(msg);
    if (path) {
      shown.onclick = () => {
        window.focus();
        window.history.pushState({}, '', path);
        window.dispatchEvent(new PopStateEvent('popstate'));
      };
    }
  } catch { /* a browser that refuses it (some phones): the bell still counts */ }
}

async function open() {
  if (typeof Notification !== 'undefined' && Notification.permission === 'default') {
    Notification.requestPermission().catch(() => {}); // a tap is the gesture the browser needs
  }
  opened();
  if (bell.unread === 0) return;
  bell.unread = 0;
  changed();
  try {
    await request('POST', '/api/notifications/read', { all: true });
  } catch { /* counted again on the next welcome_me */ }
}

/** The bell for the top bar (nothing without a player). */
export function bellButton() {
  if (!bell.token) return null;
  const count = bell.unread;
  return h('button', {
    type: 'button',
    class: 'bell',
    'data-testid': 'bell',
    'data-live': bell.live ? 'true' : 'false', // /ws/me is open: what happens now rings at once
    'aria-label': t('bell.label', { count }),
    onClick: open,
  },
  h('span', { class: 'bell-icon', 'aria-hidden': 'true' }, icon('bell')),
  count > 0 ? h('span', { class: 'bell-count', 'data-testid': 'bell-count', 'aria-hidden': 'true' }, count > 99 ? '99+' : String(count)) : null);
}
