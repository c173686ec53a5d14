// The replay page, /replay/{set_id}#deal=N&move=M: any finished deal of a set, move by move,
// with every hand face up. It draws from GET /api/sets/{id} (docs/API.md) and nothing else.
// /replay/file replays a Gaple record opened from disk (docs/NOTATION.md): the server checks
// and re-plays it (POST /api/records/replay) into the same shape, less what only a stored set
// has (its room, times, analysis); the stored set's page links its record for download.
//
// A position (deal_position.js) is the view the table would have been sent at that moment, read
// by game.js like any snapshot and drawn by board.js, with every hand face up.

import { h, s } from '../dom.js';
import { t, lang } from '../i18n.js';
import { tileSvg } from '../tiles.js';
import { renderBoard } from '../board.js';
import { parseTile, teamIndexOf } from '../game.js';
import { finishedDeals, positionAt } from '../deal_position.js';
import { modeLabel } from './common.js';
import { initial } from '../text.js';
import { errorText } from '../errors.js';
import { changed, toast } from '../store.js';
import { icon } from '../icons.js';
import { fairMarkFor } from '../fairness.js';
import { analysisPanel } from '../deal_analysis.js';
import { go as goTo } from './practice.js';

const STEP_MS = 1000;
const ROUTE_RE = /^\/replay\/(\d+|file)\/?$/;
export const FILE_PATH = '/replay/file';
/** The replay page of stored set `setId`. */
export const replayPath = (setId) => `/replay/${setId}`;
const FILE = 'file'; // the id of the record opened from disk

// The record opened from disk: kept while the app runs (a reload asks for the file again).
const opened = { name: null, data: null, error: null };

const rp = {
  id: null,
  status: 'idle', // loading | ready | error
  error: null,
  data: null,
  deal: 0, // index into the finished deals
  move: 0, // moves applied: 0 = as dealt, moves.length = the end (with the result)
  playing: false,
  timer: null,
};

export function replayRoute(pathname) {
  const m = ROUTE_RE.exec(pathname);
  if (!m) return null;
  return { name: 'replay', id: m[1] === FILE ? FILE : Number(m[1]) };
}

// --- the page's life -------------------------------------------------------------------------

export function openReplay(id) {
  ensureStyles();
  document.addEventListener('keydown', onKey);
  window.addEventListener('hashchange', onHash);
  if (id === FILE) {
    stop();
    showOpened();
    return;
  }
  if (rp.id === id && rp.status !== 'error') {
    onHash();
    return;
  }
  stop();
  Object.assign(rp, { id, status: 'loading', error: null, data: null, deal: 0, move: 0 });
  load(id);
}

export function closeReplay() {
  stop();
  document.removeEventListener('keydown', onKey);
  window.removeEventListener('hashchange', onHash);
  rp.id = null;
}

async function load(id) {
  try {
    const response = await fetch(`/api/sets/${id}`, { headers: { Accept: 'application/json' } });
    const body = await response.json().catch(() => null);
    if (rp.id !== id) return;
    if (!response.ok) {
      const err = (body && body.error) || {};
      rp.status = 'error';
      rp.error = response.status === 404 ? t('replay.not_found') : errorText(err.code, err.message, err.field);
    } else {
      rp.data = body;
      rp.status = 'ready';
      readHash();
    }
  } catch (err) {
    if (rp.id !== id) return;
    rp.status = 'error';
    rp.error = errorText('network', String(err && err.message ? err.message : err));
  }
  changed();
}

function showOpened() {
  const status = opened.data ? 'ready' : opened.error ? 'error' : 'nofile';
  Object.assign(rp, { id: FILE, status, error: opened.error, data: opened.data, deal: 0, move: 0 });
  if (opened.data) readHash();
}

