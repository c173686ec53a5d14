// The rules page, /aturan (#section anchors): PORDI 2025 and Klasik with its three games, with
// drawings made of the client's own tiles and line layout (tiles.js, board.js). Every number of
// the rules comes from the server's presets (GET /api/presets: defaults, choices, and each
// preset's `rules`); the strings (i18n_rules.js) only explain.

import { h, s } from '../dom.js';
import { t, lang } from '../i18n.js';
import { tileFace, tileSvg, tileBackSvg } from '../tiles.js';
import { bestLayout } from '../board.js';
import { presetEntry, fieldOf, rangeOf } from '../presets.js';
import { nameCard } from './lobby.js';
import { practiceCard, RULES_PATH } from './practice.js';

const ROUTE_RE = /^\/aturan\/?$/;
const PAD = 12;
const MARKER_R = 20;

export function rulesRoute(pathname) {
  return ROUTE_RE.test(pathname) ? { name: 'rules', view: rulesView } : null;
}

// --- small builders ----------------------------------------------------------------------------

/** Text with **bold** parts. */
function rich(text) {
  return text.split(/\*\*(.+?)\*\*/g).map((part, i) => (i % 2 ? h('strong', {}, part) : part));
}

const p = (key, vars) => h('p', {}, rich(t(key, vars)));
const plus = (n) => t('rules.points', { n });
const seconds = (n) => t('seconds', { n });

function heading(level, id, key) {
  return h(level, { id, class: 'rules-heading', tabindex: '-1' },
    t(key),
    // For the eye and the mouse (copy a section's link); the contents give the keyboard the same links.
    h('a', { class: 'rules-anchor', href: `#${id}`, 'aria-hidden': 'true', tabindex: '-1', onClick: (e) => jump(e, id) }, '#'));
}

function section(level, id, key, ...body) {
  return h('section', { class: `rules-section rules-${level}`, 'data-testid': 'rules-section', 'data-section': id, 'aria-labelledby': id },
    heading(level, id, key), ...body);
}

function pointsBadge(n) {
  return h('span', { class: 'rules-points', 'aria-label': t('rules.points.aria', { n }), 'data-testid': 'rules-points' }, plus(n));
}

// --- drawings ------------------------------------------------------------------------------------

/**
 * A line of tiles as board.js lays it out on the felt (`line`: [l, r] from the left end), the
 * tile at index `last` outlined in gold, `ends` optional open-end markers, and a caption.
 */
function lineFigure(kind, line, { last = null, ends = false, caption }) {
  const anchor = Math.floor((line.length - 1) / 2);
  // The box of a phone's card: a short line keeps to one row, a long one snakes as on the felt.
  const lay = bestLayout(line, anchor, 340, line.length <= 5 ? 130 : 300, 1);
  const bbox = { minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity };
  const grow = (x0, y0, x1, y1) => {
    bbox.minX = Math.min(bbox.minX, x0);
    bbox.minY = Math.min(bbox.minY, y0);
    bbox.maxX = Math.max(bbox.maxX, x1);
    bbox.maxY = Math.max(bbox.maxY, y1);
  };
  for (const it of lay.items) grow(it.x - it.w / 2, it.y - it.h / 2, it.x + it.w / 2, it.y + it.h / 2);
  if (ends) for (const e of [lay.ends.left, lay.ends.right]) grow(e.x - MARKER_R, e.y - MARKER_R, e.x + MARKER_R, e.y + MARKER_R);
  const box = [bbox.minX - PAD, bbox.minY - PAD, bbox.maxX - bbox.minX + 2 * PAD, bbox.maxY - bbox.minY + 2 * PAD];
  const tiles = lay.items.slice().sort((a, b) => a.index - b.index).map((it) => {
    const [l, r] = line[it.index];
    return s('g', {
      class: `line-tile${it.index === last ? ' rules-last' : ''}`,
      'data-testid': 'rules-tile',
      'data-tile': `${l}-${r}`,
      'data-last': it.index === last ? 'true' : null,
      transform: `translate(${it.x} ${it.y}) rotate(${it.rot})`,
    }, tileFace(it.top, it.bottom));
  });
  const markers = ends ? ['left', 'right'].map((side) => {
    const e = lay.ends[side];
    const value = side === 'left' ? line[0][0] : line[line.length - 1][1];
    return s('g', { class: `end-marker end-${side}`, 'data-testid': 'rules-end', 'data-value': value, transform: `translate(${e.x} ${e.y})` },
      s('circle', { r: MARKER_R - 2 }),
      s('text', { 'text-anchor': 'middle', 'dominant-baseline': 'central', y: 1 }, String(value)));
  }) : [];
  const svg = s('svg', {
    class: 'rules-svg',
    viewBox: box.join(' '),
    role: 'img',
    'aria-label': t('rules.drawing.tiles', { list: line.map((x) => x.join('-')).join(', ') }),
    style: { '--w': `${Math.round(box[2] * lay.scale)}px` },
  }, tiles, markers);
  return figure(kind, svg, caption, last === null ? null : t('rules.last_tile', { tile: line[last].join('-') }));
}

