// A player's profile, /p/{player_id}: name, username, joined; per mode the rating with a small
// chart of its last changes, sets played and won, win rate and deals won by kind; then the
// player's recent sets, each linking to its replay, and the clubs they belong to. It draws GET /api/players/{id} and
// GET /api/players/{id}/sets (docs/API.md) and nothing else.

import { h, s } from '../dom.js';
import { t, has, lang } from '../i18n.js';
import { changed, toast } from '../store.js';
import { request } from '../api.js';
import { modeLabel } from './common.js';
import { initial } from '../text.js';
import { errorText } from '../errors.js';
import { ratingSeries, chartGeometry, signed } from '../chart.js';
import { myPlayerId } from './account.js';
import { profileActions } from './social.js';
import { clubPath } from '../clubs.js';

const ROUTE_RE = /^\/p\/([A-Za-z0-9_-]{1,64})\/?$/;
const MODES = ['tunggal', 'ganda'];
const SETS_PAGE = 10;
const CHART_W = 300;
const CHART_H = 72;

const pf = {
  id: null,
  status: 'idle', // loading | ready | error
  error: null,
  data: null,
  sets: [],
  next: null,
  more: false,
};

export function profileRoute(pathname) {
  const m = ROUTE_RE.exec(pathname);
  return m ? { name: 'profile', id: m[1] } : null;
}

export const profilePath = (playerId) => `/p/${encodeURIComponent(playerId)}`;

export function openProfile(id) {
  if (pf.id === id && pf.status === 'ready') {
    load(id, { quiet: true }); // fresh figures, without a loading flash
    return;
  }
  Object.assign(pf, { id, status: 'loading', error: null, data: null, sets: [], next: null, more: false });
  load(id);
}

export function closeProfile() {
  pf.id = null;
}

async function load(id, { quiet = false } = {}) {
  const enc = encodeURIComponent(id);
  try {
    const [data, page] = await Promise.all([
      request('GET', `/api/players/${enc}`, undefined, { auth: false }),
      request('GET', `/api/players/${enc}/sets?limit=${SETS_PAGE}`, undefined, { auth: false }),
    ]);
    if (pf.id !== id) return;
    Object.assign(pf, { status: 'ready', data, sets: page.sets || [], next: page.next_cursor || null });
  } catch (err) {
    if (pf.id !== id || quiet) return;
    pf.status = 'error';
    pf.error = err.status === 404 ? t('profile.not_found') : errorText(err.code, err.message, err.field);
  }
  changed();
}

async function moreSets() {
  if (pf.more || !pf.next) return;
  const id = pf.id;
  pf.more = true;
  changed();
  try {
    const page = await request('GET', `/api/players/${encodeURIComponent(id)}/sets?limit=${SETS_PAGE}&cursor=${encodeURIComponent(pf.next)}`, undefined, { auth: false });
    if (pf.id !== id) return;
    pf.sets = [...pf.sets, ...(page.sets || [])];
    pf.next = page.next_cursor || null;
  } catch (err) {
    toast(errorText(err.code, err.message, err.field), 'error');
  } finally {
    pf.more = false;
    changed();
  }
}

// --- links to profiles (names at the table and in the lobby) ------------------------------------

/**
 * A player's name as a link to their profile. At a live table (`newTab`) it opens another tab, so
 * a tap on a name never takes a player away from their seat.
 */
