// node --test: the snapshot reader (game.js) against whole deals the engine played, which the
// runner (tests/e2e/test_static_units.py) writes and names in GAPLE_DEALS_JSON: each viewer's
// view after every batch, and where the deal's opening tile lies.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { applySnapshot, emptyGame, legalByTile, normView, remainingMs, tapTile, tileKey } from '../game.js';

const path = process.env.GAPLE_DEALS_JSON;
assert.ok(path, 'GAPLE_DEALS_JSON names the played deals');
const deals = JSON.parse(readFileSync(path, 'utf8'));

const viewersOf = (deal) => Object.keys(deal.steps[0].views);
const seatOf = (key) => (key === 'None' ? null : Number(key));

/** The game after each step's snapshot, for one viewer. */
function gamesFor(deal, key) {
  let game = emptyGame();
  return deal.steps.map((step, i) => {
    game = applySnapshot(game, { set: 1, seq: i + 1, view: step.views[key], clock: null }, 0);
    return game;
  });
}

test('a snapshot is drawn as sent: line as drawn, ends, hand, counts', () => {
  for (const deal of deals) {
    for (const key of viewersOf(deal)) {
      for (const step of deal.steps) {
        const raw = step.views[key];
        const view = normView(raw);
        assert.deepEqual(view.line.map(([a, b]) => `${a}-${b}`), raw.line.map((x) => x.tile));
        assert.deepEqual(view.ends, raw.ends ? [raw.ends.left, raw.ends.right] : null);
        assert.deepEqual(view.counts, raw.counts);
        assert.equal(view.turn, raw.turn);
        assert.equal(view.phase, raw.phase);
        if (key === 'None') assert.equal(view.hand, null);
        else assert.deepEqual(view.hand, raw.hand.map(tileKey));
        assert.equal(view.legal.length, raw.legal.length);
        if (raw.start) assert.deepEqual(view.line[view.startIndex], raw.start.split('-').map(Number));
      }
    }
  }
});

test('the opening tile is followed from snapshot to snapshot, wherever the line grows', () => {
  let checked = 0;
  for (const deal of deals) {
    for (const key of viewersOf(deal)) {
      gamesFor(deal, key).forEach((game, i) => {
        if (!game.view.line.length) return;
        assert.equal(game.anchor, deal.steps[i].opening, `${deal.preset} seed ${deal.seed} step ${i}`);
        checked += 1;
      });
    }
  }
  assert.ok(checked > 500, `${checked} positions`);
});

test('a first snapshot mid-deal (a reload) lays the line out from its middle', () => {
  const deal = deals.find((d) => d.preset === 'pordi');
  const step = deal.steps[8];
  const game = applySnapshot(emptyGame(), { set: 1, seq: 9, view: step.views.None, clock: null }, 0);
  assert.equal(game.anchor, Math.floor((game.view.line.length - 1) / 2));
  // The next batch keeps that choice: the line does not jump.
  const next = applySnapshot(game, { set: 1, seq: 10, view: deal.steps[9].views.None, clock: null }, 0);
  const grewLeft = deal.steps[9].opening - step.opening;
  assert.equal(next.anchor, game.anchor + grewLeft);
});

test('a tap plays what the server listed, and asks only when the ends differ in effect', () => {
  let asked = 0;
  let alike = 0;
  for (const deal of deals) {
    for (const key of viewersOf(deal)) {
      const seat = seatOf(key);
      for (const game of gamesFor(deal, key)) {
        const { view } = game;
        for (const tile of view.hand || []) {
          const what = tapTile(game, seat, tile);
          const entries = legalByTile(view.legal).get(tile);
          if (view.turn !== seat || view.phase !== 'playing' || !entries) {
            assert.equal(what, null);
            continue;
          }
          const ends = entries.map((e) => e.end);
          const both = ends.includes('left') && ends.includes('right');
          const same = both && view.ends[0] === view.ends[1]
            && entries[0].points === entries[1].points;
          if (both && !same) {
            assert.deepEqual(what, { choose: true });
            asked += 1;
          } else {
            assert.ok(ends.includes(what.play), `${tile}: ${what.play} is one of ${ends}`);
            if (same) alike += 1;
          }
        }
        // Nothing is playable for a spectator, nor for a seat off turn.
        if (seat === null && view.hand === null) assert.equal(tapTile(game, seat, '3-5'), null);
      }
    }
  }
  assert.ok(asked > 0, 'no tile fitting both ends came');
  assert.ok(alike > 0, 'no tile fitting ends n|n came');
});

