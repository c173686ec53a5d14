// After a deal: how it ended, every hand revealed, the points; after the set: who won.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { tileSvg } from '../tiles.js';
import { nextDealMs, parseTile, teamIndexOf } from '../game.js';
import { seatLabel } from '../seats.js';
import { icon } from '../icons.js';
import { enter } from '../anim.js';
import { ratingChanges } from './setratings.js';
import { scoreSheet, standingsBlock } from './scoresheet.js';
import { fairMark } from '../fairness.js';
import { againBlock } from './quick.js';
import { tournamentLink } from './common.js';

const RESULT_KEYS = ['biasa', 'balak', 'ceki', 'ceki_habis', 'ceki_balak', 'ceki_palang', 'kandang', 'domi', 'discard'];

function miniTiles(list, { testid = 'revealed-tile', extra = '' } = {}) {
  return list.map((tile) => {
    const [a, b] = parseTile(tile);
    return h('span', {
      class: `revealed-tile${extra ? ` ${extra}` : ''}`,
      role: 'listitem',
      'data-testid': testid,
      'data-tile': tile,
      'aria-label': t('tile.aria', { a, b }),
    }, tileSvg(a, b, { orientation: 'v', className: 'mini' }));
  });
}

export function resultPanel(ctx) {
  const { view, room } = ctx;
  const res = view.lastResult;
  const setOver = view.phase === 'set_over';
  const kind = RESULT_KEYS.includes(res && res.result) ? res.result : null;
  const dealNo = (res && res.dealNumber) || view.dealNumber;
  const klasik = view.preset === 'klasik';

  const head = res ? h('header', { class: 'result-head' },
    h('p', { class: 'result-deal muted small' }, t('result.title', { n: dealNo })),
    h('h2', { class: `result-type result-${kind || 'unknown'}`, 'data-testid': 'result-type', 'data-result': res.result || '' },
      kind ? t(`result.${kind}`) : String(res.result || '')),
    kind ? h('p', { class: 'result-desc' }, t(klasik && kind === 'kandang' ? 'result.desc.klasik_kandang' : `result.desc.${kind}`)) : null,
    outcomeLine(res, room)) : null;

  const table = res ? resultTable(res, ctx) : null;
  const aside = res && klasik && res.setAside && res.setAside.length
    ? h('div', { class: 'set-aside-reveal' },
      h('span', { class: 'muted small' }, t('result.set_aside')),
      h('div', { class: 'revealed-hand set-aside-tiles', 'data-testid': 'set-aside-tiles', role: 'list' }, miniTiles(res.setAside)))
    : null;

  const setBlock = setOver && view.setResult ? setResultBlock(view, ctx) : null;

  const key = `${ctx.game.set}:${dealNo}:${view.phase}`;
  const fade = enter(`backdrop:${key}`, 'anim-fade', 200);
  const rise = enter(`panel:${key}`, 'anim-rise', 250);
  return h('div', { class: `result-backdrop ${fade.class}`, style: fade.style },
    h('section', {
      class: `result-panel${setOver ? ' set-over' : ''} ${rise.class}`,
      style: rise.style,
      role: 'dialog',
      'aria-modal': 'false',
      'aria-labelledby': 'result-heading',
      'data-testid': 'result-panel',
      'data-kind': setOver ? 'set' : 'deal',
      'data-result': res ? res.result || '' : '',
      onKeydown: (e) => { if (e.key === 'Escape') ctx.act.hideResult(); },
    },
    h('h2', { id: 'result-heading', class: 'sr-only' }, setOver ? t('set.title') : t('result.title', { n: dealNo })),
    setBlock,
    head,
    table,
    aside,
    fairMark(view),
    h('footer', { class: 'result-foot' },
      !setOver ? nextDealLine(ctx.game) : null,
      h('button', {
        type: 'button',
        class: 'btn btn-ghost btn-small',
        'data-testid': 'result-close',
        'data-focus': 'result-close',
        onClick: ctx.act.hideResult,
      }, t('result.close')))));
}

/** "Next deal in 3…": the server's next_deal time, counted down by main.js's tick. */
export function nextDealText(ms) {
  return ms === null ? t('result.next_deal') : t('result.next_deal_in', { n: Math.ceil(ms / 1000) });
}

function nextDealLine(game) {
  return h('p', { class: 'muted small', 'data-testid': 'next-deal', 'data-next-deal': '' },
    nextDealText(nextDealMs(game, performance.now())));
}

function outcomeLine(res, room) {
  if (res.seat === null || !res.tile) {
    return res.winner !== null ? h('p', { class: 'result-outcome' }, t('result.winner', { name: seatLabel(room, res.winner) })) : null;
  }
  let key = res.end === 'kandang' ? 'result.locked' : 'result.went_out';
  if (res.result === 'discard') key = 'result.went_out_discard';
  return h('p', { class: 'result-outcome' },
    t(key, { name: seatLabel(room, res.seat), tile: res.tile }),
    (res.end === 'kandang' || res.counts) && res.winner !== null && res.winner !== res.seat
      ? ` — ${t('result.winner', { name: seatLabel(room, res.winner) })}` : null);
}

