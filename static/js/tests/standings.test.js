// node --test: the set's standings (standings.js), from views shaped like normView's.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { sides, standings, standingOf } from '../standings.js';

const tunggal = (scores, winners) => ({ mode: 'tunggal', teams: null, scores, setResult: { winners } });

test('Tunggal: every seat ranked by its total, the winner first', () => {
  const list = standings(tunggal([3, 9, 1, 5], [1]));
  assert.deepEqual(list.map((e) => [e.seats, e.total, e.place]), [[[1], 9, 1], [[3], 5, 2], [[0], 3, 3], [[2], 1, 4]]);
  assert.equal(list[0].winner, true);
  assert.ok(list.slice(1).every((e) => !e.winner && !e.tied));
  assert.equal(standingOf(list, 0).place, 3);
  assert.equal(standingOf(list, null), null);
});

test('a tie shares its place and the next place is skipped', () => {
  const list = standings(tunggal([7, 4, 4, 2], [0]));
  assert.deepEqual(list.map((e) => e.place), [1, 2, 2, 4]);
  assert.deepEqual(list.map((e) => e.tied), [false, true, true, false]);
  const shared = standings(tunggal([5, 5, 1, 0], [0, 1]));
  assert.deepEqual(shared.map((e) => [e.seats[0], e.place, e.winner]), [[0, 1, true], [1, 1, true], [2, 3, false], [3, 4, false]]);
});

test('when the winner holds the fewest points (penalty), the fewest lead', () => {
  const list = standings({ mode: 'tunggal', scores: [40, 12, 77, 25, 30], setResult: { winners: [1] } });
  assert.deepEqual(list.map((e) => e.seats[0]), [1, 3, 4, 0, 2]);
  assert.deepEqual(list.map((e) => e.place), [1, 2, 3, 4, 5]);
});

test('Ganda: one entry per team, each partner finds it', () => {
  const view = { mode: 'ganda', teams: [[0, 2], [1, 3]], scores: [4, 7, 4, 7], setResult: { winners: [1, 3] } };
  assert.deepEqual(sides(view), [[0, 2], [1, 3]]);
  const list = standings(view);
  assert.deepEqual(list.map((e) => [e.seats, e.total, e.place, e.winner]), [[[1, 3], 7, 1, true], [[0, 2], 4, 2, false]]);
  assert.equal(standingOf(list, 2).place, 2);
  assert.equal(standingOf(list, 3).winner, true);
});

test('during the set (no result yet) the most points lead', () => {
  const list = standings({ mode: 'tunggal', scores: [1, 3, 0, 2], setResult: null });
  assert.deepEqual(list.map((e) => e.seats[0]), [1, 3, 0, 2]);
});

test('the sheet rows are the snapshot\'s: each new snapshot brings the whole sheet', async () => {
  const { applySnapshot, emptyGame } = await import('../game.js');
  const row = { deal: 1, end: 'domi', result: 'ceki', winner: 2, seat: 2, points: [0, 0, 2, 0] };
  const view = {
    players: 4, mode: 'tunggal', phase: 'playing', deal_number: 2, scores: [0, 0, 2, 0], deals: [row],
    counts: [7, 7, 7, 7], discard_counts: [0, 0, 0, 0], line: [], legal: [],
  };
  let game = applySnapshot(emptyGame(), { set: 1, seq: 9, view }, 0);
  assert.deepEqual(game.view.deals, [row]);
  const second = { deal: 2, end: 'kandang', result: 'kandang', winner: 0, seat: 3, points: [3, 0, 0, 0] };
  game = applySnapshot(game, { set: 1, seq: 10, view: { ...view, phase: 'deal_over', deals: [row, second] } }, 1);
  assert.deepEqual(game.view.deals, [row, second]);
  game = applySnapshot(game, { set: 2, seq: 1, view: { ...view, deal_number: 1, deals: [] } }, 2);
  assert.deepEqual(game.view.deals, []); // a new set starts a new sheet
});