/** Send a record file to the server to be checked and re-played, then show it at /replay/file. */
async function openRecordFile(file) {
  let text;
  try {
    text = await file.text();
  } catch (err) {
    text = null;
    Object.assign(opened, { name: file.name, data: null, error: errorText('network', String(err)) });
  }
  if (text !== null) {
    try {
      const response = await fetch('/api/records/replay', {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain; charset=utf-8', Accept: 'application/json' },
        body: text,
      });
      const body = await response.json().catch(() => null);
      const err = (!response.ok && body && body.error) || {};
      if (response.ok) Object.assign(opened, { name: file.name, data: body, error: null });
      else if (err.code === 'bad_record') {
        const error = t('replay.bad_record', { name: file.name, line: err.line, column: err.column });
        Object.assign(opened, { name: file.name, data: null, error });
      } else Object.assign(opened, { name: file.name, data: null, error: errorText(err.code, err.message, err.field) });
    } catch (err) {
      Object.assign(opened, { name: file.name, data: null, error: errorText('network', String(err && err.message ? err.message : err)) });
    }
  }
  if (window.location.pathname !== FILE_PATH) goTo(FILE_PATH);
  else {
    window.history.replaceState(window.history.state, '', FILE_PATH);
    showOpened();
    changed();
  }
}

/** The "open a record file" control: a labelled file input. */
function fileControl() {
  return h('label', { class: 'btn btn-small replay-open' },
    t('replay.open_file'),
    h('input', {
      type: 'file',
      class: 'sr-only',
      accept: '.txt,.gaple,text/plain',
      'data-testid': 'replay-open-file',
      onChange: (e) => {
        const file = e.target.files && e.target.files[0];
        e.target.value = '';
        if (file) openRecordFile(file);
      },
    }));
}

function finished() {
  return rp.data ? finishedDeals(rp.data) : [];
}

/** #deal=N&move=M (N the deal's number, M the moves played): clamped to what exists. */
function readHash() {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const deals = finished();
  const wanted = Number.parseInt(params.get('deal'), 10);
  let index = deals.findIndex((d) => d.number === wanted);
  if (index < 0) index = 0;
  rp.deal = index;
  const deal = deals[index];
  const total = deal ? deal.moves.length : 0;
  const move = Number.parseInt(params.get('move'), 10);
  rp.move = Number.isFinite(move) ? Math.min(Math.max(move, 0), total) : 0;
}

function writeHash() {
  const deal = finished()[rp.deal];
  if (!deal) return;
  const hash = `#deal=${deal.number}&move=${rp.move}`;
  if (window.location.hash !== hash) window.history.replaceState(window.history.state, '', hash);
}

function onHash() {
  if (rp.status !== 'ready') return;
  readHash();
  changed();
}

function go(deal, move) {
  const deals = finished();
  if (!deals.length) return;
  rp.deal = Math.min(Math.max(deal, 0), deals.length - 1);
  rp.move = Math.min(Math.max(move, 0), deals[rp.deal].moves.length);
  writeHash();
  changed();
}

function step(by) {
  const deal = finished()[rp.deal];
  if (!deal) return;
  go(rp.deal, rp.move + by);
}

function play() {
  const deal = finished()[rp.deal];
  if (!deal) return;
  if (rp.move >= deal.moves.length) go(rp.deal, 0); // from the end, play starts over
  rp.playing = true;
  clearInterval(rp.timer);
  rp.timer = setInterval(() => {
    const current = finished()[rp.deal];
    if (!current || rp.move >= current.moves.length) {
      stop();
      changed();
      return;
    }
    step(1);
  }, STEP_MS);
  changed();
}

function stop() {
  rp.playing = false;
  clearInterval(rp.timer);
  rp.timer = null;
}

function toggle() {
  if (rp.playing) {
    stop();
    changed();
  } else play();
}