export function profileLink(playerId, text, { newTab = false, testid = null } = {}) {
  if (!playerId) return text;
  return h('a', {
    class: 'profile-link',
    href: profilePath(playerId),
    'data-testid': testid || 'profile-link',
    'data-player': playerId,
    target: newTab ? '_blank' : null,
    rel: newTab ? 'noopener' : null,
    onClick: (e) => {
      e.stopPropagation();
      if (newTab || e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
      e.preventDefault();
      window.history.pushState({}, '', profilePath(playerId));
      window.dispatchEvent(new PopStateEvent('popstate'));
    },
  }, text);
}

// --- the page ---------------------------------------------------------------------------------

export function formatDate(iso, withTime = false) {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const opts = withTime
    ? { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' }
    : { day: 'numeric', month: 'long', year: 'numeric' };
  return date.toLocaleString(lang() === 'id' ? 'id-ID' : 'en-GB', opts);
}

export function profileView() {
  const page = (status, ...children) => h('section', {
    class: 'acct-page profile',
    'data-testid': 'profile',
    'data-status': status,
    'data-player': pf.id || '',
  }, children);
  if (pf.status === 'loading' || pf.status === 'idle') return page('loading', h('p', { class: 'muted', role: 'status' }, t('profile.loading')));
  if (pf.status === 'error') return page('error', h('p', { class: 'card acct-error', 'data-testid': 'profile-error', role: 'alert' }, pf.error));
  const d = pf.data;
  const mine = myPlayerId() === d.player_id;
  return page('ready',
    h('header', { class: 'profile-head' },
      h('span', { class: 'profile-avatar', 'aria-hidden': 'true' }, initial(d.name)),
      h('div', { class: 'profile-who' },
        h('h1', { 'data-testid': 'profile-name' }, d.name),
        h('p', { class: 'profile-sub' },
          d.username ? h('span', { 'data-testid': 'profile-username' }, `@${d.username}`) : h('span', { class: 'muted' }, t('acct.guest')),
          mine ? h('span', { class: 'badge badge-you' }, t('profile.you')) : null),
        h('p', { class: 'muted small', 'data-testid': 'profile-joined', 'data-joined': d.joined || '' }, t('profile.joined', { date: formatDate(d.joined) })),
        clubsLine(d.clubs),
        mine ? null : profileActions(d.player_id, d.name))),
    h('div', { class: 'profile-modes' }, MODES.map((mode) => modeCard(mode, (d.modes || {})[mode]))),
    setsList());
}

/** The player's clubs, each a link to its page (views/clubs.js draws it). */
function clubsLine(clubs) {
  if (!Array.isArray(clubs) || !clubs.length) return null;
  return h('p', { class: 'profile-clubs small', 'data-testid': 'profile-clubs' },
    h('span', { class: 'muted' }, `${t('club.profile')}: `),
    clubs.map((c, i) => [i ? ', ' : null, h('a', {
      class: 'club-link',
      href: clubPath(c.id),
      'data-testid': 'profile-club',
      'data-club': c.id,
      'data-role': c.role,
      onClick: (e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        window.history.pushState({}, '', clubPath(c.id));
        window.dispatchEvent(new PopStateEvent('popstate'));
      },
    }, c.name)]));
}

function stat(testid, mode, label, value) {
  return h('div', { class: 'stat' },
    h('span', { class: 'stat-value', 'data-testid': testid, 'data-mode': mode }, value),
    h('span', { class: 'stat-label' }, label));
}

function modeCard(mode, m) {
  if (!m) return null;
  const pct = m.win_rate === null || m.win_rate === undefined ? '—' : `${Math.round(m.win_rate * 100)}%`;
  return h('section', { class: 'card profile-mode', 'data-testid': 'profile-mode', 'data-mode': mode },
    h('header', { class: 'profile-mode-head' },
      h('h2', {}, h('span', { class: `mode-pill mode-${mode}` }, modeLabel(mode))),
      h('div', { class: 'profile-rating' },
        h('span', { class: 'rating-value', 'data-testid': 'profile-rating', 'data-mode': mode, 'data-rating': m.rating }, String(m.rating)),
        h('span', { class: 'muted small' }, t('profile.rating')))),
    h('p', { class: 'muted small profile-rated' },
      t('profile.rated_sets', { n: m.rated_sets }), ' · ',
      h('span', { 'data-testid': 'profile-on-leaderboard', 'data-mode': mode, 'data-on': String(Boolean(m.on_leaderboard)) },
        m.on_leaderboard ? t('profile.leaderboard') : t('profile.leaderboard.no'))),
    ratingChart(mode, m.history || []),
    h('div', { class: 'stats' },
      stat('profile-played', mode, t('profile.played'), String(m.sets_played)),
      stat('profile-won', mode, t('profile.won'), String(m.sets_won)),
      stat('profile-winrate', mode, t('profile.winrate'), pct)),
    dealsWon(mode, m.deals_won || {}));
}

function ratingChart(mode, history) {
  const values = ratingSeries(history);
  if (values.length < 2) {
    return h('p', { class: 'muted small chart-none', 'data-testid': 'rating-chart', 'data-mode': mode, 'data-points': '0' }, t('profile.chart.none'));
  }
  const { points, min, max } = chartGeometry(values, CHART_W, CHART_H, 6);
  const line = points.map(([x, y]) => `${x},${y}`).join(' ');
  const area = `${points[0][0]},${CHART_H} ${line} ${points[points.length - 1][0]},${CHART_H}`;
  const last = points[points.length - 1];
  const label = t('profile.chart', { n: history.length, from: values[0], to: values[values.length - 1] });
  return h('figure', { class: 'rating-chart', 'data-testid': 'rating-chart', 'data-mode': mode, 'data-points': String(values.length) },
    s('svg', { viewBox: `0 0 ${CHART_W} ${CHART_H}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': label },
      s('polygon', { points: area, class: 'chart-area' }),
      s('polyline', { points: line, class: 'chart-line', 'vector-effect': 'non-scaling-stroke' }),
      s('circle', { cx: last[0], cy: last[1], r: 3.5, class: 'chart-dot' })),
    h('figcaption', { class: 'chart-scale muted small', 'aria-hidden': 'true' },
      h('span', {}, `${min}–${max}`),
      h('span', {}, signed(values[values.length - 1] - values[0]))));
}

function dealsWon(mode, byKind) {
  const kinds = Object.entries(byKind).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
  return h('div', { class: 'deals-won', 'data-testid': 'deals-won', 'data-mode': mode },
    h('h3', { class: 'small' }, t('profile.deals_won')),
    kinds.length
      ? h('ul', { class: 'deal-kinds' }, kinds.map(([kind, n]) => h('li', { class: `deal-kind result-${kind}`, 'data-testid': 'deal-won', 'data-kind': kind, 'data-count': n },
        h('span', {}, has(`result.${kind}`) ? t(`result.${kind}`) : kind), h('strong', {}, String(n)))))
      : h('p', { class: 'muted small' }, t('profile.deals_none')));
}

function standingText(entry) {
  if (entry.status !== 'finished' || !entry.standing) return { text: t('profile.set.in_play'), cls: 'in-play' };
  if (entry.standing.left) return { text: t('profile.set.left'), cls: 'left' };
  if (entry.standing.won) return { text: t('profile.set.won'), cls: 'won' };
  return { text: t('profile.set.rank', { n: entry.standing.rank }), cls: 'rank' };
}

function setsList() {
  return h('section', { class: 'card profile-sets', 'data-testid': 'profile-sets' },
    h('h2', {}, t('profile.sets')),
    pf.sets.length
      ? h('ol', { class: 'set-list' }, pf.sets.map(setRow))
      : h('p', { class: 'muted' }, t('profile.sets.none')),
    pf.next ? h('button', {
      type: 'button',
      class: 'btn btn-ghost btn-small',
      'data-testid': 'profile-sets-more',
      'data-focus': 'profile-sets-more',
      disabled: pf.more,
      onClick: moreSets,
    }, t('profile.sets.more')) : null);
}

function setRow(entry) {
  const st = standingText(entry);
  const change = entry.rating_change;
  return h('li', { class: 'set-row', 'data-testid': 'profile-set', 'data-set': entry.set_id },
    h('a', { class: 'set-link', href: entry.link || `/replay/${entry.set_id}`, 'data-testid': 'profile-set-link', 'aria-label': `${t('profile.set.replay')}: ${formatDate(entry.ended_at || entry.started_at, true)}` },
      h('span', { class: `set-standing ${st.cls}` }, st.text),
      h('span', { class: 'set-facts' },
        h('span', { class: `mode-pill mode-${entry.mode}` }, entry.preset === 'klasik' ? t('create.preset.klasik') : modeLabel(entry.mode)),
        h('span', { class: 'muted small' }, formatDate(entry.ended_at || entry.started_at, true)),
        entry.points !== null && entry.points !== undefined ? h('span', { class: 'muted small' }, (entry.points === 1 ? t('profile.set.points.one') : t('profile.set.points', { n: entry.points }))) : null),
      change !== null && change !== undefined
        ? h('span', { class: `rating-change ${change > 0 ? 'up' : change < 0 ? 'down' : ''}`, 'data-testid': 'profile-set-change', 'data-change': change }, signed(change))
        : h('span', { class: 'rating-change none' }, ''),
      h('span', { class: 'set-go', 'aria-hidden': 'true' }, '›')));
}
