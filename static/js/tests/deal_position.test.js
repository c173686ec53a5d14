// node --test: the replay page's positions (deal_position.js) from deals as the history API
// serves them, against the views the engine gave the table at the same moments — both written by
// tests/e2e/test_static_units.py (GAPLE_DEALS_JSON).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { positionAt } from '../deal_position.js';
import { normView } from '../game.js';

const deals = JSON.parse(readFileSync(process.env.GAPLE_DEALS_JSON, 'utf8'));

test('every moment of a stored deal is the table a spectator saw then', () => {
  for (const deal of deals) {
    const moves = deal.set.deals[0].moves.length;
    assert.equal(moves, deal.steps.length - 1);
    for (let upto = 0; upto <= moves; upto += 1) {
      const pos = positionAt(deal.set, 0, upto);
      const step = deal.steps[upto];
      const table = normView(step.views.None);
      const where = `${deal.preset} seed ${deal.seed} move ${upto}`;
      assert.deepEqual(pos.view.line, table.line, where);
      assert.deepEqual(pos.view.ends, table.ends, where);
      assert.deepEqual(pos.view.counts, table.counts, where);
      assert.deepEqual(pos.view.discardCounts, table.discardCounts, where);
      assert.equal(pos.view.startIndex, table.startIndex, where);
      assert.equal(pos.anchor, step.opening, where);
      assert.equal(pos.done, upto === moves);
      if (!pos.done) assert.equal(pos.next.seat, table.turn, where);
      // Each hand face up: as many tiles as the table counted.
      assert.deepEqual(pos.hands.map((hand) => hand.length), table.counts, where);
      if (deal.preset === 'draw') assert.equal(pos.view.boneyard, table.boneyard, where);
    }
    const end = positionAt(deal.set, 0, moves);
    assert.equal(end.view.phase, 'deal_over');
    assert.deepEqual(end.view.scores, deal.set.deals[0].scores);
    assert.equal(end.view.lastResult.result, deal.set.deals[0].result.result);
  }
});
