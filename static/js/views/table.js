// The table: four seats around the felt, the line of tiles in the middle, your hand below.
// The viewer's own seat is always at the bottom (a spectator sees seat 0 there).

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { tileSvg, tileBackSvg } from '../tiles.js';
import { renderBoard, choiceSpots } from '../board.js';
import {
  bottomSeat, positionOf, partnerOf, teamIndexOf, legalByTile, parseTile, tileKey, remainingMs,
} from '../game.js';
import { modeLabel, seatConnected, tournamentLink } from './common.js';
import { seatLabel, takeableSeats } from '../seats.js';
import { initial } from '../text.js';
import { resultPanel } from './results.js';
import { sheetButton, sheetOverlay } from './scoresheet.js';
import { icon } from '../icons.js';
import { enter } from '../anim.js';
import { profileLink } from './profile.js';
import { seatMenuButton } from './social.js';
import { rulesLink } from './practice.js';
import { soundToggle } from '../alerts.js';
import { afterRender as resumeMotion } from '../motion.js';

export function tableView(state, act) {
  const room = state.room;
  const game = room.game;
  const view = game.view;
  const info = room.info;
  const me = room.role === 'seat' && typeof room.seat === 'number' ? room.seat : null;
  const ctx = {
    state, room, game, view, info, act, me,
    bottom: bottomSeat(room.role, room.seat),
    n: view.players,
    legal: legalByTile(view.legal),
    myTurn: view.phase === 'playing' && me !== null && view.turn === me,
    isHost: Boolean(info && room.playerId && info.hostId === room.playerId),
    // The room's clock (always in its settings); without it the ring stays full.
    turnMs: info && info.settings.turn_seconds ? info.settings.turn_seconds * 1000 : null,
    klasik: view.preset === 'klasik',
  };
  // Klasik: a seat that cannot place must discard; its legal list is then only discards.
  ctx.discardMode = ctx.myTurn && view.legal.length > 0 && view.legal.every((x) => x.discard);
  const seats = [];
  for (let i = 0; i < ctx.n; i += 1) seats.push(seatPanel(i, ctx));

  const boardEl = h('div', {
    class: 'board',
    'data-testid': 'board',
    role: 'region',
    'aria-label': t('table.line'),
  });
  const showResult = (view.phase === 'deal_over' || view.phase === 'set_over') && !room.resultHidden;

  const node = h('section', {
    class: `table-screen phase-${view.phase}${ctx.myTurn ? ' my-turn' : ''}`,
    'data-testid': 'table',
    'data-phase': view.phase,
    'data-role': room.role || 'spectator',
    'data-viewer-seat': me === null ? '' : me,
  },
  info && info.tournament ? h('div', { class: 'tour-at-table' },
    tournamentLink(info.tournament, 'table-tournament', 'tour-at-table-link small',
      t('tour.at_table', { n: info.tournament.round, name: info.tournament.name }))) : null,
  infoBar(ctx),
  h('div', { class: `felt seats-${ctx.n}` },
    seats,
    h('div', { class: 'board-wrap' },
      boardEl,
      ctx.klasik ? klasikBoardInfo(ctx) : null,
      h('p', { class: 'sr-only', 'data-testid': 'ends-text' },
        view.ends ? t('table.ends', { l: view.ends[0], r: view.ends[1] }) : t('table.line.empty')),
      !view.line.length ? h('p', { class: 'board-empty' }, view.phase === 'playing' ? t('table.line.empty') : t('table.waiting_deal')) : null),
    sheetOverlay(ctx)),
  handArea(ctx),
  showResult ? resultPanel(ctx) : null);

  const after = () => {
    const draw = () => {
      renderBoard(boardEl, {
        line: view.line,
        anchor: game.anchor,
        fresh: placedNow(room, view),
        ends: view.ends,
        startIndex: view.startIndex,
        labels: {
          tile: (a, b) => t('tile.aria', { a, b }),
          region: t('table.line'),
        },
        overlay: (positions, box) => endChoices(positions, ctx, box),
      });
      resumeMotion(); // a placed tile travels, a deal flies in (motion.js)
    };
    draw();
    return draw;
  };
  return { node, after, boardEl };
}

/** The tile just placed (a `played` effect, table_effects.js), where it now lies in the line. */
function placedNow(room, view) {
  if (!room.placed) return null;
  const index = view.line.findIndex((tile) => tileKey(`${tile[0]}-${tile[1]}`) === room.placed.tile);
  return index >= 0 ? { index, at: room.placed.at } : null;
}