function resultTable(res, ctx) {
  const { view, room } = ctx;
  const klasik = view.preset === 'klasik';
  // Only Gaple Klasik lays tiles face down; Block and Draw Domino have no discards to show.
  const discarding = klasik && view.stuck === 'discard';
  const rows = [];
  for (let i = 0; i < ctx.n; i += 1) {
    const hand = res.hands ? res.hands[i] || [] : null;
    const discards = discarding && res.discards ? res.discards[i] || [] : null;
    const pts = res.points[i] || 0;
    const team = view.mode === 'ganda' ? (teamIndexOf(i, view) === 0 ? 'A' : 'B') : null;
    rows.push(h('tr', { class: `${res.winner === i ? 'winner' : ''}${i === ctx.me ? ' mine' : ''}`, 'data-testid': 'result-row', 'data-seat': i },
      h('th', { scope: 'row', class: 'result-name' },
        seatLabel(room, i),
        team ? h('span', { class: `team-tag team-${team}` }, team) : null),
      h('td', { class: 'result-hand' },
        hand === null ? null : h('div', {
          class: 'revealed-hand',
          'data-testid': 'revealed-hand',
          'data-seat': i,
          role: 'list',
        }, hand.length
          ? hand.map((tile) => {
            const [a, b] = parseTile(tile);
            return h('span', {
              class: 'revealed-tile',
              role: 'listitem',
              'data-testid': 'revealed-tile',
              'data-tile': tile,
              'aria-label': t('tile.aria', { a, b }),
            }, tileSvg(a, b, { orientation: 'v', className: 'mini' }));
          })
          : h('span', { class: 'muted small' }, t('result.empty_hand')))),
      discarding ? h('td', { class: 'result-discards' },
        discards === null ? null : h('div', {
          class: 'revealed-hand revealed-discards',
          'data-testid': 'revealed-discards',
          'data-seat': i,
          role: 'list',
        }, discards.length ? miniTiles(discards, { extra: 'discarded' }) : h('span', { class: 'muted small' }, '—')))
        : null,
      klasik
        ? h('td', { class: 'num', 'data-testid': 'result-count', 'data-seat': i }, String(res.counts ? res.counts[i] ?? '' : res.pips[i] ?? ''))
        : h('td', { class: 'num', 'data-testid': 'result-pips', 'data-seat': i }, String(res.pips[i] ?? '')),
      // Penalty scoring adds each seat's own count: a cost, not a gain.
      klasik && view.scoring === 'penalty'
        ? h('td', { class: 'num pts penalty', 'data-testid': 'result-points', 'data-seat': i }, String(pts))
        // Ganda: the points are the team's, also for the partner who did not go out.
        : h('td', { class: `num pts${pts > 0 ? ' plus' : ''}`, 'data-testid': 'result-points', 'data-seat': i },
          pts > 0 ? (team ? t('sheet.team_points', { n: pts }) : `+${pts}`) : String(pts)),
      h('td', { class: 'num total', 'data-testid': 'result-total', 'data-seat': i }, String(view.scores[i] ?? 0))));
  }
  return h('div', { class: 'result-table-wrap' },
    klasik ? h('p', { class: 'muted small result-scoring', 'data-testid': 'result-scoring', 'data-scoring': view.scoring },
      t(`klasik.scoring.${view.scoring === 'penalty' ? 'penalty' : 'difference'}.explain`)) : null,
    h('table', { class: 'result-table' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, t('result.player')),
        h('th', { scope: 'col' }, t('result.hand')),
        discarding ? h('th', { scope: 'col' }, t('result.discards')) : null,
        h('th', { scope: 'col', class: 'num' }, klasik ? t('result.count') : t('result.pips')),
        h('th', { scope: 'col', class: 'num' }, t('result.points')),
        h('th', { scope: 'col', class: 'num' }, t('result.total')))),
      h('tbody', {}, rows)));
}

function setResultBlock(view, ctx) {
  const { room } = ctx;
  const sr = view.setResult;
  const names = sr.winners.map((s) => seatLabel(room, s)).join(t('and'));
  const text = view.mode === 'ganda' ? t('set.team_winner', { names }) : t('set.winner', { names });
  return h('div', { class: 'set-result', 'data-testid': 'set-result', 'data-winners': sr.winners.join(',') },
    h('p', { class: 'set-title' }, icon('trophy'), ' ', t('set.title')),
    h('p', { class: 'set-winner' }, text),
    standingsBlock(ctx),
    sr.deals ? h('p', { class: 'muted small' }, t('set.deals', { n: sr.deals })) : null,
    ratingChanges(ctx),
    scoreSheet(ctx),
    view.preset === 'klasik' ? h('ol', { class: 'set-totals', 'data-testid': 'set-totals' },
      (sr.scores.length ? sr.scores : view.scores).map((score, i) => h('li', {
        class: sr.winners.includes(i) ? 'winner' : '',
        'data-testid': 'set-total',
        'data-seat': i,
      }, `${seatLabel(room, i)}: `, h('strong', {}, String(score))))) : null,
    view.preset === 'klasik' && view.scoring === 'penalty' ? h('p', { class: 'muted small' }, t('klasik.scoring.penalty.short')) : null,
    nextBlock(ctx));
}

/** What comes after the set: at a tournament's table the way back to the tournament (its next
 * round opens by itself); quick play's "play again" or a challenge's rematch; else the host's
 * next set. */
function nextBlock(ctx) {
  const tour = ctx.info && ctx.info.tournament;
  if (tour) {
    return h('div', { class: 'tour-after', 'data-testid': 'tournament-after' },
      h('p', { class: 'muted small' }, t('tour.at_table.note')),
      tournamentLink(tour, 'tournament-back-button', 'btn btn-primary btn-large', t('tour.at_table.back')));
  }
  if (ctx.info && (ctx.info.quickplay || ctx.info.rematch)) return againBlock(ctx);
  return ctx.isHost
    ? h('button', {
      type: 'button',
      class: 'btn btn-primary btn-large',
      'data-testid': 'next-set-button',
      'data-focus': 'next-set',
      onClick: ctx.act.nextSet,
    }, t('set.next'))
    : h('p', { class: 'muted', role: 'status' }, t('set.waiting'));
}
