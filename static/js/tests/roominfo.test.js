// node --test: merging what the REST room, the socket's room frames and presence say (roominfo.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { isOver, mergeInfo, newRoom, presenceOf, viewerSeat } from '../roominfo.js';

const seats = (...bots) => bots.map((bot, seat) => ({ seat, player_id: bot ? null : `p${seat}`, name: `N${seat}`, bot }));

test('a newer answer wins, but a field it leaves out keeps the older value', () => {
  const rest = { code: 'K7QX2M', status: 'open', hostId: 'p0', closedReason: null, shareLink: '/r/K7QX2M', seats: seats(null, null, null, null) };
  const frame = { code: 'K7QX2M', status: 'playing', hostId: 'p0', closedReason: null, shareLink: null, seats: seats(null, 'heuristic', null, null) };
  const merged = mergeInfo(rest, frame);
  assert.equal(merged.status, 'playing');
  assert.equal(merged.shareLink, '/r/K7QX2M');
  assert.equal(merged.seats[1].bot, 'heuristic');
  assert.equal(mergeInfo(null, frame), frame);
});

test('who may take a bot\'s seat back is the newest answer\'s', () => {
  const left = { seats: seats(null, 'heuristic', null, null) };
  left.seats[1].left_by = 'p9';
  const back = { seats: seats(null, null, null, null) };
  assert.equal(mergeInfo({ seats: seats(null, null, null, null) }, left).seats[1].left_by, 'p9');
  assert.equal(mergeInfo(left, back).seats[1].left_by, undefined); // taken back: nobody's to take
});

test('presence: each seat\'s connection and the spectators', () => {
  const msg = {
    type: 'presence',
    seats: [{ seat: 0, connected: true, bot: null }, { seat: 1, connected: false, bot: null },
      { seat: 2, connected: false, bot: 'heuristic' }, { seat: 3, connected: true, bot: null }],
    spectators: 2,
  };
  assert.deepEqual(presenceOf(msg), { seats: { 0: true, 1: false, 2: false, 3: true }, spectators: 2 });
});

test('a room just opened, whose viewer, whether it is over', () => {
  const room = newRoom('ABC123', { sit: true });
  assert.equal(room.code, 'ABC123');
  assert.equal(room.game.view, null);
  assert.equal(room.fullChecked, true);
  assert.equal(viewerSeat(room), null);
  assert.equal(viewerSeat({ ...room, role: 'seat', seat: 2 }), 2);
  assert.equal(viewerSeat({ ...room, role: 'spectator', seat: 2 }), null);
  assert.ok(isOver({ status: 'closed' }) && isOver({ status: 'abandoned' }));
  assert.ok(!isOver({ status: 'playing' }) && !isOver(null));
});

test('a player taken off a seat is still named by it, not "Seat 2"', async () => {
  globalThis.localStorage ??= { getItem: () => null, setItem: () => {}, removeItem: () => {} };
  const { seatLabel } = await import('../seats.js');
  const before = { code: 'K7QX2M', status: 'playing', seats: seats(null, null, 'heuristic', 'heuristic') };
  // An operator removed p1 and the set ended: the room frame has seat 1 empty.
  const emptied = seats(null, null, 'heuristic', 'heuristic');
  emptied[1] = { seat: 1, player_id: null, name: null, bot: null };
  const info = mergeInfo(before, { code: 'K7QX2M', status: 'open', seats: emptied });
  assert.equal(seatLabel({ info }, 1), 'N1');
  assert.equal(seatLabel({ info }, 0), 'N0');
  // Someone new in that seat is named as themselves.
  const taken = mergeInfo(info, { seats: seats(null, null, 'heuristic', 'heuristic').map((x, i) => (i === 1 ? { ...x, name: 'Baru' } : x)) });
  assert.equal(seatLabel({ info: taken }, 1), 'Baru');
});
