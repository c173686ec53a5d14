// Quick play: the wait for players (who has joined, the countdown to the bots, "start now with
// bots"), and after a set the choice of "play again" or leave. The countdown is the server's
// (`bots_in_ms`, kept as info.botsDue); main.js's ticker moves every [data-bots-due] element.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { seatLabel } from '../seats.js';
import { icon } from '../icons.js';

/** The countdown line: "Bots take the empty seats in 12 s", or nothing when none is pending. */
function countdown(info, key) {
  if (typeof info.botsDue !== 'number') return null;
  const left = Math.max(0, Math.ceil((info.botsDue - Date.now()) / 1000));
  return h('p', {
    class: 'quick-countdown',
    role: 'timer',
    'aria-live': 'off',
    'data-testid': 'bots-countdown',
    'data-bots-due': String(info.botsDue),
    'data-bots-key': key,
    'data-seconds-left': String(left),
  }, t(key, { n: left }));
}

function startNow(room, act) {
  return h('button', {
    type: 'button',
    class: 'btn btn-block',
    'data-testid': 'start-now-button',
    'data-focus': 'start-now',
    disabled: room.busy,
    onClick: act.fillNow,
  }, icon('bot'), ' ', t('quick.start_now'));
}

/** A quick-play room waiting for players (before its first set), for a seated player. */
export function quickWait(room, info, act) {
  const mine = room.playerId || null;
  return h('div', { class: 'card quick-wait', 'data-testid': 'quick-wait' },
    h('h2', {}, t('quick.wait.title')),
    h('ul', { class: 'quick-joined', 'data-testid': 'quick-joined' },
      info.seats.map((seat) => h('li', {
        'data-testid': 'quick-joined-seat',
        'data-seat': seat.seat,
        'data-joined': String(Boolean(seat.player_id)),
        class: seat.player_id && seat.player_id === mine ? 'mine' : '',
      }, seat.player_id ? seatLabel(room, seat.seat) : h('span', { class: 'muted' }, t('quick.wait.empty'))))),
    countdown(info, 'quick.wait.bots_in'),
    h('p', { class: 'waiting-note muted small', role: 'status', 'data-testid': 'waiting-note' }, t('room.quick_waiting')),
    startNow(room, act));
}

/** After a quick-play set, on the result panel: play again (same table) or leave. At a
 * challenge's table (`rematch`) the same choice is the rematch: no bots come by time, and the
 * first to choose it offers it to the others (docs/API.md "Challenges"). */
export function againBlock(ctx) {
  const { room, info, act } = ctx;
  const seat = typeof ctx.me === 'number' && info ? info.seats[ctx.me] : null;
  const ready = Boolean(seat && seat.ready);
  const humans = info ? info.seats.filter((x) => x.player_id) : [];
  const rematch = Boolean(info && info.rematch && !info.quickplay);
  if (rematch) return rematchBlock(ctx, seat, ready, humans);
  return h('div', { class: 'quick-again', 'data-testid': 'quick-again', 'data-ready': String(ready) },
    h('p', { class: 'muted small' }, t('quick.again.note')),
    humans.length ? h('ul', { class: 'quick-joined', 'data-testid': 'quick-ready-list' },
      humans.map((x) => h('li', { 'data-testid': 'quick-ready', 'data-seat': x.seat, 'data-ready': String(x.ready) },
        `${seatLabel(room, x.seat)}: `, x.ready ? t('quick.again.ready') : h('span', { class: 'muted' }, t('quick.again.choosing'))))) : null,
    info ? countdown(info, 'quick.again.bots_in') : null,
    seat ? h('div', { class: 'quick-again-actions' },
      ready ? startNow(room, act) : h('button', {
        type: 'button',
        class: 'btn btn-primary btn-large',
        'data-testid': 'play-again-button',
        'data-focus': 'play-again',
        disabled: room.busy,
        onClick: act.playAgain,
      }, t('quick.again')),
      h('button', {
        type: 'button',
        class: 'btn btn-ghost',
        'data-testid': 'quick-leave-button',
        'data-focus': 'quick-leave',
        disabled: room.busy,
        onClick: act.leaveQuick,
      }, t('quick.leave'))) : null);
}

function rematchBlock(ctx, seat, ready, humans) {
  const { room, act } = ctx;
  return h('div', { class: 'quick-again', 'data-testid': 'rematch', 'data-ready': String(ready) },
    h('p', { class: 'muted small' }, t('quick.rematch.note')),
    h('ul', { class: 'quick-joined', 'data-testid': 'quick-ready-list' },
      humans.map((x) => h('li', { 'data-testid': 'quick-ready', 'data-seat': x.seat, 'data-ready': String(x.ready) },
        `${seatLabel(room, x.seat)}: `, x.ready ? t('quick.again.ready') : h('span', { class: 'muted' }, t('quick.again.choosing'))))),
    seat && !ready ? h('div', { class: 'quick-again-actions' },
      h('button', {
        type: 'button',
        class: 'btn btn-primary btn-large',
        'data-testid': 'rematch-button',
        'data-focus': 'rematch',
        disabled: room.busy,
        onClick: act.playAgain,
      }, t('quick.rematch'))) : null);
}
