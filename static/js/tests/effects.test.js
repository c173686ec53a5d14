// node --test: the effects entry point (effects.js) fed the events of whole deals the engine
// played (GAPLE_DEALS_JSON, written by tests/e2e/test_static_units.py), numbered as the table
// numbers them: every event reaches every handler once, a resume's replay does not repeat them.

import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { onEffect, receiveEvent, caughtUp, resetEffects } from '../effects.js';

const deals = JSON.parse(readFileSync(process.env.GAPLE_DEALS_JSON, 'utf8'));

/** A deal's `event` messages as seat `key` gets them: set 1, seq 1, 2, 3… */
function messages(deal, key) {
  const out = [];
  for (const step of deal.steps) {
    for (const event of step.events[key]) out.push({ type: 'event', set: 1, seq: out.length + 1, event, clock: null });
  }
  return out;
}

beforeEach(() => resetEffects());

test('each event reaches every handler once, in order, with its seq and viewer', () => {
  const deal = deals.find((d) => d.preset === 'klasik');
  const seen = [];
  const kinds = [];
  const off = onEffect((event, meta) => seen.push([meta.seq, meta.viewer, event]));
  const off2 = onEffect((event) => kinds.push(event.kind));
  const list = messages(deal, '2');
  for (const msg of list) assert.equal(receiveEvent(msg, { viewer: 2 }), true);
  off();
  off2();
  assert.deepEqual(seen.map(([seq]) => seq), list.map((m) => m.seq));
  assert.ok(seen.every(([, viewer]) => viewer === 2));
  assert.deepEqual(seen.map(([, , e]) => e), list.map((m) => m.event));
  assert.deepEqual(kinds, list.map((m) => m.event.kind));
  assert.equal(kinds[0], 'deal_started');
  assert.equal(kinds.at(-1), 'deal_ended');
});

test('a resume that replays events already handed on repeats nothing', () => {
  const deal = deals.find((d) => d.preset === 'pordi');
  const list = messages(deal, 'None');
  const seen = [];
  const off = onEffect((event, meta) => seen.push([meta.seq, meta.catchUp]));
  const half = Math.floor(list.length / 2);
  list.slice(0, half).forEach((msg) => receiveEvent(msg, { viewer: null }));
  // Reconnected, resuming from a snapshot a few events back: the server replays from there.
  list.slice(half - 3).forEach((msg) => receiveEvent(msg, { viewer: null, catchUp: true }));
  off();
  assert.deepEqual(seen.map(([seq]) => seq), list.map((m) => m.seq));
  assert.ok(seen.slice(0, half).every(([, catchUp]) => !catchUp));
  assert.ok(seen.slice(half).every(([, catchUp]) => catchUp));
});

test('after a snapshot, the events it already shows bring no effects; a new set starts over', () => {
  const deal = deals.find((d) => d.preset === 'draw');
  const list = messages(deal, '0');
  const seen = [];
  const off = onEffect((event, meta) => seen.push(`${meta.set}:${meta.seq}`));
  caughtUp(1, 5); // a page that opened mid-deal: its first snapshot is at seq 5
  list.forEach((msg) => receiveEvent(msg, { viewer: 0 }));
  assert.deepEqual(seen, list.slice(5).map((m) => `1:${m.seq}`));
  // The next set numbers its events from 1 again.
  receiveEvent({ ...list[0], set: 2, seq: 1 }, { viewer: 0 });
  receiveEvent({ ...list[0], set: 1, seq: 99 }, { viewer: 0 }); // an old set's: ignored
  off();
  assert.equal(seen.at(-1), '2:1');
  assert.ok(!seen.includes('1:99'));
});

test('a handler that throws does not keep the event from the others, and is reported', () => {
  const deal = deals[0];
  const [msg] = messages(deal, '1');
  const thrown = [];
  // The browser's reportError (the page's error log), here a list.
  globalThis.reportError = (err) => thrown.push(err.message);
  const seen = [];
  const off1 = onEffect(() => { throw new Error('broken sound'); });
  const off2 = onEffect((event) => seen.push(event.kind));
  receiveEvent(msg, { viewer: 1 });
  delete globalThis.reportError;
  off1();
  off2();
  assert.deepEqual(seen, [msg.event.kind]);
  assert.deepEqual(thrown, ['broken sound']);
});

test('a handler that unsubscribed hears nothing more', () => {
  const list = messages(deals[1], '1');
  let heard = 0;
  const off = onEffect(() => { heard += 1; });
  receiveEvent(list[0], { viewer: 1 });
  off();
  receiveEvent(list[1], { viewer: 1 });
  assert.equal(heard, 1);
});