function onKey(e) {
  if (rp.status !== 'ready' || e.altKey || e.ctrlKey || e.metaKey) return;
  const target = e.target;
  if (target && (target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA')) return;
  const deal = finished()[rp.deal];
  if (!deal) return;
  let handled = true;
  if (e.key === 'ArrowRight') step(1);
  else if (e.key === 'ArrowLeft') step(-1);
  else if (e.key === 'Home') go(rp.deal, 0);
  else if (e.key === 'End') go(rp.deal, deal.moves.length);
  else handled = false;
  if (handled) {
    e.preventDefault();
    if (rp.playing && (e.key === 'ArrowLeft' || e.key === 'Home')) stop();
  }
}

function ensureStyles() {
  if (document.querySelector('link[data-replay-css]')) return;
  document.head.append(h('link', { rel: 'stylesheet', href: '/static/css/replay.css', 'data-replay-css': '' }));
}

async function copyLink() {
  try {
    await navigator.clipboard.writeText(window.location.href);
    toast(t('room.copied'), 'ok', 2000);
  } catch {
    toast(t('err.clipboard'), 'error');
  }
}

// --- drawing -----------------------------------------------------------------------------------

function seatName(data, seat) {
  const entry = (data.seats || [])[seat];
  if (entry && entry.name) return entry.name;
  if (entry && entry.bot) return `${t('seat.bot_badge')} ${seat + 1}`;
  return t('seat.n', { n: seat + 1 });
}

export function replayView() {
  const boardEl = h('div', { class: 'board', 'data-testid': 'board', role: 'region', 'aria-label': t('table.line') });
  if (rp.status !== 'ready') {
    let message;
    if (rp.status === 'error') message = h('p', { class: 'replay-error', role: 'alert', 'data-testid': 'replay-error' }, rp.error);
    else if (rp.status === 'nofile') message = h('p', { class: 'muted', role: 'status', 'data-testid': 'replay-nofile' }, t('replay.choose_file'));
    else message = h('p', { class: 'muted', role: 'status' }, t('replay.loading'));
    const node = h('section', { class: 'replay-screen replay-message', 'data-testid': 'replay', 'data-status': rp.status },
      message,
      rp.id === FILE ? h('p', { class: 'replay-share' }, fileControl()) : null);
    return { node, after: () => () => {}, boardEl };
  }
  const data = rp.data;
  const deals = finished();
  if (!deals.length) {
    const node = h('section', { class: 'replay-screen replay-message', 'data-testid': 'replay', 'data-status': 'empty' },
      head(data, null),
      h('p', { class: 'muted', role: 'status', 'data-testid': 'replay-empty' }, t('replay.none_finished')));
    return { node, after: () => () => {}, boardEl };
  }
  const pos = positionAt(data, rp.deal, rp.move);
  const { deal, view } = pos;
  const node = h('section', {
    class: 'replay-screen',
    'data-testid': 'replay',
    'data-status': 'ready',
    'data-deal': deal.number,
    'data-move': rp.move,
    'data-moves': deal.moves.length,
  },
  head(data, deal),
  dealTabs(data, deals),
  scoreStrip(data, view, pos),
  h('div', { class: 'replay-felt' },
    h('div', { class: 'board-wrap replay-board' }, boardEl),
    h('p', { class: 'replay-caption', 'data-testid': 'replay-caption', 'aria-live': 'polite' }, caption(data, pos))),
  pos.done ? resultBlock(data, pos) : null,
  hands(data, pos),
  rp.id === FILE ? null : analysisPanel(data, deal, rp.move, (move) => { stop(); go(rp.deal, move); }),
  // Last, and sticky: on a phone the controls stay at the bottom of the screen, under the thumb.
  controls(deal),
  h('p', { class: 'replay-share' },
    rp.id === FILE
      ? null
      : [h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'replay-copy', 'data-focus': 'replay-copy', onClick: copyLink },
        t('replay.copy')), ' ',
      h('a', {
        class: 'btn btn-small',
        href: `/api/sets/${data.set_id}/record`,
        download: `gaple-set-${data.set_id}.txt`,
        'data-testid': 'replay-download',
      }, t('replay.download'))],
    ' ',
    fileControl()));

  const after = () => {
    const draw = () => renderBoard(boardEl, {
      line: view.line,
      anchor: pos.anchor,
      fresh: null,
      ends: view.ends,
      startIndex: view.startIndex,
      labels: { tile: (a, b) => t('tile.aria', { a, b }), region: t('table.line') },
    });
    draw();
    return draw;
  };
  return { node, after, boardEl };
}