function figure(kind, drawing, caption, note = null) {
  return h('figure', { class: 'rules-figure', 'data-testid': 'rules-drawing', 'data-kind': kind },
    h('div', { class: 'rules-felt' }, drawing),
    h('figcaption', {}, caption, note ? h('span', { class: 'rules-note' }, ` — ${note}`) : null));
}

function tileRow(kind, tiles, caption) {
  const row = h('div', { class: 'rules-tiles', role: 'img', 'aria-label': t('rules.drawing.tiles', { list: tiles.map((x) => x.join('-')).join(', ') }) },
    tiles.map(([a, b]) => h('span', { class: 'rules-tile', 'data-testid': 'rules-tile', 'data-tile': `${a}-${b}` }, tileSvg(a, b))));
  return figure(kind, row, caption);
}

function backsRow(kind, count, caption, faceUp = null) {
  const named = [faceUp ? faceUp.join('-') : null, t('rules.drawing.backs', { n: count })].filter(Boolean).join(', ');
  const row = h('div', { class: 'rules-tiles', role: 'img', 'aria-label': t('rules.drawing.tiles', { list: named }) },
    faceUp ? h('span', { class: 'rules-tile rules-start', 'data-testid': 'rules-tile', 'data-tile': faceUp.join('-') }, tileSvg(faceUp[0], faceUp[1])) : null,
    Array.from({ length: count }, () => h('span', { class: 'rules-tile', 'data-testid': 'rules-tile', 'data-tile': 'back' }, tileBackSvg())));
  return figure(kind, row, caption);
}

// The example lines: the tile that ends the deal is the last of each (a real position each time:
// the ends before it, and for Palang and Kandang every tile of the number on the board).
export const LINES = {
  place: [[3, 4], [4, 4], [4, 6], [6, 5]],
  biasa: [[1, 3], [3, 3], [3, 5], [5, 2]],
  balak: [[4, 3], [3, 5], [5, 1], [1, 1]],
  ceki: [[3, 4], [4, 6], [6, 5], [5, 3]],
  ceki_habis: [[2, 6], [6, 6], [6, 4], [4, 2]],
  ceki_one: [[1, 0], [0, 0], [0, 6], [6, 1]],
  ceki_balak: [[4, 1], [1, 6], [6, 4], [4, 4]],
  ceki_palang: [[5, 0], [0, 2], [2, 5], [5, 1], [1, 3], [3, 5], [5, 4], [4, 6], [6, 5], [5, 5]],
  kandang: [[2, 0], [0, 4], [4, 2], [2, 2], [2, 1], [1, 5], [5, 2], [2, 6], [6, 3], [3, 2]],
};
const lastOf = (line) => line.length - 1;

// --- the sections ------------------------------------------------------------------------------

