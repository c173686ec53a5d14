// node --test: what the Tournaments page reads from a tournament's view (tournament.js): names,
// the viewer's entry, invitation and table, a round_started frame's seat, the knockout drawn as
// pools then bracket columns, the create form's payload. Views are shaped as docs/API.md's.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  tabOf, frameView, entrantLabel, entryOf, inviteFor, isOrganizer, tableState, myTable, seatedCode,
  tableRows, bracketLayout, replaySet, tournamentPath, isoWithOffset, localInputValue, tournamentDraft, tournamentPayload,
} from '../tournament.js';

const who = (n) => ({ player_id: `p${n}`, name: `Pemain ${n}` });
const single = (id, n, extra = {}) => ({ id, player: who(n), partner: null, partner_confirmed: false, withdrawn: false, ...extra });
const pair = (id, a, b, confirmed = true) => ({ id, player: who(a), partner: who(b), partner_confirmed: confirmed, withdrawn: false });

function swissView() {
  return {
    id: 7, name: 'Piala Desa', format: 'swiss', mode: 'tunggal', status: 'running',
    organizer: who(1), entrants: [1, 2, 3, 4, 5, 6].map((n) => single(30 + n, n)), pools: null,
    rounds: [
      { number: 1, status: 'finished', byes: [35, 36], tables: [{ number: 1, code: 'AAAA11', entrants: [31, 32, 33, 34],
        result: { places: [1, 2, 2, 4], deal_points: [40, 20, 20, 0], points: [3, 1.5, 1.5, 0] } }] },
      { number: 2, status: 'paired', byes: [31, 32], tables: [{ number: 1, code: null, entrants: [33, 34, 35, 36], result: null }] },
    ],
    standings: [],
  };
}

test('a status belongs to one tab; a cancelled one is listed with the finished', () => {
  assert.deepEqual(['registering', 'running', 'finished', 'cancelled'].map(tabOf), ['upcoming', 'running', 'finished', 'finished']);
});

test('a frame is drawn from its tournament; a frame without one draws nothing', () => {
  const view = swissView();
  assert.equal(frameView({ type: 'standings', standings: [], tournament: view }), view);
  assert.equal(frameView({ type: 'round_started', round: 2 }), null);
  assert.equal(frameView({ type: 'tournament', tournament: { id: 'x' } }), null);
  assert.equal(frameView(null), null);
});

test('names, the viewer\'s entry, the organizer', () => {
  const view = swissView();
  assert.equal(entrantLabel(view, 33), 'Pemain 3');
  assert.equal(entrantLabel(view, 99), '#99');
  assert.equal(entryOf(view, 'p4').id, 34);
  assert.equal(entryOf(view, 'p9'), null);
  assert.equal(entryOf(view, null), null);
  view.entrants[3].withdrawn = true;
  assert.equal(entryOf(view, 'p4'), null, 'a withdrawn entry is no longer the player\'s');
  assert.ok(isOrganizer(view, 'p1'));
  assert.ok(!isOrganizer(view, 'p2'));
});

test('Ganda: a pair is named by both, the partner sees the invitation until they confirm', () => {
  const view = { ...swissView(), mode: 'ganda', entrants: [pair(41, 1, 2), pair(42, 3, 4, false)], rounds: [] };
  assert.equal(entrantLabel(view, 41), 'Pemain 1 & Pemain 2');
  assert.equal(inviteFor(view, 'p4').id, 42);
  assert.equal(inviteFor(view, 'p3'), null, 'the player who entered is not invited');
  assert.equal(inviteFor(view, 'p2'), null, 'a confirmed partner has nothing to confirm');
  assert.equal(entryOf(view, 'p4').id, 42, 'the invited partner already holds the entry');
  assert.equal(inviteFor({ ...view, mode: 'tunggal' }, 'p4'), null);
});

test('a finished table links the set the view names; none before its set ends', () => {
  const [r1, r2] = swissView().rounds;
  assert.equal(replaySet({ ...r1.tables[0], set_id: 912 }), 912);
  assert.equal(replaySet(r1.tables[0]), null, 'no set named: no link');
  assert.equal(replaySet({ ...r2.tables[0], code: 'BBBB22', set_id: 913 }), null, 'still playing');
  assert.equal(tournamentPath(7), '/turnamen/7');
});