function infoBar(ctx) {
  const { view, info, room } = ctx;
  const settings = (info && info.settings) || {};
  let dealText = '';
  if (view.dealNumber > 0) {
    if (view.additional) dealText = t('table.additional');
    else if (view.preset === 'klasik' && view.scoring !== 'penalty') dealText = t('table.deal', { n: view.dealNumber });
    else if (view.mode === 'tunggal' && settings.deals_per_set) {
      dealText = t('table.deal_of', { n: view.dealNumber, total: settings.deals_per_set });
    } else dealText = t('table.deal', { n: view.dealNumber });
  }
  const canShow = (view.phase === 'deal_over' || view.phase === 'set_over') && room.resultHidden;
  return h('div', { class: 'info-bar' },
    h('div', { class: 'info-left' },
      ctx.klasik
        ? h('span', { class: 'mode-pill mode-klasik', 'data-testid': 'preset-pill', 'data-preset': 'klasik' }, t('create.preset.klasik'))
        : h('span', { class: `mode-pill mode-${view.mode}` }, modeLabel(view.mode)),
      dealText ? h('span', { class: 'deal-label', 'data-testid': 'deal-label' }, dealText) : null,
      (view.mode === 'ganda' || (ctx.klasik && view.scoring !== 'penalty')) && settings.target_points
        ? h('span', { class: 'muted small' }, t('table.target', { n: settings.target_points }))
        : null,
      ctx.klasik && view.scoring === 'penalty'
        ? h('span', { class: 'muted small', 'data-testid': 'scoring-note' }, t('klasik.scoring.penalty.short'))
        : null),
    scoreboard(ctx),
    h('div', { class: 'info-right' },
      ctx.me !== null ? soundToggle() : null,
      ctx.me === null
        ? h('span', { class: 'spectator-badge', 'data-testid': 'spectator-marker' }, icon('eye'), ' ', t('table.spectating'))
        : null,
      rulesLink({ newTab: true, className: 'btn btn-ghost btn-small' }),
      sheetButton(ctx),
      canShow ? h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'show-result', 'data-focus': 'show-result', onClick: ctx.act.showResult }, t('table.show_result')) : null,
      ctx.me !== null && (view.phase === 'playing' || view.phase === 'deal_over')
        ? h('button', { type: 'button', class: 'btn btn-ghost btn-small', 'data-testid': 'leave-table-button', 'data-focus': 'leave-table', onClick: ctx.act.leaveTable, title: t('table.leave') },
          icon('door'), h('span', { class: 'btn-label' }, t('table.leave')))
        : null));
}

function scoreboard(ctx) {
  const { view, room } = ctx;
  const items = [];
  if (view.mode === 'ganda') {
    const teams = Array.isArray(view.teams) && view.teams.length ? view.teams : [[0, 2], [1, 3]];
    teams.forEach((team, i) => {
      const label = team.map((s) => seatLabel(room, s)).join(t('and'));
      items.push(h('li', {
        class: `score-item team-${i === 0 ? 'A' : 'B'}${team.includes(ctx.me) ? ' mine' : ''}`,
        'data-testid': 'team-score',
        'data-team': i,
      },
      h('span', { class: 'score-name' }, `${t('room.team', { t: i === 0 ? 'A' : 'B' })}`, h('span', { class: 'score-sub' }, label)),
      h('strong', { class: 'score-value' }, String(view.scores[team[0]] ?? 0))));
    });
  } else {
    for (let i = 0; i < ctx.n; i += 1) {
      items.push(h('li', { class: `score-item${i === ctx.me ? ' mine' : ''}`, 'data-testid': 'score', 'data-seat': i },
        h('span', { class: 'score-name' }, seatLabel(room, i)),
        h('strong', { class: 'score-value' }, String(view.scores[i] ?? 0))));
    }
  }
  return h('ol', { class: 'scoreboard', 'data-testid': 'scoreboard', 'aria-label': t('table.scores') }, items);
}