function pordiSections(entry) {
  const rules = entry.rules;
  const table = rules.tables[0];
  const total = table.players * table.hand_size + table.set_aside + (table.face_up_start ? 1 : 0);
  const balak = Array.from({ length: 7 }, (_, n) => [n, n]);
  const timer = fieldOf('pordi', 'turn_seconds');
  const [dealsMin, dealsMax] = rangeOf('pordi', 'deals_per_set');
  const [targetMin, targetMax] = rangeOf('pordi', 'target_points');
  const pts = rules.domi_points;
  const kt = rules.kandang.tunggal;
  const kg = rules.kandang.ganda;
  const kind = (key, name, text, line) => h('li', { class: 'rules-kind', 'data-testid': 'rules-ceki', 'data-kind': key },
    h('h4', { class: 'rules-kind-name' }, name, ' ', pointsBadge(typeof pts[key] === 'number' ? pts[key] : null)),
    h('p', {}, rich(text)),
    lineFigure(key, line, { last: lastOf(line), caption: name }));
  const one = rules.ceki_one_used_up_points;
  return section('h2', 'pordi', 'rules.pordi.title',
    p('rules.pordi.intro', { players: table.players }),
    section('h3', 'kartu', 'rules.tiles.title',
      p('rules.tiles.text', { total }),
      tileRow('balak-set', balak, t('rules.tiles.figure'))),
    section('h3', 'bagi', 'rules.deal.title',
      p('rules.deal.text', { hand: table.hand_size }),
      p('rules.deal.redeal', { n: rules.redeal_min_balak })),
    section('h3', 'buka', 'rules.open.title',
      p('rules.open.text', { tile: table.first_opening_tile })),
    section('h3', 'menaruh', 'rules.place.title',
      p('rules.place.text'),
      lineFigure('place', LINES.place, { ends: true, caption: t('rules.place.figure') }),
      p('rules.place.both'),
      p('rules.place.timer', { choices: timer.choices.map(seconds).join(' / '), n: seconds(timer.default) })),
    section('h3', 'pas', 'rules.pass.title', p('rules.pass.text')),
    section('h3', 'domi', 'rules.domi.title',
      p('rules.domi.text'),
      lineFigure('biasa', LINES.biasa, { last: lastOf(LINES.biasa), caption: `${t('rules.domi.figure')} (${plus(pts.biasa)})` })),
    section('h3', 'ceki', 'rules.ceki.title',
      p('rules.ceki.used_up'),
      h('ul', { class: 'rules-kinds' },
        kind('balak', t('result.balak'), t('rules.ceki.balak'), LINES.balak),
        kind('ceki', t('result.ceki'), t('rules.ceki.ceki'), LINES.ceki),
        kind('ceki_habis', t('result.ceki_habis'), t('rules.ceki.ceki_habis'), LINES.ceki_habis),
        h('li', { class: 'rules-kind', 'data-testid': 'rules-ceki', 'data-kind': 'ceki_one' },
          h('h4', { class: 'rules-kind-name' }, t('rules.ceki.one.name'), ' ', pointsBadge(one.dead), ' / ', pointsBadge(one.live)),
          h('p', {}, rich(t('rules.ceki.one', { dead: one.dead, live: one.live }))),
          lineFigure('ceki_one', LINES.ceki_one, { last: lastOf(LINES.ceki_one), caption: t('rules.ceki.one.name') })),
        kind('ceki_balak', t('result.ceki_balak'), t('rules.ceki.ceki_balak'), LINES.ceki_balak),
        kind('ceki_palang', t('result.ceki_palang'), t('rules.ceki.ceki_palang'), LINES.ceki_palang)),
      p('rules.ceki.note')),
    section('h3', 'kandang', 'rules.kandang.title',
      p('rules.kandang.text'),
      lineFigure('kandang', LINES.kandang, { last: lastOf(LINES.kandang), ends: true, caption: t('rules.kandang.figure') }),
      p('rules.kandang.compare'),
      kandangTable('tunggal', [
        t('rules.kandang.t.lower', { n: kt.locker_lower }),
        t('rules.kandang.t.tie', { n: kt.tie_opponent, locker: kt.tie_locker }),
        t('rules.kandang.t.higher', { list: kt.locker_higher.map(plus).join(', ') }),
      ]),
      kandangTable('ganda', [
        t('rules.kandang.g.lower', { n: kg.locker_lower }),
        t('rules.kandang.g.tie', { n: kg.tie_opponent }),
        t('rules.kandang.g.higher', { n: kg.locker_higher[0] }),
      ])),
    section('h3', 'poin', 'rules.score.title',
      p('rules.score.text'),
      h('table', { class: 'rules-table', 'data-testid': 'rules-points-table' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('rules.score.result')), h('th', { scope: 'col' }, t('rules.score.points')))),
        h('tbody', {}, Object.keys(pts).map((key) => h('tr', { 'data-result': key },
          h('th', { scope: 'row' }, t(`result.${key}`)),
          h('td', {}, plus(pts[key])))),
        h('tr', { 'data-result': 'ceki_one' },
          h('th', { scope: 'row' }, t('rules.ceki.one.name')),
          h('td', {}, `${plus(one.dead)} / ${plus(one.live)}`)))),
      p('rules.score.winner')),
    section('h3', 'set', 'rules.set.title',
      p('rules.set.tunggal', { n: entry.defaults.deals_per_set, min: dealsMin, max: dealsMax }),
      p('rules.set.ganda', { n: entry.defaults.target_points, min: targetMin, max: targetMax }),
      p('rules.set.next', { tile: table.first_opening_tile })));
}