test('a table is being set up until its room exists, then playing, then finished', () => {
  const [r1, r2] = swissView().rounds;
  assert.equal(tableState(r2.tables[0]), 'setup');
  assert.equal(tableState({ ...r2.tables[0], code: 'BBBB22' }), 'playing');
  assert.equal(tableState(r1.tables[0]), 'finished');
});

test('the viewer\'s table is the latest round\'s that seats them; a bye leaves the earlier one', () => {
  const view = swissView();
  assert.deepEqual([myTable(view, 'p3').round, myTable(view, 'p3').table.code], [2, null]);
  assert.deepEqual([myTable(view, 'p1').round, myTable(view, 'p1').table.code], [1, 'AAAA11']);
  assert.equal(myTable(view, 'p9'), null);
});

test('round_started: the code of the table the player is seated at', () => {
  const frame = { type: 'round_started', round: 2, tables: [
    { code: 'CCCC33', seats: [{ seat: 0, player_id: 'p3', name: 'Pemain 3', entrant: 33 }, { seat: 1, player_id: 'p4', name: 'x', entrant: 34 }] },
    { code: 'DDDD44', seats: [{ seat: 0, player_id: 'p5', name: 'x', entrant: 35 }] },
  ] };
  assert.equal(seatedCode(frame, 'p4'), 'CCCC33');
  assert.equal(seatedCode(frame, 'p5'), 'DDDD44');
  assert.equal(seatedCode(frame, 'p1'), null);
  assert.equal(seatedCode({ ...frame, tables: [{ code: null, seats: [{ seat: 0, player_id: 'p3' }] }] }, 'p3'), null);
  assert.equal(seatedCode({ type: 'round_started' }, 'p3'), null);
});

test('a table\'s rows carry places and points; the top half goes on', () => {
  const rows = tableRows(swissView().rounds[0].tables[0]);
  assert.deepEqual(rows.map((r) => [r.id, r.place, r.points, r.on]), [[31, 1, 3, true], [32, 2, 1.5, true], [33, 2, 1.5, true], [34, 4, 0, false]]);
  const ganda = tableRows({ entrants: [1, 2], result: { places: [2, 1], deal_points: [3, 7], points: [0, 2] } });
  assert.deepEqual(ganda.map((r) => r.on), [false, true]);
  assert.ok(tableRows({ entrants: [1, 2], result: null }).every((r) => r.place === null && !r.on));
});

/** A Ganda knockout of eight pairs: two pools of four (three rounds each), then the bracket. */
function knockoutView(bracketRounds) {
  const entrants = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => pair(n, 10 * n, 10 * n + 1));
  const pools = [{ name: 'A', members: [1, 4, 5, 8] }, { name: 'B', members: [2, 3, 6, 7] }];
  const t = (number, ids, code = null, result = null) => ({ number, code, entrants: ids, result });
  const won = { places: [1, 2], deal_points: [7, 3], points: [2, 0] };
  const rounds = [
    { number: 1, status: 'finished', byes: [], tables: [t(1, [1, 8], 'R1T1', won), t(2, [4, 5], 'R1T2', won), t(3, [2, 7], 'R1T3', won), t(4, [3, 6], 'R1T4', won)] },
    { number: 2, status: 'finished', byes: [], tables: [t(1, [1, 5], 'R2T1', won), t(2, [8, 4], 'R2T2', won), t(3, [2, 6], 'R2T3', won), t(4, [7, 3], 'R2T4', won)] },
    { number: 3, status: 'finished', byes: [], tables: [t(1, [1, 4], 'R3T1', won), t(2, [5, 8], 'R3T2', won), t(3, [2, 3], 'R3T3', won), t(4, [6, 7], 'R3T4', won)] },
    { number: 4, status: 'playing', byes: [], tables: [t(1, [1, 3], 'SF01'), t(2, [2, 4], 'SF02')] },
    { number: 5, status: 'paired', byes: [], tables: [t(1, [1, 2])] },
  ].slice(0, 3 + bracketRounds).map((r) => ({ ...r, stage: r.number <= 3 ? 'pool' : 'bracket' }));
  return { id: 9, name: 'Piala PORDI', format: 'knockout', mode: 'ganda', status: 'running', organizer: who(1), entrants, pools, rounds, standings: [] };
}

