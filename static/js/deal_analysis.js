// The analysis of a finished deal on the replay page (GET /api/sets/{id}/deals/{n}/analysis,
// docs/API.md): each move's mark, the best move of the position shown, a graph of the deal's
// value over the moves, and the biggest mistakes of the player's own seats.
// The server computes it once (202 while it does): this module asks again until it is there.

import { h, s } from './dom.js';
import { t } from './i18n.js';
import { changed } from './store.js';
import { loadPlayer } from './storage.js';

const POLL_MS = 1500;
const MAX_POLLS = 80;
const cache = new Map(); // "set/deal" -> {status: loading | ready | error, body}

function keyOf(setId, number) {
  return `${setId}/${number}`;
}

async function fetchAnalysis(setId, number, polls = 0) {
  const key = keyOf(setId, number);
  try {
    const response = await fetch(`/api/sets/${setId}/deals/${number}/analysis`, { headers: { Accept: 'application/json' } });
    if (response.status === 202 && polls < MAX_POLLS) {
      setTimeout(() => fetchAnalysis(setId, number, polls + 1), POLL_MS);
      return;
    }
    const body = await response.json().catch(() => null);
    cache.set(key, response.ok && body && body.status === 'done' ? { status: 'ready', body } : { status: 'error', body: null });
  } catch {
    cache.set(key, { status: 'error', body: null });
  }
  changed();
}

/** The analysis of deal ``number`` of set ``setId``: {status, body}; starts loading it once. */
export function analysisOf(setId, number) {
  const key = keyOf(setId, number);
  let entry = cache.get(key);
  if (!entry) {
    entry = { status: 'loading', body: null };
    cache.set(key, entry);
    fetchAnalysis(setId, number);
  }
  return entry;
}

/** The seats the player on this device sat in, in the set ``data`` (GET /api/sets/{id}). */
function mySeats(data) {
  const me = loadPlayer();
  const id = me && me.player_id;
  if (!id) return [];
  return (data.seats || []).filter((e) => e.player_id === id).map((e) => e.seat);
}

function moveText(m) {
  if (!m) return '';
  if (m.end === 'discard') return `${m.tile} ${t('analysis.discard')}`;
  return m.end ? `${m.tile} ${t(`end.${m.end}`).toLowerCase()}` : m.tile;
}

function fmt(x) {
  if (x === null || x === undefined) return '–';
  const r = Math.round(x * 100) / 100;
  return r > 0 ? `+${r}` : String(r);
}

/** The value graph: the best value of each position, to the side of seat 0 (Ganda: team A). */
function graph(body, data, current) {
  const pts = body.moves.map((m) => {
    if (m.best === null) return null;
    const sameSide = data.mode === 'ganda' ? m.seat % 2 === 0 : m.seat === 0;
    return sameSide ? m.best : (data.mode === 'ganda' ? -m.best : null);
  });
  const known = pts.filter((p) => p !== null);
  if (!known.length) return null;
  const w = 300;
  const hgt = 80;
  const top = Math.max(1, ...known.map(Math.abs));
  const x = (i) => (pts.length > 1 ? (i / (pts.length - 1)) * w : 0);
  const y = (v) => hgt / 2 - (v / top) * (hgt / 2 - 4);
  const path = pts.map((p, i) => (p === null ? null : `${x(i).toFixed(1)},${y(p).toFixed(1)}`)).filter(Boolean).join(' ');
  return s('svg', { class: 'analysis-graph', 'data-testid': 'analysis-graph', viewBox: `0 0 ${w} ${hgt}`, role: 'img', 'aria-label': t('analysis.graph') },
    s('line', { x1: 0, y1: hgt / 2, x2: w, y2: hgt / 2, stroke: 'currentColor', 'stroke-opacity': '0.3' }),
    s('polyline', { points: path, fill: 'none', stroke: 'currentColor', 'stroke-width': 2 }),
    current < pts.length ? s('circle', { cx: x(current), cy: y(pts[current] ?? 0), r: 4, fill: 'currentColor' }) : null);
}

/**
 * The analysis block of the replay page for ``deal`` (a finished deal of ``data``) with
 * ``move`` moves shown; ``go(i)`` shows the position before move i.
 */
export function analysisPanel(data, deal, move, go) {
  const entry = analysisOf(data.set_id, deal.number);
  if (entry.status !== 'ready') {
    return h('section', { class: 'replay-analysis', 'data-testid': 'analysis', 'data-status': entry.status },
      h('h2', {}, t('analysis.title')),
      h('p', { class: 'muted small', role: 'status' }, entry.status === 'error' ? t('analysis.unavailable') : t('analysis.computing')));
  }
  const body = entry.body;
  const next = body.moves[move] || null;
  const best = next
    ? h('p', { class: 'analysis-best', 'data-testid': 'analysis-best', 'data-mark': next.mark || '' },
      next.mark === null
        ? t('analysis.not_solved')
        : [t('analysis.best_open', { moves: next.best_moves.map(moveText).join(' / ') }), ' · ',
          t('analysis.best_known', { move: moveText(next.view_best) })])
    : null;
  const list = h('ol', { class: 'analysis-moves', 'aria-label': t('analysis.moves') },
    body.moves.map((m, i) => h('li', {
      class: `analysis-move mark-${m.mark || 'none'}${i === move - 1 ? ' current' : ''}`,
      'data-testid': 'analysis-move',
      'data-index': i,
      'data-mark': m.mark || '',
    },
    h('button', { type: 'button', class: 'btn-link', onClick: () => go(i + 1) },
      `${i + 1}. ${moveText(m.move)}`),
    ' ',
    h('span', { class: `analysis-mark mark-${m.mark || 'none'}` }, m.mark ? t(`analysis.mark.${m.mark}`) : '–'),
    m.loss ? h('span', { class: 'muted small' }, ` ${fmt(-m.loss)}`) : null)));
  const seats = mySeats(data);
  const mistakes = body.moves
    .filter((m) => seats.includes(m.seat) && m.loss && m.loss > 1e-9)
    .sort((a, b) => b.loss - a.loss || a.index - b.index)
    .slice(0, 5);
  const mine = seats.length
    ? h('section', { class: 'analysis-mistakes', 'data-testid': 'analysis-mistakes' },
      h('h3', {}, t('analysis.mistakes')),
      mistakes.length
        ? h('ol', {}, mistakes.map((m) => h('li', { 'data-testid': 'analysis-mistake', 'data-index': m.index },
          h('button', { type: 'button', class: 'btn-link', onClick: () => go(m.index) },
            t('analysis.mistake_line', { n: m.index + 1, move: moveText(m.move), best: m.best_moves.map(moveText).join(' / '), loss: fmt(-m.loss) })))))
        : h('p', { class: 'muted small' }, t('analysis.no_mistakes')))
    : null;
  return h('section', { class: 'replay-analysis', 'data-testid': 'analysis', 'data-status': 'ready' },
    h('h2', {}, t('analysis.title')),
    best,
    graph(body, data, move),
    mine,
    list);
}
