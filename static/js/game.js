// The table as this client draws it: the latest snapshot's view, read into the shape the views
// use. Pure functions (no DOM), checked under node (static/js/tests/game.test.js).
//
// The server follows every batch of events with a snapshot (docs/PROTOCOL.md §3), so the table is
// drawn from snapshots alone; events only drive effects (effects.js). Legal placements and their
// points come from the snapshot too: the client never computes a rule.

export const POSITIONS = ['bottom', 'left', 'top', 'right'];
// A Klasik table of five: the two seats across share the top edge.
export const POSITIONS_5 = ['bottom', 'left', 'top-left', 'top-right', 'right'];

/** "6-3" -> [6, 3] as written; null when malformed. */
export function parseTile(text) {
  const m = /^\s*(\d)\s*-\s*(\d)\s*$/.exec(String(text ?? ''));
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** The canonical name of a tile, low-high: "3-6". */
export function tileKey(text) {
  const t = parseTile(text);
  if (!t) return String(text);
  return t[0] <= t[1] ? `${t[0]}-${t[1]}` : `${t[1]}-${t[0]}`;
}

const tiles = (list) => (Array.isArray(list) ? list.map(tileKey) : null);
const numbers = (list) => (Array.isArray(list) ? list.slice() : null);
const numberOr = (x, fallback) => (typeof x === 'number' ? x : fallback);

function normLegal(list) {
  return (list || []).map((x) => ({
    tile: tileKey(x.tile),
    end: x.end ?? null, // "left" | "right" | "discard" | null (one end fits, or the opening)
    points: numberOr(x.domi_points, null),
    discard: x.end === 'discard',
  }));
}

function normResult(r) {
  if (!r) return null;
  return {
    end: r.end ?? null,
    result: r.result ?? null,
    winner: numberOr(r.winner, null),
    points: r.points || [],
    pips: r.pips || [],
    hands: Array.isArray(r.hands) ? r.hands.map(tiles) : null,
    seat: numberOr(r.seat, null),
    tile: r.tile ?? null,
    // Klasik: each seat's count (pips + discards), the discarded tiles, the set-aside tiles.
    counts: numbers(r.counts),
    discards: Array.isArray(r.discards) ? r.discards.map(tiles) : null,
    setAside: tiles(r.set_aside),
  };
}

function normSetResult(r) {
  if (!r) return null;
  return { winners: r.winners || [], team: r.team ?? null, scores: r.scores || [], deals: numberOr(r.deals, null) };
}

/** The score sheet's row for a finished deal (the view's `deals`). */
function normDeal(d) {
  if (!d || typeof d !== 'object' || typeof d.deal !== 'number') return null;
  return {
    deal: d.deal,
    end: d.end || null,
    result: d.result || null,
    winner: numberOr(d.winner, null),
    seat: numberOr(d.seat, null),
    points: Array.isArray(d.points) ? d.points.slice() : [],
  };
}

/** The snapshot's `view` (PROTOCOL §3 "Views") in the client's spelling. */
export function normView(raw) {
  if (!raw) return null;
  const line = (raw.line || []).map((x) => parseTile(x.tile));
  // Klasik's face-up start tile lies in the line, placed by nobody (seat null).
  const start = raw.start ? raw.line.findIndex((x) => x.seat === null) : -1;
  return {
    preset: raw.preset,
    scoring: raw.scoring,
    start: raw.start ?? null,
    startIndex: start >= 0 ? start : null,
    setAside: raw.set_aside,
    boneyard: numberOr(raw.boneyard, null), // Draw Domino only
    stuck: raw.stuck,
    discards: tiles(raw.discards),
    discardCounts: raw.discard_counts.slice(),
    mode: raw.mode,
    players: raw.players,
    viewer: numberOr(raw.viewer, null),
    phase: raw.phase,
    dealNumber: raw.deal_number,
    additional: Boolean(raw.additional_game),
    turn: numberOr(raw.turn, null),
    opener: numberOr(raw.opener, null),
    hand: tiles(raw.hand),
    counts: raw.counts.slice(),
    line,
    ends: raw.ends ? [raw.ends.left, raw.ends.right] : null,
    scores: raw.scores.slice(),
    teams: raw.teams,
    legal: normLegal(raw.legal),
    lastResult: normResult(raw.last_result),
    setResult: normSetResult(raw.set_result),
    deals: Array.isArray(raw.deals) ? raw.deals.map(normDeal).filter(Boolean) : [],
    // A fair deal (docs/FAIRNESS.md): its commitment, how it was dealt, its secret once over.
    commitment: typeof raw.commitment === 'string' ? raw.commitment : null,
    dealing: raw.dealing && typeof raw.dealing === 'object' ? raw.dealing : null,
    secret: typeof raw.secret === 'string' ? raw.secret : null,
    dealtHand: null, // this seat's hand as dealt, when it saw the deal before its first move
  };
}

export function emptyGame() {
  return { set: null, seq: 0, view: null, clock: null, clockAt: 0, anchor: 0, nextDeal: null };
}

function normClock(clock) {
  if (!clock) return null;
  return { seat: clock.seat, remainingMs: numberOr(clock.remaining_ms, null), deadline: clock.deadline ?? null };
}

function normNextDeal(next) {
  if (!next) return null;
  return { remainingMs: numberOr(next.remaining_ms, null), deadline: next.deadline ?? null };
}

/** Milliseconds until the set's next deal starts (between deals), or null. */
export function nextDealMs(game, now) {
  return leftNow(game.nextDeal, game.clockAt, now);
}

/**
 * A fair deal is checked against what this client saw when the deal opened, never against a
 * later word: the first commitment it was shown, and its own hand as dealt if it saw the deal
 * before its first move (nothing on the line but a face-up start tile, a full hand).
 */
function keepOpening(view, before) {
  if (before) {
    view.commitment = before.commitment || view.commitment;
    view.dealtHand = before.dealtHand;
    return;
  }
  const untouched = view.line.length === (view.startIndex !== null ? 1 : 0);
  if (view.phase === 'playing' && untouched && view.hand && view.dealing
      && view.hand.length === view.dealing.hand_size) view.dealtHand = view.hand.slice();
}

/** Milliseconds left on the clock now: the server's remaining_ms minus time since it arrived. */
export function remainingMs(game, now) {
  return leftNow(game.clock, game.clockAt, now);
}

/** A server time's remainingMs (received at `at`) as it stands at `now`, or null. */
function leftNow(timed, at, now) {
  if (!timed || timed.remainingMs === null) return null;
  return Math.max(0, timed.remainingMs - (now - at));
}

/** Where `inner` (a run of tiles) lies inside `outer`, or -1. */
function offsetIn(outer, inner) {
  const same = (a, b) => a[0] === b[0] && a[1] === b[1];
  for (let k = 0; k + inner.length <= outer.length; k += 1) {
    if (inner.every((tile, i) => same(tile, outer[k + i]))) return k;
  }
  return -1;
}

/**
 * Which tile of the line is the opening one (board.js lays the line out around it). Klasik's
 * start tile is; a line that grew from the one drawn before keeps its opening tile, shifted by
 * the tiles added on the left; a deal's first tile is; otherwise (a first snapshot, a resync)
 * the opening is unknown and the middle of the line draws well.
 */
export function anchorOf(view, before, beforeAnchor) {
  if (view.startIndex !== null) return view.startIndex;
  if (before && before.line.length) {
    const k = offsetIn(view.line, before.line);
    if (k >= 0) return beforeAnchor + k;
  }
  if (before && !before.line.length && view.line.length === 1) return 0;
  return view.line.length ? Math.floor((view.line.length - 1) / 2) : 0;
}

/** The game after a `snapshot` message: its view replaces the old one. */
export function applySnapshot(game, msg, now) {
  const view = normView(msg.view);
  const sameDeal = Boolean(game.view && msg.set === game.set && view.dealNumber === game.view.dealNumber);
  keepOpening(view, sameDeal ? game.view : null);
  return {
    set: msg.set,
    seq: msg.seq,
    view,
    clock: normClock(msg.clock),
    nextDeal: normNextDeal(msg.next_deal),
    clockAt: now,
    anchor: anchorOf(view, sameDeal ? game.view : null, game.anchor),
  };
}

/** legal entries grouped by tile: Map "a-b" -> [{end, points, discard}, ...]. */
export function legalByTile(legal) {
  const map = new Map();
  for (const entry of legal || []) {
    if (!map.has(entry.tile)) map.set(entry.tile, []);
    map.get(entry.tile).push(entry);
  }
  return map;
}

export function isMyTurn(view, viewer) {
  return Boolean(view && view.phase === 'playing' && viewer !== null && view.turn === viewer);
}

/**
 * What a tap on `tile` in the hand does, from the snapshot's legal entries:
 * {play: end} (end as the entry has it: null, "left", "right" or "discard"), {choose: true} (it
 * fits both ends, to different effect: ask which), or null (not playable now).
 *
 * A tile that fits both ends with the same result (both open ends show the same number, and both
 * entries score the same) is played without asking, on the shorter arm of the line so it keeps
 * its shape.
 */
export function tapTile(game, viewer, tile) {
  const view = game.view;
  if (!isMyTurn(view, viewer)) return null;
  const entries = legalByTile(view.legal).get(tile);
  if (!entries) return null;
  const left = entries.find((e) => e.end === 'left');
  const right = entries.find((e) => e.end === 'right');
  if (!left || !right) return { play: entries[0].end };
  const alike = view.ends && view.ends[0] === view.ends[1] && left.points === right.points;
  if (!alike) return { choose: true };
  const leftArm = game.anchor;
  const rightArm = view.line.length - 1 - game.anchor;
  return { play: leftArm <= rightArm ? 'left' : 'right' };
}

/** The seat drawn at the bottom: your own, or seat 0 for a spectator. */
export function bottomSeat(role, seat) {
  return role === 'seat' && typeof seat === 'number' ? seat : 0;
}

/** Where seat s is drawn: play goes clockwise on screen, bottom -> left -> top -> right. */
export function positionOf(seatNo, bottom, players = 4) {
  const rel = (((seatNo - bottom) % players) + players) % players;
  if (players === 5) return POSITIONS_5[rel] || 'top-left';
  return POSITIONS[rel] || 'top';
}

export function partnerOf(seatNo, view) {
  if (!view || view.mode !== 'ganda') return null;
  const team = view.teams.find((tm) => tm.includes(seatNo));
  return team ? team.find((x) => x !== seatNo) ?? null : null;
}

export function teamIndexOf(seatNo, view) {
  const i = Array.isArray(view && view.teams) ? view.teams.findIndex((tm) => tm.includes(seatNo)) : -1;
  return i >= 0 ? i : seatNo % 2;
}
