// The set's score sheet: one row per finished deal (its number, how it ended as the engine names
// it, and who went out or locked the board), one column per player (Tunggal, Klasik) or per team
// (Ganda), each cell what that deal scored, and the totals. It opens over the felt from the
// table's info bar at any time (the hand stays below it, playable) and is part of the set's
// result. Also the set's standings: every player or team ranked, with your own place.
//
// Everything comes from the snapshot's `deals` and `scores` (docs/PROTOCOL.md): finished deals
// only, no tile.

import { h } from '../dom.js';
import { t, has } from '../i18n.js';
import { changed } from '../store.js';
import { seatLabel } from '../seats.js';
import { sides, standings, standingOf } from '../standings.js';
import { icon } from '../icons.js';
import { teamIndexOf } from '../game.js';

// Which table's sheet is open over the felt: "code:set" (a new set, or another room, starts closed).
let openFor = null;

const keyOf = (ctx) => `${ctx.room.code}:${ctx.game.set}`;

export function sheetIsOpen(ctx) {
  return openFor === keyOf(ctx);
}

function setOpen(ctx, open) {
  openFor = open ? keyOf(ctx) : null;
  changed();
  // After the redraw: into the sheet (Escape closes it), or back to the button that opened it.
  const target = open ? 'scoresheet-close' : 'scoresheet-button';
  requestAnimationFrame(() => {
    const el = document.querySelector(`[data-testid="${target}"]`);
    if (el) el.focus();
  });
}

/** The info bar's button (it never covers the hand). */
export function sheetButton(ctx) {
  const open = sheetIsOpen(ctx);
  return h('button', {
    type: 'button',
    class: `btn btn-small sheet-button${open ? ' active' : ''}`,
    'data-testid': 'scoresheet-button',
    'data-focus': 'scoresheet-button',
    'aria-expanded': String(open),
    'aria-controls': 'scoresheet-panel',
    title: t('sheet.open.aria'),
    onClick: () => setOpen(ctx, !open),
  }, icon('star'), ` ${t('sheet.open')}`);
}

/** The sheet over the felt while it is open (null otherwise, and under a result panel). */
export function sheetOverlay(ctx) {
  if (!sheetIsOpen(ctx)) return null;
  return h('section', {
    id: 'scoresheet-panel',
    class: 'sheet-panel',
    role: 'dialog',
    'aria-modal': 'false',
    'aria-labelledby': 'scoresheet-title',
    'data-testid': 'scoresheet-panel',
    onKeydown: (e) => { if (e.key === 'Escape') setOpen(ctx, false); },
  },
  h('header', { class: 'sheet-head' },
    h('h2', { id: 'scoresheet-title' }, t('sheet.title')),
    h('button', {
      type: 'button',
      class: 'btn btn-ghost btn-small',
      'data-testid': 'scoresheet-close',
      'data-focus': 'scoresheet-close',
      onClick: () => setOpen(ctx, false),
    }, t('sheet.close'))),
  scoreSheet(ctx));
}

function resultLabel(kind) {
  return kind && has(`result.${kind}`) ? t(`result.${kind}`) : String(kind || '');
}

function sideLabel(ctx, seats) {
  const names = seats.map((s) => seatLabel(ctx.room, s)).join(t('and'));
  if (seats.length < 2) return names;
  return `${t('room.team', { t: teamIndexOf(seats[0], ctx.view) === 0 ? 'A' : 'B' })} · ${names}`;
}

function cellText(ctx, points, team) {
  // Penalty scoring: each seat's own count, a cost (no "+").
  if (ctx.view.preset === 'klasik' && ctx.view.scoring === 'penalty') return String(points);
  if (points <= 0) return '·';
  return team ? t('sheet.team_points', { n: points }) : `+${points}`;
}