test('a round is a pool\'s or the bracket\'s as the server says (stage), never by counting', () => {
  // A pool stage of five rounds (a Ganda pool of five pairs): the page does not count them.
  const view = knockoutView(2);
  view.rounds = view.rounds.map((r) => ({ ...r, stage: 'pool' }));
  const layout = bracketLayout(view);
  assert.deepEqual(layout.columns, []);
  assert.deepEqual(layout.pools[0].rounds.map((r) => r.number), [1, 2, 3, 4, 5]);
});

test('the bracket layout: each pool\'s tables by round, then the bracket\'s rounds as columns', () => {
  const layout = bracketLayout(knockoutView(2));
  assert.deepEqual(layout.pools.map((p) => p.name), ['A', 'B']);
  for (const pool of layout.pools) {
    assert.deepEqual(pool.rounds.map((r) => r.number), [1, 2, 3]);
    for (const r of pool.rounds) {
      assert.equal(r.tables.length, 2);
      assert.ok(r.tables.every((x) => x.entrants.every((id) => pool.members.includes(id))), `pool ${pool.name} round ${r.number}`);
    }
  }
  assert.deepEqual(layout.columns.map((c) => [c.number, c.tables.length]), [[4, 2], [5, 1]]);
  assert.equal(layout.final, true, 'the last column of one table is the final');
  const semis = bracketLayout(knockoutView(1));
  assert.deepEqual(semis.columns.map((c) => c.number), [4]);
  assert.equal(semis.final, false);
  assert.deepEqual(bracketLayout(knockoutView(0)).columns, []);
});

test('no bracket for a Swiss or a knockout before its pools are drawn; a knockout straight to the final', () => {
  assert.equal(bracketLayout(swissView()), null);
  assert.equal(bracketLayout({ ...knockoutView(0), pools: null, rounds: [] }), null);
  const straight = bracketLayout({ ...knockoutView(0), pools: [], rounds: [{ number: 1, status: 'paired', stage: 'bracket', byes: [], tables: [{ number: 1, code: null, entrants: [1, 2], result: null }] }] });
  assert.deepEqual(straight.pools, []);
  assert.deepEqual(straight.columns.map((c) => c.number), [1]);
  assert.equal(straight.final, true);
});

test('a local start time goes as ISO 8601 with the browser\'s offset, naming the same instant', () => {
  const value = '2026-12-20T10:00';
  const iso = isoWithOffset(value);
  assert.match(iso, /^2026-12-20T10:00:00[+-]\d\d:\d\d$/);
  assert.equal(new Date(iso).getTime(), new Date(value).getTime());
  assert.equal(isoWithOffset(''), null);
  assert.equal(isoWithOffset('not a date'), null);
  assert.equal(localInputValue(new Date(2026, 0, 2, 3, 4)), '2026-01-02T03:04');
});

const RULES = {
  formats: ['swiss', 'knockout'], modes: ['tunggal', 'ganda'], name_length: [3, 60], rounds: [1, 15],
  entrants: [4, 1024], table_entrants: { tunggal: 4, ganda: 2 }, defaults: { rounds: 5, max_entrants: 64 },
};

test('the create form starts from the served defaults and sends the API\'s body', () => {
  const now = new Date(2026, 11, 3, 10, 25);
  const d = tournamentDraft(RULES, { preset: 'pordi', mode: 'tunggal', turn_seconds: 30 }, now);
  assert.deepEqual([d.format, d.mode, d.rounds, d.min_entrants, d.max_entrants, d.rated, d.public],
    ['swiss', 'tunggal', 5, 4, 64, false, true]);
  assert.equal(d.starts_at, '2026-12-03T11:00', 'the next full hour after an hour from now');
  d.name = '  Piala RT 05  ';
  const keys = (s) => ({ preset: s.preset, turn_seconds: s.turn_seconds, mode: s.mode });
  const body = tournamentPayload(d, keys);
  assert.equal(body.name, 'Piala RT 05');
  assert.equal(body.rounds, 5);
  assert.deepEqual(body.settings, { preset: 'pordi', turn_seconds: 30, mode: 'tunggal' });
  assert.equal(new Date(body.starts_at).getTime(), new Date(2026, 11, 3, 11, 0).getTime());
  const knockout = tournamentPayload({ ...d, format: 'knockout', mode: 'ganda' }, keys);
  assert.ok(!('rounds' in knockout), 'a knockout takes no rounds');
  assert.equal(knockout.settings.mode, 'ganda', 'the sets are played in the tournament\'s mode');
});