/** A view of seat 0 to move, the line `line` (as drawn), and `legal` as the server lists it. */
function position(line, legal, anchor) {
  const raw = {
    viewer: 0, preset: 'pordi', mode: 'tunggal', scoring: 'fixed', stuck: 'pass', players: 4,
    phase: 'playing', deal_number: 1, additional_game: false, scores: [0, 0, 0, 0], teams: null,
    turn: 0, opener: 1, hand: ['3-5', '3-4', '0-0'], counts: [3, 4, 4, 4], start: null,
    line: line.map((tile) => ({ tile, seat: 1 })),
    ends: { left: Number(line[0][0]), right: Number(line.at(-1)[2]) },
    set_aside: 0, boneyard: null, passes: [], discards: null, discard_counts: [0, 0, 0, 0],
    discarded: [], legal, last_result: null, set_result: null,
  };
  return { ...emptyGame(), view: normView(raw), anchor };
}

test('ends n|n: the same result either way is played at once, on the shorter arm', () => {
  const legal = [
    { tile: '3-5', end: 'left', domi_points: null },
    { tile: '3-5', end: 'right', domi_points: null },
  ];
  // 3-6 6-6 6-3: the opening tile 6-6 in the middle, one tile each side.
  assert.deepEqual(tapTile(position(['3-6', '6-6', '6-3'], legal, 1), 0, '3-5'), { play: 'left' });
  // 3-6 6-2 2-3: opened with 3-6, so the left arm is empty... and the right arm longer.
  assert.deepEqual(tapTile(position(['3-6', '6-2', '2-3'], legal, 0), 0, '3-5'), { play: 'left' });
  assert.deepEqual(tapTile(position(['3-6', '6-2', '2-3'], legal, 2), 0, '3-5'), { play: 'right' });
  // Different points at the two ends (a Domi that scores differently): ask.
  const scored = [
    { tile: '3-5', end: 'left', domi_points: 1 },
    { tile: '3-5', end: 'right', domi_points: 2 },
  ];
  assert.deepEqual(tapTile(position(['3-6', '6-6', '6-3'], scored, 1), 0, '3-5'), { choose: true });
  // Different ends: ask.
  const apart = [
    { tile: '3-4', end: 'left', domi_points: null },
    { tile: '3-4', end: 'right', domi_points: null },
  ];
  assert.deepEqual(tapTile(position(['3-6', '6-4'], apart, 0), 0, '3-4'), { choose: true });
  // Not legal: nothing.
  assert.equal(tapTile(position(['3-6', '6-4'], apart, 0), 0, '0-0'), null);
});

test('the clock counts down from the server\'s remaining_ms', () => {
  const deal = deals[0];
  const game = applySnapshot(emptyGame(), {
    set: 1, seq: 1, view: deal.steps[0].views.None, clock: { seat: 1, deadline: 0, remaining_ms: 15000 },
  }, 1000);
  assert.equal(remainingMs(game, 1000), 15000);
  assert.equal(remainingMs(game, 4500), 11500);
  assert.equal(remainingMs(game, 90000), 0);
  assert.equal(remainingMs(applySnapshot(game, { set: 1, seq: 2, view: deal.steps[1].views.None, clock: null }, 0), 0), null);
});

test('between deals the snapshot says when the next deal starts, counted from its arrival', async () => {
  const { nextDealMs } = await import('../game.js');
  const view = deals[0].steps[deals[0].steps.length - 1].views.None;
  let game = applySnapshot(emptyGame(), { set: 1, seq: 9, view, clock: null, next_deal: { deadline: 5000, remaining_ms: 2000 } }, 100);
  assert.equal(nextDealMs(game, 100), 2000);
  assert.equal(nextDealMs(game, 1600), 500);
  assert.equal(nextDealMs(game, 9000), 0); // never below zero
  game = applySnapshot(game, { set: 1, seq: 10, view, clock: null, next_deal: null }, 200);
  assert.equal(nextDealMs(game, 300), null);
});
