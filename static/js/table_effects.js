// The table's own effects (an effects.js handler): a badge on a seat for a while (pass, auto-play,
// discard, draws), the placing animation of the tile just played, and what the screen reader is
// told. Nothing here changes what the table draws from its snapshot.

import { state, changed, announce } from './store.js';
import { t } from './i18n.js';
import { seatLabel } from './seats.js';
import { tileKey } from './game.js';

const PASS_SHOW_MS = 2600;
const AUTO_SHOW_MS = 4500;

export function tableEffect(event, meta) {
  const room = state.room;
  if (!room) return;
  const name = (seat) => seatLabel(room, seat);
  const fl = room.flashes;
  const mine = event.seat === meta.viewer;
  switch (event.kind) {
    case 'played': {
      const tile = tileKey(event.tile);
      room.placed = { tile, at: meta.at };
      if (event.auto) {
        flash(fl.auto, event.seat, { tile }, AUTO_SHOW_MS);
        announce(t('announce.auto', { tile, name: name(event.seat) }));
      } else {
        announce(t('announce.played', { name: name(event.seat), tile }));
      }
      break;
    }
    case 'discarded': {
      // Klasik: a tile laid face down; only the discarder's own event names it.
      const tile = event.tile ? tileKey(event.tile) : null;
      if (event.auto) {
        flash(fl.auto, event.seat, { tile, discard: true }, AUTO_SHOW_MS);
        announce(tile
          ? t('announce.auto_discard_tile', { tile, name: name(event.seat) })
          : t('announce.auto_discard', { name: name(event.seat) }));
      } else {
        flash(fl.discard, event.seat, true, PASS_SHOW_MS);
        announce(tile && mine ? t('announce.discarded_tile', { tile }) : t('announce.discarded', { name: name(event.seat) }));
      }
      break;
    }
    case 'drew': {
      // Draw Domino: the seat's badge counts this turn's draws; the boneyard chip pulses.
      const before = fl.draw[event.seat];
      flash(fl.draw, event.seat, { n: before ? before.value.n + 1 : 1 }, PASS_SHOW_MS);
      announce(event.tile && mine
        ? t('announce.drew_tile', { tile: tileKey(event.tile), n: event.boneyard })
        : t('announce.drew', { name: name(event.seat), n: event.boneyard }));
      break;
    }
    case 'passed':
      flash(fl.pass, event.seat, true, PASS_SHOW_MS);
      announce(t('announce.passed', { name: name(event.seat) }));
      break;
    case 'deal_started':
      room.flashes = { pass: {}, auto: {}, discard: {}, draw: {} };
      room.placed = null;
      announce(t('announce.deal_started', { n: event.deal_number }));
      break;
    case 'deal_ended':
      announce(`${t(`result.${event.result}`)}. ${event.winner === null ? '' : t('result.winner', { name: name(event.winner) })}`);
      break;
    case 'set_ended':
      announce(t('set.title'));
      break;
    case 'my_turn':
      announce(t('announce.your_turn', { n: event.legal }));
      break;
    default:
      break;
  }
  changed();
}

function flash(map, seat, value, ms) {
  const at = Date.now();
  map[seat] = { value, at };
  setTimeout(() => {
    if (map[seat] && map[seat].at === at) {
      delete map[seat];
      changed();
    }
  }, ms);
}