function kandangTable(mode, cells) {
  const rows = ['lower', 'tie', 'higher'];
  return h('table', { class: 'rules-table', 'data-testid': 'rules-kandang-table', 'data-mode': mode },
    h('caption', {}, t(`mode.${mode}`)),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('rules.kandang.case')), h('th', { scope: 'col' }, t('rules.score.points')))),
    h('tbody', {}, rows.map((row, i) => h('tr', {}, h('th', { scope: 'row' }, t(`rules.kandang.${row}`)), h('td', {}, cells[i])))));
}

const GAME_IDS = { discard: 'gaple-klasik', pass: 'block-domino', draw: 'draw-domino' };

function klasikSections(entry) {
  const rules = entry.rules;
  const tables = rules.tables;
  const open = tables.find((x) => x.face_up_start) || tables[0];
  const seven = tables.find((x) => x.seven_tiles);
  const stuck = fieldOf('klasik', 'stuck');
  const [targetMin, targetMax] = rangeOf('klasik', 'target_points');
  const target = entry.defaults.target_points;
  const players = fieldOf('klasik', 'players');
  const gameName = (kind) => {
    const served = stuck.names && stuck.names[kind];
    const local = t(`stuck.${kind}`);
    return served && served !== local ? `${local} (${served})` : local;
  };
  const game = (kind) => h('li', { class: 'rules-game', 'data-testid': 'rules-game', 'data-stuck': kind },
    h('h4', { id: GAME_IDS[kind] || `stuck-${kind}`, class: 'rules-kind-name', tabindex: '-1' }, gameName(kind),
      kind === stuck.default ? h('span', { class: 'rules-default' }, ` (${t('rules.default')})`) : null),
    h('p', {}, rich(t(`rules.stuck.${kind}`, { n: target, hand: seven ? seven.hand_size : '' }))),
    kind === 'draw' ? backsRow('boneyard', open.set_aside, t('rules.stuck.figure', { n: open.set_aside })) : null);
  return section('h2', 'klasik', 'rules.klasik.title',
    p('rules.klasik.intro', { n: target }),
    section('h3', 'meja-klasik', 'rules.klasik.tables.title',
      h('ul', { class: 'rules-list' }, tables.map((x) => h('li', { 'data-testid': 'rules-klasik-table', 'data-hand': x.hand_size },
        rich(x.face_up_start
          ? t('rules.klasik.table.open', { players: x.players, hand: x.hand_size, aside: x.set_aside })
          : t('rules.klasik.table.seven', { players: x.players, hand: x.hand_size, tile: x.first_opening_tile }))))),
      p('rules.klasik.first'),
      backsRow('klasik-start', open.set_aside, t('rules.klasik.figure'), [2, 5])),
    section('h3', 'stuck', 'rules.stuck.title',
      p('rules.stuck.intro'),
      h('ul', { class: 'rules-games' }, stuck.choices.map(game))),
    section('h3', 'hitungan', 'rules.klasik.end.title', p('rules.klasik.end.text')),
    section('h3', 'poin-klasik', 'rules.klasik.score.title',
      p('rules.klasik.score.difference', { n: target, min: targetMin, max: targetMax }),
      p('rules.klasik.score.penalty', { n: entry.defaults.deals_per_set })),
    section('h3', 'pilihan', 'rules.klasik.options.title',
      h('ul', { class: 'rules-list' },
        h('li', {}, t('rules.klasik.options.players', { choices: players.choices.join(' / '), n: players.default })),
        seven ? h('li', {}, t('rules.klasik.options.seven', { hand: seven.hand_size, players: seven.players })) : null,
        h('li', {}, t('rules.klasik.options.zero', { n: rules.zero_zero_points })),
        h('li', {}, t('rules.klasik.options.redeal', { n: rules.redeal_min_balak })),
        h('li', {}, t('rules.klasik.options.timer')))));
}