function seatPanel(i, ctx) {
  const { view, room, game } = ctx;
  const pos = positionOf(i, ctx.bottom, ctx.n);
  const entry = (ctx.info && ctx.info.seats[i]) || {};
  const name = seatLabel(room, i);
  const isTurn = view.phase === 'playing' && view.turn === i;
  const clockHere = game.clock && game.clock.seat === i && view.phase === 'playing';
  const connected = entry.bot ? null : seatConnected(room, i, ctx.me);
  const partner = ctx.me !== null ? partnerOf(ctx.me, view) : null;
  const count = view.counts[i] ?? 0;
  // A pass (a draw, a discard) is news while the deal is played; once it is over the result
  // panel says what happened, and a badge left over would sit on top of it.
  const playing = view.phase === 'playing';
  const pass = playing && room.flashes.pass[i];
  const auto = room.flashes.auto[i];
  const discarded = playing && (room.flashes.discard || {})[i];
  const drawing = playing && (room.flashes.draw || {})[i];
  const discards = view.discardCounts ? view.discardCounts[i] || 0 : 0;
  const rem = clockHere ? remainingMs(game, performance.now()) : null;
  const team = view.mode === 'ganda' ? (teamIndexOf(i, view) === 0 ? 'A' : 'B') : null;
  const score = view.scores[i] ?? 0;

  return h('div', {
    class: `seat-panel pos-${pos}${isTurn ? ' is-turn' : ''}${i === ctx.me ? ' is-me' : ''}${team ? ` team-${team}` : ''}`,
    'data-testid': 'seat-panel',
    'data-seat': i,
    'data-position': pos,
    'data-turn': String(isTurn),
    'data-connected': connected === null ? 'bot' : String(connected !== false),
    role: 'group',
    'aria-label': [name, t('seat.tiles', { n: count }), ctx.klasik && discards ? t('seat.discards', { n: discards }) : null,
      t('seat.score', { n: score })].filter(Boolean).join(', '),
  },
  h('div', { class: 'avatar-wrap' },
    h('div', {
      class: `avatar-ring${clockHere ? ' running' : ''}`,
      'data-countdown-ring': clockHere ? '' : null,
      style: { '--p': rem === null ? 0 : Math.min(1, ctx.turnMs ? rem / ctx.turnMs : 1) },
    },
    h('span', { class: `avatar seat-color-${i}`, 'aria-hidden': 'true' }, entry.bot ? icon('bot') : initial(name))),
    connected !== null
      ? h('span', {
        class: `presence-dot ${connected === false ? 'off' : 'on'}`,
        'data-testid': 'presence',
        'data-seat': i,
        title: connected === false ? t('seat.offline') : t('seat.online'),
      }, h('span', { class: 'sr-only' }, connected === false ? t('seat.offline') : t('seat.online')))
      : null),
  h('div', { class: 'seat-meta' },
    h('div', { class: 'seat-name', 'data-testid': 'seat-name', 'data-seat': i }, entry.player_id ? profileLink(entry.player_id, name, { newTab: true }) : name),
    h('div', { class: 'seat-badges' },
      entry.player_id && i !== ctx.me ? seatMenuButton(entry.player_id, name) : null,
      i === ctx.me ? h('span', { class: 'badge badge-you' }, t('seat.you')) : null,
      partner === i ? h('span', { class: 'badge badge-partner', 'data-testid': 'partner-badge' }, t('seat.partner')) : null,
      entry.bot ? h('span', { class: 'badge badge-bot' }, t('seat.bot_badge')) : null),
    h('div', { class: 'seat-stats' },
      h('span', {
        class: 'tile-count',
        'data-testid': 'tile-count',
        'data-seat': i,
        'data-count': count,
        'aria-label': t('seat.tiles', { n: count }),
      }, h('span', { class: 'mini-back', 'aria-hidden': 'true' }, tileBackSvg()), h('span', { 'aria-hidden': 'true' }, String(count))),
      ctx.klasik && (discards > 0 || (ctx.info && ctx.info.settings.stuck === 'discard'))
        ? h('span', {
          class: `discard-count${discards ? '' : ' none'}`,
          'data-testid': 'discard-count',
          'data-seat': i,
          'data-count': discards,
          title: t('seat.discards', { n: discards }),
          'aria-label': t('seat.discards', { n: discards }),
        }, h('span', { class: 'mini-back face-down', 'aria-hidden': 'true' }, tileBackSvg()), h('span', { 'aria-hidden': 'true' }, String(discards)))
        : null,
      h('span', { class: 'seat-score', 'data-testid': 'seat-score', 'data-seat': i, 'aria-hidden': 'true' }, icon('star'), ` ${score}`))),
  pos.startsWith('top') && count > 0 ? h('div', { class: 'backs', 'aria-hidden': 'true' }, Array.from({ length: Math.min(count, 7) }, () => tileBackSvg())) : null,
  clockHere
    ? h('span', {
      class: `countdown${rem !== null && rem < 5000 ? ' urgent' : ''}`,
      'data-testid': 'countdown',
      'data-seat': i,
      'data-countdown': '',
      role: 'timer',
      'aria-live': 'off',
    }, rem === null ? '' : String(Math.ceil(rem / 1000)))
    : null,
  pass ? flashBadge(`pass:${i}:${pass.at}`, { class: 'pass-badge', 'data-testid': 'pass-badge', 'data-seat': i }, t('pass')) : null,
  drawing ? flashBadge(`draw:${i}:${drawing.at}`, {
    class: 'pass-badge draw-badge',
    'data-testid': 'draw-badge',
    'data-seat': i,
    'data-drawn': drawing.value.n,
  }, h('span', { class: 'mini-back draw-fly', 'aria-hidden': 'true' }, tileBackSvg()), ` ${t('seat.drew')} ×${drawing.value.n}`) : null,
  discarded && !auto ? flashBadge(`discard:${i}:${discarded.at}`, { class: 'pass-badge discard-badge', 'data-testid': 'discard-badge', 'data-seat': i }, t('discard.badge')) : null,
  auto ? flashBadge(`auto:${i}:${auto.at}`, {
    class: 'auto-badge',
    'data-testid': 'auto-badge',
    'data-seat': i,
    'data-tile': auto.value.tile || '',
    'data-discard': auto.value.discard ? 'true' : null,
  }, icon('clock'), ` ${t('auto')} `, auto.value.discard ? `${t('discard.badge')}${auto.value.tile ? ` ${auto.value.tile}` : ''}` : auto.value.tile) : null);
}