function head(data, deal) {
  const pill = data.preset === 'klasik' ? t('create.preset.klasik') : modeLabel(data.mode);
  return h('header', { class: 'replay-head' },
    h('h1', { class: 'replay-title' }, t('replay.title')),
    h('p', { class: 'replay-sub' },
      h('span', { class: `mode-pill mode-${data.preset === 'klasik' ? 'klasik' : data.mode}` }, pill),
      ' ',
      data.room
        ? h('span', { 'data-testid': 'replay-room' }, t('replay.room_set', { code: data.room.code, n: data.number }))
        : h('span', { 'data-testid': 'replay-file' }, t('replay.file', { name: opened.name || '' })),
      deal && deal.started_at ? h('span', { class: 'muted' }, ` · ${dateText(deal.started_at)}`) : null));
}

function dateText(iso) {
  const locale = lang() === 'id' ? 'id-ID' : 'en-GB';
  return new Date(iso).toLocaleDateString(locale, { day: 'numeric', month: 'short', year: 'numeric' });
}

function dealTabs(data, deals) {
  const inPlay = data.deals.filter((d) => d.status !== 'finished');
  return h('nav', { class: 'replay-deals', 'aria-label': t('replay.deals') },
    deals.map((d, i) => h('button', {
      type: 'button',
      class: `replay-deal-tab${i === rp.deal ? ' current' : ''}`,
      'data-testid': 'replay-deal-tab',
      'data-deal': d.number,
      'data-focus': `replay-deal-${d.number}`,
      'aria-current': i === rp.deal ? 'true' : null,
      onClick: () => { stop(); go(i, 0); },
    }, t('table.deal', { n: d.number }))),
    inPlay.map((d) => h('span', { class: 'replay-deal-tab live', 'data-testid': 'replay-deal-live', 'data-deal': d.number, title: t('replay.in_play') },
      `${t('table.deal', { n: d.number })} · ${t('replay.in_play')}`)));
}

/** The set's totals at this point: before the deal while it is played, after it at the end. */
function scoreStrip(data, view, pos) {
  const items = [];
  if (data.mode === 'ganda') {
    [[0, 2], [1, 3]].forEach((team, i) => {
      items.push(h('li', { class: `score-item team-${i === 0 ? 'A' : 'B'}`, 'data-testid': 'replay-score', 'data-team': i },
        h('span', { class: 'score-name' }, t('room.team', { t: i === 0 ? 'A' : 'B' }),
          h('span', { class: 'score-sub' }, team.map((s) => seatName(data, s)).join(t('and')))),
        h('strong', { class: 'score-value' }, String(view.scores[team[0]] ?? 0))));
    });
  } else {
    for (let i = 0; i < data.players; i += 1) {
      items.push(h('li', { class: 'score-item', 'data-testid': 'replay-score', 'data-seat': i },
        h('span', { class: 'score-name' }, seatName(data, i)),
        h('strong', { class: 'score-value' }, String(view.scores[i] ?? 0))));
    }
  }
  return h('div', { class: 'replay-scores' },
    h('span', { class: 'muted small' }, pos.done ? t('replay.score_after', { n: pos.deal.number }) : t('replay.score_before', { n: pos.deal.number })),
    h('ol', { class: 'scoreboard', 'aria-label': t('table.scores') }, items));
}

function caption(data, pos) {
  const m = pos.last;
  if (!m) {
    const first = pos.next ? seatName(data, pos.next.seat) : '';
    return pos.deal.start ? t('replay.dealt_start', { tile: pos.deal.start, name: first }) : t('replay.dealt', { name: first });
  }
  const name = seatName(data, m.seat);
  let text;
  if (m.end === 'discard') text = t('replay.discarded', { name, tile: m.tile });
  else if (m.end === 'left' || m.end === 'right') text = t('replay.played_end', { name, tile: m.tile, end: t(`end.${m.end}`).toLowerCase() });
  else text = t('replay.played', { name, tile: m.tile });
  if (m.auto) text += ` (${t('auto').toLowerCase()})`;
  if (m.passes.length) text += ` · ${t('replay.passed', { names: m.passes.map((s) => seatName(data, s)).join(t('and')) })}`;
  return text;
}