/** The sheet itself: a table, or a line saying no deal has finished yet. */
export function scoreSheet(ctx) {
  const { view, room } = ctx;
  const columns = sides(view);
  const team = columns.some((seats) => seats.length > 1);
  const mine = (seats) => ctx.me !== null && seats.includes(ctx.me);
  const rows = (view.deals || []).map((d) => {
    const who = d.seat === null ? null : seatLabel(room, d.seat);
    return h('tr', { 'data-testid': 'sheet-row', 'data-deal': d.deal, 'data-result': d.result || '' },
      h('th', { scope: 'row', class: 'num sheet-deal' }, String(d.deal)),
      h('td', {}, h('div', { class: 'sheet-kind' },
        h('span', { class: `sheet-result result-${d.result || 'unknown'}`, 'data-testid': 'sheet-result' }, resultLabel(d.result)),
        who ? h('span', { class: 'sheet-who muted small' }, who) : null)),
      columns.map((seats, c) => {
        const pts = d.points[seats[0]] ?? 0;
        const won = d.winner !== null && seats.includes(d.winner);
        return h('td', {
          class: `num sheet-cell${pts > 0 ? ' plus' : ''}${won ? ' won' : ''}${mine(seats) ? ' mine' : ''}`,
          'data-testid': 'sheet-cell',
          'data-col': c,
          'data-points': pts,
        }, cellText(ctx, pts, team));
      }));
  });
  const note = team ? t('sheet.team_note')
    : view.preset === 'klasik' && view.scoring === 'penalty' ? t('sheet.penalty_note') : null;
  return h('div', { class: 'sheet-wrap', 'data-testid': 'scoresheet', 'data-deals': rows.length },
    h('table', { class: 'sheet-table' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col', class: 'num' }, t('sheet.deal')),
        h('th', { scope: 'col' }, t('sheet.result')),
        columns.map((seats, c) => h('th', {
          scope: 'col',
          class: `num sheet-side${mine(seats) ? ' mine' : ''}`,
          'data-testid': 'sheet-side',
          'data-col': c,
          'data-seats': seats.join(','),
        }, sideLabel(ctx, seats))))),
      h('tbody', {}, rows.length ? rows : h('tr', {},
        h('td', { class: 'muted sheet-empty', colspan: String(columns.length + 2), 'data-testid': 'sheet-empty' }, t('sheet.empty')))),
      h('tfoot', {}, h('tr', {},
        h('th', { scope: 'row', colspan: '2' }, t('sheet.total')),
        columns.map((seats, c) => h('td', {
          class: `num sheet-total${mine(seats) ? ' mine' : ''}`,
          'data-testid': 'sheet-total',
          'data-col': c,
        }, String(view.scores[seats[0]] ?? 0)))))),
    note ? h('p', { class: 'muted small sheet-note', 'data-testid': 'sheet-note' }, note) : null);
}

/** After the set: your own standing ("You won!", "You placed 2nd") and everyone's, best first. */
export function standingsBlock(ctx) {
  const { view, room } = ctx;
  const list = standings(view);
  const own = standingOf(list, ctx.me);
  const team = list.some((entry) => entry.seats.length > 1);
  let line = null;
  if (own) {
    const place = has(`ordinal.${own.place}`) ? t(`ordinal.${own.place}`) : String(own.place);
    const text = own.winner ? t('standing.won') : t('standing.place', { place });
    line = h('p', {
      class: `standing-mine${own.winner ? ' won' : ''}`,
      'data-testid': 'standing-mine',
      'data-place': own.place,
      'data-won': String(own.winner),
    }, text, own.tied && !own.winner ? ` ${t('standing.tied')}` : null);
  }
  return h('div', { class: 'standings' },
    line,
    h('ol', { class: 'standing-list', 'aria-label': t('standing.title'), 'data-testid': 'standings' },
      list.map((entry) => h('li', {
        class: `standing${entry.winner ? ' winner' : ''}${own === entry ? ' mine' : ''}`,
        'data-testid': 'standing',
        'data-place': entry.place,
        'data-seats': entry.seats.join(','),
      },
      h('span', { class: 'standing-place' }, String(entry.place)),
      h('span', { class: 'standing-name' }, team ? sideLabel(ctx, entry.seats) : seatLabel(room, entry.seats[0])),
      h('strong', { class: 'standing-total' }, t('standing.points', { n: entry.total }))))));
}
