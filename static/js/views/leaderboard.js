// The leaderboard, /leaderboard?mode=tunggal|ganda: players with enough rated sets, by rating,
// a page at a time (GET /api/leaderboard, docs/API.md). Mode tabs; previous / next pages.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { changed } from '../store.js';
import { request } from '../api.js';
import { modeLabel } from './common.js';
import { errorText } from '../errors.js';
import { profileLink } from './profile.js';
import { myPlayerId } from './account.js';

const ROUTE_RE = /^\/leaderboard\/?$/;
const MODES = ['tunggal', 'ganda'];
const PAGE = 25;

const lb = {
  open: false,
  mode: 'tunggal',
  cursors: [null], // the cursor of each page seen so far; the last is the current page's
  status: 'idle', // loading | ready | error
  data: null,
  error: null,
  seq: 0,
};

export function leaderboardRoute(pathname) {
  return ROUTE_RE.test(pathname) ? { name: 'leaderboard' } : null;
}

function modeFromUrl() {
  const mode = new URLSearchParams(window.location.search).get('mode');
  return MODES.includes(mode) ? mode : MODES[0];
}

export function openLeaderboard() {
  const mode = modeFromUrl();
  if (lb.open && lb.mode === mode && lb.status === 'ready') return;
  Object.assign(lb, { open: true, mode, cursors: [null], data: null });
  load();
}

export function closeLeaderboard() {
  lb.open = false;
}

async function load() {
  lb.seq += 1;
  const seq = lb.seq;
  lb.status = 'loading';
  lb.error = null;
  changed();
  const query = new URLSearchParams({ mode: lb.mode, limit: String(PAGE) });
  const cursor = lb.cursors[lb.cursors.length - 1];
  if (cursor) query.set('cursor', cursor);
  try {
    const data = await request('GET', `/api/leaderboard?${query}`, undefined, { auth: false });
    if (seq !== lb.seq) return;
    lb.data = data;
    lb.status = 'ready';
  } catch (err) {
    if (seq !== lb.seq) return;
    lb.status = 'error';
    lb.error = errorText(err.code, err.message, err.field);
  }
  changed();
}

function setMode(mode) {
  if (mode === lb.mode && lb.cursors.length === 1) return;
  lb.mode = mode;
  lb.cursors = [null];
  window.history.replaceState({}, '', `/leaderboard${mode === MODES[0] ? '' : `?mode=${mode}`}`);
  load();
}

function next() {
  if (!lb.data || !lb.data.next_cursor || lb.status === 'loading') return;
  lb.cursors = [...lb.cursors, lb.data.next_cursor];
  load();
}

function prev() {
  if (lb.cursors.length < 2 || lb.status === 'loading') return;
  lb.cursors = lb.cursors.slice(0, -1);
  load();
}

export function leaderboardView() {
  const data = lb.status === 'ready' ? lb.data : null;
  const me = myPlayerId();
  const tabs = h('div', { class: 'lb-tabs', role: 'tablist', 'aria-label': t('lb.title') }, MODES.map((mode) => h('button', {
    type: 'button',
    role: 'tab',
    class: `lb-tab${mode === lb.mode ? ' active' : ''}`,
    'aria-selected': String(mode === lb.mode),
    'data-testid': 'leaderboard-tab',
    'data-mode': mode,
    'data-focus': `lb-tab-${mode}`,
    onClick: () => setMode(mode),
  }, modeLabel(mode))));
  let body;
  if (lb.status === 'error') {
    body = h('div', { class: 'acct-error', role: 'alert', 'data-testid': 'leaderboard-error' },
      h('p', {}, t('lb.error'), ' ', lb.error),
      h('button', { type: 'button', class: 'btn btn-small', onClick: load }, t('lb.retry')));
  } else if (!data) {
    body = h('p', { class: 'muted', role: 'status' }, t('lb.loading'));
  } else if (!data.players.length) {
    body = h('p', { class: 'muted lb-empty', 'data-testid': 'leaderboard-empty' }, t('lb.empty', { n: data.min_rated_sets }));
  } else {
    body = h('ol', { class: 'lb-list', 'data-testid': 'leaderboard-list' }, data.players.map((p) => h('li', {
      class: `lb-row${p.player_id === me ? ' mine' : ''}${p.position <= 3 ? ` top top-${p.position}` : ''}`,
      'data-testid': 'leaderboard-row',
      'data-player': p.player_id,
      'data-position': p.position,
      'data-rating': p.rating,
    },
    h('span', { class: 'lb-pos', 'aria-label': `${t('lb.position')}${p.position}` }, String(p.position)),
    h('span', { class: 'lb-who' },
      profileLink(p.player_id, p.name, { testid: 'leaderboard-name' }),
      p.username ? h('span', { class: 'muted small lb-username' }, `@${p.username}`) : null),
    h('span', { class: 'lb-sets muted small' }, t('lb.sets.n', { n: p.rated_sets })),
    h('span', { class: 'lb-rating' }, String(p.rating)))));
  }
  const page = lb.cursors.length;
  const pager = data && (page > 1 || data.next_cursor) ? h('nav', { class: 'lb-pager', 'aria-label': t('lb.page', { n: page }) },
    h('button', { type: 'button', class: 'btn btn-ghost btn-small', 'data-testid': 'leaderboard-prev', 'data-focus': 'lb-prev', disabled: page < 2, onClick: prev }, `‹ ${t('lb.prev')}`),
    h('span', { class: 'muted small', 'data-testid': 'leaderboard-page', 'data-page': page }, t('lb.page', { n: page })),
    h('button', { type: 'button', class: 'btn btn-ghost btn-small', 'data-testid': 'leaderboard-next', 'data-focus': 'lb-next', disabled: !data.next_cursor, onClick: next }, `${t('lb.next')} ›`)) : null;
  return h('section', {
    class: 'acct-page leaderboard',
    'data-testid': 'leaderboard',
    'data-mode': lb.mode,
    'data-status': lb.status,
  },
  h('h1', {}, t('lb.title')),
  h('p', { class: 'muted small' }, t('lb.explain', { n: data ? data.min_rated_sets : '…' })),
  tabs,
  h('div', { class: 'card lb-card' }, body, pager));
}
