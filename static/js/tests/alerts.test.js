// node --test: the pure decisions behind turn alerts (alerts.js), the connection watch
// (socket.js) and table motion (motion.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';

globalThis.localStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {} };
const alerts = await import('../alerts.js');
const { linkCheck, QUIET_MS, PONG_TIMEOUT_MS, WATCH_EVERY_MS } = await import('../socket.js');
const { celebrationOf, localOffset } = await import('../motion.js');
const { t } = await import('../i18n.js');

const room = (over = {}) => ({
  role: 'seat',
  seat: 2,
  game: {
    set: 1,
    view: { phase: 'playing', turn: 2, dealNumber: 3 },
    clock: { seat: 2, deadline: 1000, remainingMs: 15000 },
  },
  ...over,
});

test('a turn key exists only on the viewer\'s own turn in play', () => {
  assert.equal(alerts.turnKey(room()), '1:3:1000');
  assert.equal(alerts.turnKey(null), null);
  assert.equal(alerts.turnKey(room({ role: 'spectator', seat: null })), null);
  const other = room();
  other.game.view = { ...other.game.view, turn: 1 };
  assert.equal(alerts.turnKey(other), null);
  const over = room();
  over.game.view = { ...over.game.view, phase: 'deal_over' };
  assert.equal(alerts.turnKey(over), null);
});

test('two turns in a row are two alerts; a snapshot of the same turn is not', () => {
  const first = room();
  const again = room();
  again.game.clock = { ...again.game.clock, deadline: 31000 }; // everyone passed: a new deadline
  assert.notEqual(alerts.turnKey(first), alerts.turnKey(again));
  const resumed = room();
  resumed.game.clock = { ...resumed.game.clock, remainingMs: 8000 }; // same deadline
  assert.equal(alerts.turnKey(first), alerts.turnKey(resumed));
});

test('ticks come in each of the last five seconds only, louder as time runs out', () => {
  assert.equal(alerts.tickSecond(null), null);
  assert.equal(alerts.tickSecond(0), null);
  assert.equal(alerts.tickSecond(5001), null);
  assert.equal(alerts.tickSecond(5000), 5);
  assert.equal(alerts.tickSecond(4200), 5);
  assert.equal(alerts.tickSecond(1), 1);
  const gains = [5, 4, 3, 2, 1].map((s) => alerts.tickTones(s)[0].gain);
  for (let i = 1; i < gains.length; i += 1) assert.ok(gains[i] > gains[i - 1], gains);
  assert.ok(gains.every((g) => g > 0 && g <= 0.5), gains);
  assert.equal(alerts.tickTones(5)[0].freq, alerts.TONES.tick[0].freq);
});

test('the title says "your turn" only while alerting, around the page\'s own title', () => {
  assert.equal(alerts.alertTitle('ABC · Gaple Online', false), 'ABC · Gaple Online');
  const title = alerts.alertTitle('ABC · Gaple Online', true);
  assert.equal(title, t('alert.title', { title: 'ABC · Gaple Online' }));
  assert.ok(title.includes('ABC · Gaple Online') && title !== 'ABC · Gaple Online');
});

test('a quiet link is pinged, an unanswered ping is dead within 10 s of the last frame', () => {
  assert.equal(linkCheck({ now: 1000, lastHeard: 0, pingAt: null }), 'wait');
  assert.equal(linkCheck({ now: QUIET_MS, lastHeard: 0, pingAt: null }), 'ping');
  assert.equal(linkCheck({ now: QUIET_MS + 100, lastHeard: 0, pingAt: QUIET_MS }), 'wait');
  assert.equal(linkCheck({ now: QUIET_MS + PONG_TIMEOUT_MS, lastHeard: 0, pingAt: QUIET_MS }), 'dead');
  // Anything heard after the ping answers it: never dead, pinged again once quiet again.
  const late = QUIET_MS + PONG_TIMEOUT_MS;
  assert.equal(linkCheck({ now: late, lastHeard: late - 10, pingAt: QUIET_MS }), 'wait');
  assert.equal(linkCheck({ now: late, lastHeard: QUIET_MS + 5, pingAt: QUIET_MS }), 'ping');
  // Worst case with a watch every WATCH_EVERY_MS: the ping goes one period late, so does the verdict.
  let now = 0;
  let pingAt = null;
  let verdict = 'wait';
  while (verdict !== 'dead') {
    now += WATCH_EVERY_MS;
    verdict = linkCheck({ now: now - 1, lastHeard: 0, pingAt });
    if (verdict === 'ping') pingAt = now - 1;
  }
  assert.ok(now < 10000, `dead noticed after ${now} ms`);
});

test('Domi, Ceki and Kandang are celebrated; nothing else is', () => {
  assert.equal(celebrationOf({ end: 'domi', result: 'biasa' }), 'domi');
  assert.equal(celebrationOf({ end: 'domi', result: 'balak' }), 'domi');
  for (const r of ['ceki', 'ceki_habis', 'ceki_balak', 'ceki_palang']) {
    assert.equal(celebrationOf({ end: 'domi', result: r }), 'ceki');
  }
  assert.equal(celebrationOf({ end: 'kandang', result: 'kandang' }), 'kandang');
  assert.equal(celebrationOf({ end: 'domi', result: 'discard' }), 'domi'); // Klasik
  assert.equal(celebrationOf({ end: null, result: null }), null);
  assert.equal(celebrationOf(null), null);
});

test('the travel starts where the seat is, in the tile\'s own (rotated) coordinates', () => {
  // A tile at (100, 50) on screen, turned a quarter (rotate(90): a=0 b=1 c=-1 d=0).
  const m = { a: 0, b: 1, c: -1, d: 0, e: 100, f: 50 };
  const off = localOffset(m, { x: 100, y: 150 }); // 100 px below it on screen
  assert.deepEqual({ x: Math.round(off.x), y: Math.round(off.y) }, { x: 100, y: 0 });
  const scaled = localOffset({ a: 2, b: 0, c: 0, d: 2, e: 10, f: 10 }, { x: 30, y: 10 });
  assert.deepEqual(scaled, { x: 10, y: 0 });
});