function flashBadge(key, props, ...children) {
  const a = enter(key, 'anim-pop', 250);
  return h('span', { ...props, class: `flash-badge ${props.class} ${a.class}`, style: a.style }, ...children);
}

function handArea(ctx) {
  const { view, room, me } = ctx;
  if (me === null || !Array.isArray(view.hand)) {
    const mine = room.playerId || (ctx.state.player && ctx.state.player.player_id);
    const offers = me === null && view.phase !== 'set_over' ? takeableSeats(ctx.info, mine) : [];
    return h('div', { class: 'hand-area spectator' },
      h('p', { class: 'muted center' }, h('span', { class: 'spectator-badge' }, icon('eye'), ' ', t('table.spectating'))),
      offers.length ? h('div', { class: 'take-seats', 'data-testid': 'take-seats' },
        offers.slice(0, 3).map((offer) => h('button', {
          type: 'button',
          class: `btn ${offer.kind === 'back' ? 'btn-gold' : 'btn-primary'} btn-small`,
          'data-testid': 'take-seat-button',
          'data-seat': offer.seat,
          'data-kind': offer.kind,
          'data-focus': `take-${offer.seat}`,
          disabled: room.busy,
          onClick: () => ctx.act.sit(offer.seat),
        }, offer.kind === 'back'
          ? t('table.take_back', { n: offer.seat + 1 })
          : t('table.take_bot', { n: offer.seat + 1 })))) : null);
  }
  const choosing = room.choosing;
  const pending = Boolean(room.pending);
  const focusKey = room.handFocus && view.hand.includes(room.handFocus) ? room.handFocus : null;
  const firstLegal = view.hand.find((tile) => ctx.myTurn && ctx.legal.has(tile));
  const tabStop = focusKey || firstLegal || view.hand[0];

  const tiles = view.hand.map((tile) => {
    const [a, b] = parseTile(tile);
    const legal = ctx.myTurn && ctx.legal.has(tile);
    const discard = legal && ctx.discardMode;
    let label = t('tile.aria', { a, b });
    if (discard) label = `${label}, ${t('tile.discardable')}`;
    else if (legal) label = `${label}, ${t('tile.playable')}`;
    return h('button', {
      type: 'button',
      class: `hand-tile${legal ? ' legal' : ''}${discard ? ' discard' : ''}${choosing === tile ? ' choosing' : ''}${ctx.myTurn && !legal ? ' dim' : ''}`,
      'data-testid': 'hand-tile',
      'data-tile': tile,
      'data-legal': String(legal),
      'data-discard': discard ? 'true' : null,
      'data-focus': `hand-${tile}`,
      tabindex: tile === tabStop ? '0' : '-1',
      'aria-label': label,
      'aria-disabled': legal && !pending ? 'false' : 'true',
      'aria-pressed': choosing === tile ? 'true' : null,
      onClick: () => { if (legal && !pending) ctx.act.chooseTile(tile); },
      onKeydown: (e) => handKeys(e, tile, ctx),
      onFocus: () => { room.handFocus = tile; },
    }, tileSvg(a, b));
  });

  return h('div', { class: `hand-area${ctx.discardMode ? ' discarding' : ''}` },
    turnIndicator(ctx),
    choosing ? endChoiceBar(choosing, ctx) : null,
    ctx.klasik ? discardTray(ctx) : null,
    h('div', {
      class: 'hand',
      role: 'toolbar',
      'aria-label': t('table.your_hand'),
      'aria-orientation': 'horizontal',
      'data-testid': 'hand',
    }, tiles));
}

