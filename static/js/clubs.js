// Pure: what the club pages read from a club (the body of GET /api/clubs/{id}, docs/API.md
// "Clubs") and from a team battle's tournament view (`club_battle`, `club_standings`,
// `entrants[].club`): the viewer's membership and role, who may succeed the last leader, the
// leaderboard's modes, a battle's ranking of clubs in names, the clubs an entry may play for,
// and the club fields of the room and tournament forms. No DOM, no fetch:
// static/js/tests/clubs.test.js runs it under node.

import { entrantLabel } from './tournament.js';

/** A club's page (the route of views/clubs.js), and the list's. */
export const clubPath = (id) => `/klub/${id}`;
export const CLUBS_PATH = '/klub';

// The server's words for a member's role (docs/API.md "Clubs": `role`).
const LEADER = 'leader';

/** The viewer's membership of the club ({player_id, name, role, …}), or null. */
export function memberOf(club, playerId) {
  if (!club || !playerId) return null;
  return (club.members || []).find((m) => m.player_id === playerId) || null;
}

export function isLeader(club, playerId) {
  const m = memberOf(club, playerId);
  return Boolean(m && m.role === LEADER);
}

/** Whether a member is a leader (the server's role). */
export const leads = (member) => Boolean(member && member.role === LEADER);

/** The members a leader leaving may name to lead after them: every other member who is no
 * leader yet (the server says when a successor is needed: `409 last_leader`). */
export function successorChoices(club, playerId) {
  return (club && club.members ? club.members : []).filter((m) => m.player_id !== playerId && !leads(m));
}

/** The leaderboard's modes, in the server's order, and one mode's rows (`[]` when absent). */
export function boardModes(club) {
  return club && club.leaderboard && typeof club.leaderboard === 'object' ? Object.keys(club.leaderboard) : [];
}

export function boardRows(club, mode) {
  const rows = club && club.leaderboard ? club.leaderboard[mode] : null;
  return Array.isArray(rows) ? rows : [];
}

/** Whether a tournament view is a team battle. */
export const isBattle = (view) => Boolean(view && view.club_battle && Array.isArray(view.club_battle.clubs));

/**
 * A battle's ranking of clubs as the page shows it: [{rank, club, points, counted: [names]}]
 * in the server's order (its `club_standings`; app/tournaments/standings.py is the rule's home).
 */
export function clubStandingRows(view) {
  if (!isBattle(view) || !Array.isArray(view.club_standings)) return [];
  return view.club_standings.map((row) => ({
    rank: row.rank,
    club: row.club,
    points: row.points,
    counted: (row.counted || []).map((id) => entrantLabel(view, id)),
  }));
}

/** The battle's clubs the player belongs to (`mine`: the player's clubs [{id, name}]). An entry
 * names one (`club_id`) only when there are several. */
export function battleClubsFor(view, mine) {
  if (!isBattle(view) || !Array.isArray(mine)) return [];
  const ids = new Set(mine.map((c) => c.id));
  return view.club_battle.clubs.filter((c) => ids.has(c.id));
}

/** The body of an entry: a pair's partner, and in a battle the club chosen when it must be. */
export function entryBody(view, mine, chosenClub, partnerId = null) {
  const body = partnerId ? { partner_id: partnerId } : {};
  if (battleClubsFor(view, mine).length > 1 && chosenClub) body.club_id = Number(chosenClub);
  return body;
}

/** The room form's club: `{club_id}` when one is chosen (`''` or null: none). */
export function roomClubField(clubId) {
  return clubId ? { club_id: Number(clubId) } : {};
}

/**
 * The club fields of a tournament's body: a club event (`club_id`), or a team battle
 * (`club_battle: {clubs, best}`) when `battle` lists clubs; a tournament of no club adds
 * nothing. One or the other, never both (the server refuses both together).
 */
export function tournamentClubFields(d) {
  if (d.battle && Array.isArray(d.battle.clubs) && d.battle.clubs.length) {
    return { club_battle: { clubs: d.battle.clubs.map((c) => c.id), best: d.battle.best } };
  }
  return d.club_id ? { club_id: Number(d.club_id) } : {};
}

/** A battle's clubs with one more (listed once), or without one. */
export function withClub(list, club) {
  return list.some((c) => c.id === club.id) ? list : [...list, { id: club.id, name: club.name }];
}

export const withoutClub = (list, id) => list.filter((c) => c.id !== id);
