// node --test: what the club pages read from a club and from a team battle's view (clubs.js):
// the viewer's membership and role, who may succeed the last leader, the leaderboard's modes, a
// battle's ranking of clubs in names, the clubs an entry may play for, and the club fields of
// the room and tournament forms. Shapes are docs/API.md's "Clubs".

import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  clubPath, memberOf, isLeader, successorChoices, boardModes, boardRows, isBattle, clubStandingRows,
  battleClubsFor, entryBody, roomClubField, tournamentClubFields, withClub, withoutClub,
} from '../clubs.js';

const member = (n, role = 'member') => ({ player_id: `p${n}`, name: `Pemain ${n}`, role, joined_at: '2026-12-01T10:00:00Z', ratings: { tunggal: 1500, ganda: 1500 } });

function club() {
  return {
    id: 3, name: 'Gardu Melati', description: '', open: false, created_at: '2026-12-01T10:00:00Z', closed_at: null,
    members: [member(1, 'leader'), member(2), member(3)],
    events: [], tables: [],
    leaderboard: {
      tunggal: [{ position: 1, player_id: 'p2', name: 'Pemain 2', rating: 1540, rated_sets: 3 }],
      ganda: [],
    },
  };
}

const MELATI = { id: 3, name: 'Gardu Melati' };
const MAWAR = { id: 5, name: 'Gardu Mawar' };

function battleView() {
  const entrant = (id, n, c) => ({ id, player: { player_id: `p${n}`, name: `Pemain ${n}` }, partner: null, withdrawn: false, club: c });
  return {
    id: 9, mode: 'tunggal', club: null,
    club_battle: { clubs: [MELATI, MAWAR], best: 2 },
    entrants: [entrant(31, 1, MELATI), entrant(32, 2, MAWAR), entrant(33, 3, MELATI), entrant(34, 4, MAWAR)],
    club_standings: [
      { rank: 1, club: MAWAR, points: 4.5, counted: [32, 34] },
      { rank: 2, club: MELATI, points: 1.5, counted: [31, 33] },
    ],
  };
}

test("a club's page and the viewer's membership", () => {
  assert.equal(clubPath(3), '/klub/3');
  const c = club();
  assert.equal(memberOf(c, 'p2').name, 'Pemain 2');
  assert.equal(memberOf(c, 'p9'), null);
  assert.equal(memberOf(c, null), null);
  assert.ok(isLeader(c, 'p1'));
  assert.ok(!isLeader(c, 'p2'));
  assert.ok(!isLeader(c, 'p9'));
});

test('the last leader may hand over to any other member who is no leader', () => {
  const c = club();
  assert.deepEqual(successorChoices(c, 'p1').map((m) => m.player_id), ['p2', 'p3']);
  c.members[1].role = 'leader';
  assert.deepEqual(successorChoices(c, 'p1').map((m) => m.player_id), ['p3']);
  assert.deepEqual(successorChoices(null, 'p1'), []);
});

test("the leaderboard's modes are the server's, each with its rows", () => {
  const c = club();
  assert.deepEqual(boardModes(c), ['tunggal', 'ganda']);
  assert.equal(boardRows(c, 'tunggal')[0].rating, 1540);
  assert.deepEqual(boardRows(c, 'ganda'), []);
  assert.deepEqual(boardRows(c, 'klasik'), []);
  assert.deepEqual(boardModes({}), []);
});

test("a battle's clubs ranked as the server ranks them, their counted entrants by name", () => {
  const view = battleView();
  assert.ok(isBattle(view));
  assert.deepEqual(clubStandingRows(view), [
    { rank: 1, club: MAWAR, points: 4.5, counted: ['Pemain 2', 'Pemain 4'] },
    { rank: 2, club: MELATI, points: 1.5, counted: ['Pemain 1', 'Pemain 3'] },
  ]);
  assert.deepEqual(clubStandingRows({ ...view, club_battle: null }), []);
  assert.ok(!isBattle({ id: 1, entrants: [] }));
});

test('an entry names its club only when the player is in several of the battle\'s clubs', () => {
  const view = battleView();
  assert.deepEqual(battleClubsFor(view, [MELATI, { id: 8, name: 'Lain' }]), [MELATI]);
  assert.deepEqual(entryBody(view, [MELATI], '3'), {});
  assert.deepEqual(entryBody(view, [MELATI, MAWAR], '5'), { club_id: 5 });
  assert.deepEqual(entryBody(view, [MELATI, MAWAR], ''), {});
  assert.deepEqual(entryBody(view, [MELATI], '', 'p7'), { partner_id: 'p7' });
  assert.deepEqual(battleClubsFor({ id: 1, entrants: [] }, [MELATI]), []);
});

test("the forms' club fields: a club table, a club event, or a battle, never both", () => {
  assert.deepEqual(roomClubField(null), {});
  assert.deepEqual(roomClubField(''), {});
  assert.deepEqual(roomClubField('3'), { club_id: 3 });
  assert.deepEqual(tournamentClubFields({ club_id: null, battle: null }), {});
  assert.deepEqual(tournamentClubFields({ club_id: 3, battle: null }), { club_id: 3 });
  assert.deepEqual(tournamentClubFields({ club_id: 3, battle: { clubs: [MELATI, MAWAR], best: 2 } }),
    { club_battle: { clubs: [3, 5], best: 2 } });
  assert.deepEqual(tournamentClubFields({ club_id: null, battle: { clubs: [], best: 2 } }), {});
  const list = withClub(withClub([], MELATI), MELATI);
  assert.deepEqual(list, [MELATI]);
  assert.deepEqual(withoutClub(withClub(list, MAWAR), 3), [MAWAR]);
});