function controls(deal) {
  const total = deal.moves.length;
  const btn = (testid, label, glyph, onClick, disabled) => h('button', {
    type: 'button',
    class: 'btn replay-btn',
    'data-testid': testid,
    'data-focus': testid,
    'aria-label': label,
    title: label,
    disabled,
    onClick,
  }, glyphSvg(glyph));
  return h('div', { class: 'replay-controls', role: 'group', 'aria-label': t('replay.controls') },
    h('div', { class: 'replay-buttons' },
      btn('replay-first', t('replay.first'), 'first', () => { stop(); go(rp.deal, 0); }, rp.move === 0),
      btn('replay-prev', t('replay.prev'), 'prev', () => { stop(); step(-1); }, rp.move === 0),
      btn('replay-play', rp.playing ? t('replay.pause') : t('replay.play'), rp.playing ? 'pause' : 'play', toggle, total === 0),
      btn('replay-next', t('replay.next'), 'next', () => { stop(); step(1); }, rp.move >= total),
      btn('replay-last', t('replay.last'), 'last', () => { stop(); go(rp.deal, total); }, rp.move >= total)),
    h('label', { class: 'replay-slider' },
      h('span', { class: 'replay-position', 'data-testid': 'replay-position', 'data-move': rp.move }, t('replay.move_of', { m: rp.move, n: total })),
      h('input', {
        type: 'range',
        min: 0,
        max: total,
        step: 1,
        value: String(rp.move),
        'data-testid': 'replay-slider',
        'data-focus': 'replay-slider',
        'aria-label': t('replay.position'),
        onInput: (e) => { stop(); go(rp.deal, Number(e.target.value)); },
      })),
    h('p', { class: 'muted small replay-keys' }, t('replay.keys')));
}

// The transport buttons' glyphs, drawn (a phone's fonts may lack ⏮ ⏭ ⏸).
const GLYPHS = {
  first: 'M4 5h2v14H4z M13 5v14L6 12z M21 5v14l-8-7z',
  prev: 'M15 5v14L6 12z M16 5h2v14h-2z',
  play: 'M7 5v14l12-7z',
  pause: 'M7 5h4v14H7z M13 5h4v14h-4z',
  next: 'M6 5h2v14H6z M9 5v14l9-7z',
  last: 'M3 5v14l8-7z M11 5v14l8-7z M18 5h2v14h-2z',
};

function glyphSvg(name) {
  return s('svg', { class: 'replay-glyph', viewBox: '0 0 24 24', width: 22, height: 22, 'aria-hidden': 'true', focusable: 'false' },
    s('path', { d: GLYPHS[name], fill: 'currentColor' }));
}

function miniTile(tile, extra = '') {
  const [a, b] = parseTile(tile);
  return h('span', {
    class: `replay-tile${extra ? ` ${extra}` : ''}`,
    role: 'listitem',
    'data-testid': 'replay-tile',
    'data-tile': tile,
    'aria-label': t('tile.aria', { a, b }),
  }, tileSvg(a, b, { orientation: 'v', className: 'mini' }));
}

function hands(data, pos) {
  const next = pos.next ? pos.next.seat : null;
  return h('ul', { class: `replay-hands seats-${data.players}`, 'aria-label': t('replay.hands') },
    pos.hands.map((hand, seat) => {
      const team = data.mode === 'ganda' ? (teamIndexOf(seat, pos.view) === 0 ? 'A' : 'B') : null;
      const name = seatName(data, seat);
      return h('li', {
        class: `replay-hand${seat === next ? ' is-turn' : ''}${team ? ` team-${team}` : ''}`,
        'data-testid': 'replay-hand',
        'data-seat': seat,
        'data-turn': String(seat === next),
        'data-tiles': hand.join(' '),
      },
      h('div', { class: 'replay-hand-head' },
        h('span', { class: `avatar seat-color-${seat % 4}`, 'aria-hidden': 'true' }, initial(name)),
        h('span', { class: 'replay-hand-name' }, name),
        seat === next ? h('span', { class: 'badge badge-you replay-turn' }, t('replay.to_move')) : null,
        h('span', { class: 'muted small replay-count' }, hand.length === 1 ? t('replay.tile_one') : t('seat.tiles', { n: hand.length }))),
      h('div', { class: 'replay-hand-tiles', role: 'list', 'aria-label': name },
        hand.length ? hand.map((tile) => miniTile(tile)) : h('span', { class: 'muted small' }, t('result.empty_hand')),
        pos.discards[seat].length
          ? [h('span', { class: 'muted small replay-discard-label' }, t('result.discards')), pos.discards[seat].map((tile) => miniTile(tile, 'discarded'))]
          : null));
    }));
}