function handKeys(e, tile, ctx) {
  const keys = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End'];
  if (e.key === 'Escape') {
    ctx.act.cancelChoice();
    return;
  }
  if (!keys.includes(e.key)) return;
  e.preventDefault();
  const buttons = [...e.currentTarget.parentElement.querySelectorAll('[data-testid="hand-tile"]')];
  const at = buttons.indexOf(e.currentTarget);
  let next = at;
  if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') next = (at - 1 + buttons.length) % buttons.length;
  if (e.key === 'ArrowRight' || e.key === 'ArrowDown') next = (at + 1) % buttons.length;
  if (e.key === 'Home') next = 0;
  if (e.key === 'End') next = buttons.length - 1;
  for (const b of buttons) b.tabIndex = -1;
  buttons[next].tabIndex = 0;
  buttons[next].focus();
}

function turnIndicator(ctx) {
  const { view, room, game } = ctx;
  if (view.phase !== 'playing' || view.turn === null) return h('div', { class: 'turn-indicator idle', 'aria-hidden': 'true' });
  if (ctx.myTurn) {
    const rem = remainingMs(game, performance.now());
    return h('div', { class: 'turn-indicator mine', 'data-testid': 'turn-indicator', 'data-mine': 'true' },
      h('strong', {}, room.pending ? t('table.pending') : t('table.turn.you')),
      ctx.discardMode && !room.pending
        ? h('span', { class: 'discard-prompt', 'data-testid': 'discard-prompt', role: 'status' }, t('discard.prompt'))
        : null,
      ctx.legal.size === 0 ? h('span', { class: 'muted small' }, t('table.no_moves')) : null,
      h('span', { class: 'turn-bar', 'data-countdown-ring': '', style: { '--p': rem === null ? 0 : Math.min(1, ctx.turnMs ? rem / ctx.turnMs : 1) }, 'aria-hidden': 'true' }, h('span')));
  }
  return h('div', { class: 'turn-indicator', 'data-testid': 'turn-indicator', 'data-mine': 'false' },
    t('table.turn.other', { name: seatLabel(room, view.turn) }));
}

/**
 * The end choice's caption and its way back. It floats over the table (never pushing the seats
 * or the board about); the ends themselves are chosen on the board (endChoices).
 */
function endChoiceBar(tile, ctx) {
  const [a, b] = parseTile(tile);
  const anim = enter(`choice:${tile}:${ctx.game.set}:${ctx.game.seq}`, 'anim-rise', 250);
  return h('div', { class: `end-choice-bar ${anim.class}`, style: anim.style, role: 'group', 'aria-label': t('end.choose', { tile }), 'data-testid': 'end-choice-bar' },
    h('span', { class: 'end-choice-q' }, t('end.choose', { tile: `${a}-${b}` })),
    h('button', {
      type: 'button',
      class: 'btn btn-ghost btn-small',
      'data-testid': 'end-choice-cancel',
      'data-focus': 'end-choice-cancel',
      onClick: ctx.act.cancelChoice,
      onKeydown: (e) => { if (e.key === 'Escape') ctx.act.cancelChoice(); },
    }, t('end.cancel')));
}

// The end buttons' box for placing them (CSS .end-choice: 46 px high; wider with points).
const CHOICE_SIZE = { w: 50, h: 46 };
const CHOICE_SIZE_POINTS = { w: 92, h: 46 };