const TOC = [
  ['pordi', 'rules.pordi.title', [['kartu', 'rules.tiles.title'], ['bagi', 'rules.deal.title'], ['buka', 'rules.open.title'],
    ['menaruh', 'rules.place.title'], ['pas', 'rules.pass.title'], ['domi', 'rules.domi.title'], ['ceki', 'rules.ceki.title'],
    ['kandang', 'rules.kandang.title'], ['poin', 'rules.score.title'], ['set', 'rules.set.title']]],
  ['klasik', 'rules.klasik.title', [['meja-klasik', 'rules.klasik.tables.title'], ['stuck', 'rules.stuck.title'],
    ['gaple-klasik', 'stuck.discard'], ['block-domino', 'stuck.pass'], ['draw-domino', 'stuck.draw'],
    ['hitungan', 'rules.klasik.end.title'], ['poin-klasik', 'rules.klasik.score.title'], ['pilihan', 'rules.klasik.options.title']]],
  ['latihan', 'practice.title', []],
];

function toc() {
  const link = (id, key) => h('a', { href: `#${id}`, 'data-testid': 'rules-toc-link', onClick: (e) => jump(e, id) }, t(key));
  return h('nav', { class: 'card rules-toc', 'aria-labelledby': 'rules-toc-title', 'data-testid': 'rules-toc' },
    h('h2', { id: 'rules-toc-title' }, t('rules.toc')),
    h('ol', {}, TOC.map(([id, key, subs]) => h('li', {}, link(id, key),
      subs.length ? h('ol', {}, subs.map(([sub, subKey]) => h('li', {}, link(sub, subKey)))) : null))));
}

// --- anchors -------------------------------------------------------------------------------------

let shownRoute = null;
let pendingAnchor = null;

function scrollToId(id) {
  const el = id && document.getElementById(id);
  if (!el) return false;
  el.scrollIntoView({ block: 'start' });
  el.focus({ preventScroll: true });
  return true;
}

/** An in-page link: the address shows the anchor; no route change, no popstate. */
function jump(e, id) {
  if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  window.history.pushState({}, '', `${RULES_PATH}#${id}`);
  scrollToId(id);
}

function hashId() {
  try {
    return decodeURIComponent(window.location.hash.slice(1));
  } catch {
    return '';
  }
}

// --- the page ------------------------------------------------------------------------------------

/** The rules page (main.js renders a route's `view`). */
export function rulesView(state, act) {
  if (state.route !== shownRoute) {
    // A new visit (a link, back/forward): go to its #anchor once the page is drawn.
    shownRoute = state.route;
    pendingAnchor = hashId() || null;
  }
  const pordi = presetEntry('pordi');
  const klasik = presetEntry('klasik');
  const ready = state.presets === 'ready' && pordi && pordi.rules && klasik && klasik.rules;
  if (ready && pendingAnchor) {
    const id = pendingAnchor;
    pendingAnchor = null;
    setTimeout(() => scrollToId(id), 0);
  }
  let body;
  if (ready) {
    body = [
      h('div', { class: 'card rules-card' }, pordiSections(pordi)),
      h('div', { class: 'card rules-card' }, klasikSections(klasik)),
      h('section', { class: 'rules-practice', 'aria-labelledby': 'latihan', 'data-testid': 'rules-section', 'data-section': 'latihan' },
        h('h2', { id: 'latihan', class: 'rules-heading rules-on-dark', tabindex: '-1' }, t('practice.title')),
        nameCard(state, act, { compact: true }),
        practiceCard(state, act, { choose: true })),
    ];
  } else {
    body = h('div', { class: 'card' },
      h('p', { class: 'muted', role: state.presets === 'error' ? 'alert' : 'status' },
        state.presets === 'error' ? t('rules.error') : t('rules.loading')),
      state.presets === 'error'
        ? h('button', { type: 'button', class: 'btn', 'data-focus': 'rules-retry', onClick: act.loadPresets }, t('conn.retry'))
        : null);
  }
  return h('article', {
    class: 'rules-page',
    'data-testid': 'rules',
    'data-lang': lang(),
    'data-status': ready ? 'ready' : state.presets,
    'aria-labelledby': 'rules-title',
  },
  h('h1', { id: 'rules-title' }, t('rules.title')),
  h('p', { class: 'rules-intro' }, rich(t('rules.intro'))),
  ready ? toc() : null,
  body);
}
