// A live room's state in this browser (state.room) and the pure helpers that merge what the REST
// room, the socket's `welcome`/`room` frames and `presence` say about it. No DOM: checked under
// node (tests/roominfo.test.js).

import { emptyGame } from './game.js';

/** The state of a room just opened (`intent`: what the lobby asked for, e.g. {sit: true}). */
export function newRoom(code, intent = null) {
  return {
    code,
    intent,
    info: null,
    notFound: false,
    role: null,
    seat: null,
    playerId: null,
    presence: {},
    spectators: 0,
    conn: { state: 'connecting', retryAt: null, everOpen: false },
    halted: null,
    game: emptyGame(),
    // A move sent and not yet drawn: {moveId, tile, at, seq} (seq: its ack's).
    pending: null,
    // The tile waiting for its end (it fits both).
    choosing: null,
    // The table's own effects (table_effects.js): badges per seat, the tile just placed.
    flashes: { pass: {}, auto: {}, discard: {}, draw: {} },
    placed: null,
    settingsError: null,
    resultHidden: false,
    busy: false,
    settingsDraft: null,
    welcomed: false,
    // "This table is full": shown once to someone who came by link and has no seat to take.
    full: false,
    fullChecked: Boolean(intent),
    closedReason: null,
  };
}

/** Your seat when this socket speaks for one, else null (a spectator). */
export function viewerSeat(room) {
  return room && room.role === 'seat' && typeof room.seat === 'number' ? room.seat : null;
}

export const isOver = (info) => Boolean(info && (info.status === 'closed' || info.status === 'abandoned'));

const namesOf = (info) => Object.fromEntries(((info && info.seats) || [])
  .filter((x) => x && x.name).map((x) => [x.seat, x.name]));

/** `next` over `old`: a field `next` leaves out (null) keeps the older value. `seatNames`: the
 * last player seen in each seat, so a result still names someone no longer seated (removed by an
 * operator, or gone) rather than "Seat 2". */
export function mergeInfo(old, next) {
  if (!old) return next;
  const merged = { ...old };
  for (const [key, value] of Object.entries(next)) if (value !== null && value !== undefined) merged[key] = value;
  merged.seatNames = { ...old.seatNames, ...namesOf(old), ...namesOf(next) };
  return merged;
}

/** A `presence` message: {seats: {seat: connected}, spectators: n}. */
export function presenceOf(msg) {
  const seats = {};
  for (const entry of msg.seats) seats[entry.seat] = entry.connected;
  return { seats, spectators: msg.spectators };
}