/**
 * While a tile waits for its end: one button at each open end of the drawn line, showing that
 * end's number (and the Domi points), so the choice is where the ends are on screen even once the
 * line has turned corners.
 */
function endChoices(positions, ctx, box) {
  const tile = ctx.room.choosing;
  if (!tile || !positions) return null;
  const entries = ctx.legal.get(tile) || [];
  const withPoints = entries.some((x) => x.points !== null);
  const spots = choiceSpots(positions, box, withPoints ? CHOICE_SIZE_POINTS : CHOICE_SIZE);
  const { view } = ctx;
  return ['left', 'right'].map((end) => {
    const entry = entries.find((x) => x.end === end);
    if (!entry) return null;
    const value = view.ends[end === 'left' ? 0 : 1];
    const side = t(`end.${end}`);
    const label = entry.points === null
      ? t('end.aria', { side, n: value })
      : t('end.aria.points', { side, n: value, p: entry.points });
    const spot = spots[end];
    return h('button', {
      type: 'button',
      class: `end-choice end-choice-${end}${spot.onMarker ? ' on-marker' : ''}`,
      'data-testid': 'end-choice',
      'data-end': end,
      'data-value': value,
      'data-points': entry.points === null ? '' : entry.points,
      'data-focus': `end-choice-${end}`,
      'aria-label': label,
      style: { left: `${spot.x}px`, top: `${spot.y}px` },
      onClick: () => ctx.act.chooseEnd(end),
      onKeydown: (e) => { if (e.key === 'Escape') ctx.act.cancelChoice(); },
    },
    h('span', { class: 'end-choice-n', 'aria-hidden': 'true' }, String(value)),
    entry.points !== null ? h('span', { class: 'pts', 'data-testid': 'end-choice-points' }, t('end.points', { p: entry.points })) : null);
  });
}

/** Klasik, on the felt: the face-up start tile and how many tiles lie set aside unseen. */
function klasikBoardInfo(ctx) {
  const { view } = ctx;
  const start = view.start ? parseTile(view.start) : null;
  return h('div', { class: 'klasik-info' },
    start ? h('span', {
      class: 'klasik-chip start-chip',
      'data-testid': 'start-tile',
      'data-tile': `${start[0]}-${start[1]}`,
      title: t('klasik.start.hint'),
    }, t('klasik.start', { tile: `${start[0]}-${start[1]}` })) : null,
    typeof view.boneyard === 'number' ? h('span', {
      // Draw Domino: the boneyard, face down; a draw makes it pulse (the count is the snapshot's).
      class: `klasik-chip boneyard${ctx.room && Object.keys(ctx.room.flashes.draw || {}).length ? ' drawing' : ''}`,
      'data-testid': 'boneyard',
      'data-count': view.boneyard,
      'aria-label': t('klasik.boneyard', { n: view.boneyard }),
    }, h('span', { class: 'backs-inline', 'aria-hidden': 'true' }, Array.from({ length: view.boneyard }, () => tileBackSvg())),
    h('span', { 'aria-hidden': 'true' }, t('klasik.boneyard', { n: view.boneyard }))) : view.setAside > 0 ? h('span', {
      class: 'klasik-chip set-aside',
      'data-testid': 'set-aside',
      'data-count': view.setAside,
      'aria-label': t('klasik.set_aside', { n: view.setAside }),
    }, h('span', { class: 'backs-inline', 'aria-hidden': 'true' }, Array.from({ length: view.setAside }, () => tileBackSvg())),
    h('span', { 'aria-hidden': 'true' }, t('klasik.set_aside', { n: view.setAside }))) : null);
}

/** Your own discards this deal, face down (dimmed): only you know them until the deal ends. */
function discardTray(ctx) {
  const list = ctx.view.discards || [];
  if (!list.length) return null;
  return h('div', { class: 'discard-tray', 'data-testid': 'discard-tray', role: 'list', 'aria-label': t('discard.tray') },
    h('span', { class: 'discard-tray-label', 'aria-hidden': 'true' }, t('discard.tray')),
    list.map((tile) => {
      const [a, b] = parseTile(tile);
      return h('span', {
        class: 'own-discard',
        role: 'listitem',
        'data-testid': 'own-discard',
        'data-tile': tile,
        'aria-label': `${t('tile.aria', { a, b })}, ${t('discard.face_down')}`,
      }, tileSvg(a, b, { orientation: 'v', className: 'mini' }));
    }));
}