const RESULT_KEYS = ['biasa', 'balak', 'ceki', 'ceki_habis', 'ceki_balak', 'ceki_palang', 'kandang', 'domi', 'discard'];

function resultBlock(data, pos) {
  const { deal } = pos;
  const res = deal.result;
  const kind = RESULT_KEYS.includes(res.result) ? res.result : null;
  const klasik = data.preset === 'klasik';
  const penalty = klasik && data.rules && data.rules.scoring === 'penalty';
  // The set's own result, under its last deal.
  const setOver = Boolean(data.result && Array.isArray(data.result.winners)) && deal === finished().at(-1);
  const rows = [];
  for (let i = 0; i < data.players; i += 1) {
    const pts = deal.points[i] || 0;
    rows.push(h('tr', { class: res.winner === i ? 'winner' : '', 'data-testid': 'replay-result-row', 'data-seat': i },
      h('th', { scope: 'row' }, seatName(data, i)),
      h('td', { class: 'num' }, String((klasik && res.counts ? res.counts[i] : res.pips[i]) ?? '')),
      // Penalty scoring adds each seat's own count: a cost, not a gain (as on the table).
      penalty
        ? h('td', { class: 'num pts penalty', 'data-testid': 'replay-points', 'data-seat': i }, String(pts))
        : h('td', { class: `num pts${pts > 0 ? ' plus' : ''}`, 'data-testid': 'replay-points', 'data-seat': i }, pts > 0 ? `+${pts}` : String(pts)),
      h('td', { class: 'num total', 'data-testid': 'replay-total', 'data-seat': i }, String(deal.scores[i] ?? 0))));
  }
  let outcome = null;
  if (res.seat !== null && res.seat !== undefined && res.tile) {
    const key = res.end === 'kandang' ? 'result.locked' : res.result === 'discard' ? 'result.went_out_discard' : 'result.went_out';
    outcome = t(key, { name: seatName(data, res.seat), tile: res.tile });
  }
  return h('section', { class: 'replay-result', 'data-testid': 'replay-result', 'data-result': res.result || '', 'aria-labelledby': 'replay-result-title' },
    h('h2', { id: 'replay-result-title', class: `result-type result-${kind || 'unknown'}` }, kind ? t(`result.${kind}`) : String(res.result || '')),
    outcome ? h('p', { class: 'result-outcome' }, outcome) : null,
    res.winner !== null && res.winner !== undefined ? h('p', { class: 'muted small' }, t('result.winner', { name: seatName(data, res.winner) })) : null,
    setOver ? h('p', { class: 'replay-set-result', 'data-testid': 'replay-set-result' }, icon('trophy'), ' ',
      t(data.mode === 'ganda' ? 'set.team_winner' : 'set.winner', { names: data.result.winners.map((w) => seatName(data, w)).join(t('and')) })) : null,
    h('table', { class: 'result-table replay-result-table' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, t('result.player')),
        h('th', { scope: 'col', class: 'num' }, klasik ? t('result.count') : t('result.pips')),
        h('th', { scope: 'col', class: 'num' }, t('result.points')),
        h('th', { scope: 'col', class: 'num' }, t('result.total')))),
      h('tbody', {}, rows)),
    fairMarkOf(deal));
}

/** ✓ (or ✗) for a fair deal, checked on this device: its secret against the commitment its
 * players were shown, and what the secret deals against every hand as dealt and the result. */
function fairMarkOf(deal) {
  const fair = deal.fairness;
  if (!fair || fair.shuffle !== 'fair') return null;
  const res = deal.result;
  return fairMarkFor({
    commitment: fair.commitment,
    dealing: fair.dealing,
    secret: fair.secret,
    start: deal.start,
    dealtHand: null,
    seat: null,
    dealtHands: deal.hands,
    result: { hands: res.hands, discards: res.discards, setAside: res.set_aside },
  });
}
