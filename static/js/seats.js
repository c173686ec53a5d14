// A room's seats as this page speaks of them: what a seat is called, and which seats the player
// may take. The chat, the table's effects and the room's actions need them as well as the views,
// so they live outside views/.

import { t } from './i18n.js';

/** How a seat is named at the table: the player's name, "Bot 3", or "Seat 3". An empty seat
 * once a set has been dealt held someone who is gone (left, or taken off by an operator): the
 * last name this page saw there, else "A player who left" — never "Seat 3", which would name the
 * wrong person in a result. */
export function seatLabel(room, seat) {
  const info = room && room.info;
  const entry = info && info.seats[seat];
  if (entry && entry.name) return entry.name;
  if (entry && entry.bot) return `${t('seat.bot_badge')} ${seat + 1}`;
  const former = info && info.seatNames && info.seatNames[seat];
  if (former) return former;
  const view = room && room.game && room.game.view;
  return view && view.phase && view.phase !== 'ready' ? t('seat.former') : t('seat.n', { n: seat + 1 });
}

/**
 * The seats this player could take now (the server decides; this only offers the button): before
 * the start every empty seat; while a set runs, the bot's seat they left (`left_by`), or any bot's
 * seat when the room allows it (`allow_join_bots`). Their own seat first.
 */
export function takeableSeats(info, playerId) {
  if (!info) return [];
  if (info.status === 'open') return info.seats.filter((x) => !x.player_id && !x.bot).map((x) => ({ seat: x.seat, kind: 'empty' }));
  if (info.status !== 'playing') return [];
  const out = [];
  for (const x of info.seats) {
    if (!x.bot) continue;
    if (playerId && x.left_by === playerId) out.unshift({ seat: x.seat, kind: 'back' });
    else if (info.settings.allow_join_bots) out.push({ seat: x.seat, kind: 'bot' });
  }
  return out;
}
