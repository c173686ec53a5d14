// The table as this client knows it: built only from the server's snapshots and events.
// Pure functions (no DOM), so they can be checked with node.
//
// The server follows every batch of events with a snapshot (docs/PROTOCOL.md §3): events are
// applied as they come so passes and placements can be shown as they happen, and the snapshot
// then replaces the view (legal placements and their points come only from snapshots; the client
// never computes a rule). normView() reads the documented view (line as [{tile: "l-r", seat}],
// ends as {left, right}, legal[].domi_points, additional_game) and, defensively, the older
// draft's spellings (line as [[l, r]], ends as [l, r], legal[].points, additional).

export const POSITIONS = ['bottom', 'left', 'top', 'right'];
// A Klasik table of five: the two seats across share the top edge.
export const POSITIONS_5 = ['bottom', 'left', 'top-left', 'top-right', 'right'];

/** "6-3" -> [6, 3] as written; null when malformed. */
export function parseTile(text) {
  if (Array.isArray(text) && text.length === 2) return [Number(text[0]), Number(text[1])];
  if (text && typeof text === 'object' && 'tile' in text) return parseTile(text.tile);
  const m = /^\s*(\d)\s*-\s*(\d)\s*$/.exec(String(text ?? ''));
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** The canonical name of a tile, low-high: "3-6". */
export function tileKey(text) {
  const t = parseTile(text);
  if (!t) return String(text);
  return t[0] <= t[1] ? `${t[0]}-${t[1]}` : `${t[1]}-${t[0]}`;
}

function normEnds(ends) {
  if (Array.isArray(ends) && ends.length === 2 && ends.every((x) => typeof x === 'number')) {
    return [ends[0], ends[1]];
  }
  if (ends && typeof ends === 'object' && typeof ends.left === 'number') {
    return [ends.left, ends.right];
  }
  return null;
}

function normLegal(list) {
  if (!Array.isArray(list)) return [];
  return list
    .filter((x) => x && (typeof x.tile === 'string' || Array.isArray(x.tile)))
    .map((x) => {
      let points = null;
      if (typeof x.points === 'number') points = x.points;
      else if (typeof x.domi_points === 'number') points = x.domi_points;
      const discard = x.discard === true || x.end === 'discard';
      return {
        tile: tileKey(x.tile),
        end: discard ? 'discard' : x.end === 'left' || x.end === 'right' ? x.end : null,
        points,
        discard,
      };
    });
}

function normResult(r) {
  if (!r || typeof r !== 'object') return null;
  return {
    end: r.end || null,
    result: r.result || null,
    winner: typeof r.winner === 'number' ? r.winner : null,
    points: Array.isArray(r.points) ? r.points : [],
    pips: Array.isArray(r.pips) ? r.pips : [],
    hands: Array.isArray(r.hands) ? r.hands.map((h) => (Array.isArray(h) ? h.map(tileKey) : [])) : null,
    seat: typeof r.seat === 'number' ? r.seat : null,
    tile: typeof r.tile === 'string' ? r.tile : null,
    scores: Array.isArray(r.scores) ? r.scores : null,
    // Klasik: each seat's count (pips + discards), the discarded tiles, the set-aside tiles.
    counts: Array.isArray(r.counts) ? r.counts : null,
    discards: Array.isArray(r.discards)
      ? r.discards.map((d) => (Array.isArray(d) ? d.map(tileKey) : [])) : null,
    setAside: Array.isArray(r.set_aside) ? r.set_aside.map(tileKey) : null,
    dealNumber: typeof r.deal_number === 'number' ? r.deal_number : null,
  };
}

function normSetResult(r) {
  if (!r || typeof r !== 'object') return null;
  let winners = [];
  if (Array.isArray(r.winners)) winners = r.winners;
  else if (typeof r.winner === 'number') winners = [r.winner];
  return {
    winners,
    team: r.team ?? null,
    scores: Array.isArray(r.scores) ? r.scores : [],
    deals: typeof r.deals === 'number' ? r.deals : null,
  };
}

/** The score sheet's row for a finished deal (the view's `deals`, or a `deal_ended` event). */
function normDeal(d, dealNumber = null) {
  if (!d || typeof d !== 'object') return null;
  const deal = typeof d.deal === 'number' ? d.deal : dealNumber;
  if (typeof deal !== 'number') return null;
  return {
    deal,
    end: d.end || null,
    result: d.result || null,
    winner: typeof d.winner === 'number' ? d.winner : null,
    seat: typeof d.seat === 'number' ? d.seat : null,
    points: Array.isArray(d.points) ? d.points.slice() : [],
  };
}

export function normView(raw) {
  if (!raw || typeof raw !== 'object') return null;
  // The engine's view always says how many players (and counts one tile total per seat).
  const players = typeof raw.players === 'number' ? raw.players : (Array.isArray(raw.counts) ? raw.counts.length : 0);
  const zeros = Array(players).fill(0);
  const line = Array.isArray(raw.line) ? raw.line.map(parseTile).filter(Boolean) : [];
  // The Klasik start tile lies in the line placed by nobody (seat null).
  let startIndex = null;
  if (raw.start && Array.isArray(raw.line)) {
    const i = raw.line.findIndex((x) => x && typeof x === 'object' && !Array.isArray(x) && x.seat === null);
    startIndex = i >= 0 ? i : null;
  }
  return {
    preset: raw.preset || null,
    scoring: raw.scoring || 'fixed',
    start: typeof raw.start === 'string' ? raw.start : null,
    startIndex,
    setAside: typeof raw.set_aside === 'number' ? raw.set_aside : 0,
    boneyard: typeof raw.boneyard === 'number' ? raw.boneyard : null, // Draw Domino only
    stuck: typeof raw.stuck === 'string' ? raw.stuck : null,
    discards: Array.isArray(raw.discards) ? raw.discards.map(tileKey) : null,
    discardCounts: Array.isArray(raw.discard_counts) ? raw.discard_counts.slice() : zeros.slice(),
    mode: raw.mode === 'ganda' ? 'ganda' : 'tunggal',
    players,
    viewer: typeof raw.viewer === 'number' ? raw.viewer : null,
    phase: raw.phase || 'ready',
    dealNumber: typeof raw.deal_number === 'number' ? raw.deal_number : 0,
    additional: Boolean(raw.additional ?? raw.additional_game),
    turn: typeof raw.turn === 'number' ? raw.turn : null,
    hand: Array.isArray(raw.hand) ? raw.hand.map(tileKey) : null,
    counts: Array.isArray(raw.counts) ? raw.counts.slice() : zeros.slice(),
    line,
    ends: normEnds(raw.ends) || (line.length ? [line[0][0], line[line.length - 1][1]] : null),
    scores: Array.isArray(raw.scores) ? raw.scores.slice() : zeros.slice(),
    teams: Array.isArray(raw.teams) ? raw.teams : null,
    legal: normLegal(raw.legal),
    lastResult: normResult(raw.last_result),
    setResult: normSetResult(raw.set_result),
    deals: Array.isArray(raw.deals) ? raw.deals.map((d) => normDeal(d)).filter(Boolean) : [],
    // A fair deal (docs/FAIRNESS.md): its commitment, how it was dealt, its secret once over.
    commitment: typeof raw.commitment === 'string' ? raw.commitment : null,
    dealing: raw.dealing && typeof raw.dealing === 'object' ? raw.dealing : null,
    secret: typeof raw.secret === 'string' ? raw.secret : null,
    dealtHand: null, // this seat's hand as dealt, when it saw the deal open
  };
}

export function emptyGame() {
  return {
    set: null,
    seq: 0,
    view: null,
    clock: null,
    clockAt: 0,
    anchor: 0,
    fresh: null,
  };
}

function normClock(clock) {
  if (!clock || typeof clock !== 'object' || typeof clock.seat !== 'number') return null;
  const remaining = typeof clock.remaining_ms === 'number' ? clock.remaining_ms : null;
  return { seat: clock.seat, remainingMs: remaining, deadline: clock.deadline ?? null };
}

/** Milliseconds left on the clock now: the server's remaining_ms minus time since it arrived. */
export function remainingMs(game, now) {
  if (!game.clock || game.clock.remainingMs === null) return null;
  return Math.max(0, game.clock.remainingMs - (now - game.clockAt));
}

function sameLine(a, b) {
  return a.length === b.length && a.every((t, i) => t[0] === b[i][0] && t[1] === b[i][1]);
}

export function applySnapshot(game, msg, now) {
  const view = normView(msg.view);
  const setNo = typeof msg.set === 'number' ? msg.set : game.set;
  // The snapshot that closes a batch shows the line we just built from its events: keep where
  // the opening tile sits and which tile is new, so nothing jumps. Otherwise (a first snapshot,
  // a resync) the opening tile's place is unknown, and the middle of the line draws well.
  const same = Boolean(
    view && game.view && setNo === game.set && view.dealNumber === game.view.dealNumber
      && sameLine(view.line, game.view.line),
  );
  let anchor = view && view.line.length ? Math.floor((view.line.length - 1) / 2) : 0;
  if (same) anchor = game.anchor;
  if (view && game.view && setNo === game.set && view.dealNumber === game.view.dealNumber) {
    // A deal is checked against what was shown when it opened, never against a later word.
    view.commitment = game.view.commitment || view.commitment;
    view.dealtHand = game.view.dealtHand;
  }
  return {
    ...game,
    set: setNo,
    seq: typeof msg.seq === 'number' ? msg.seq : 0,
    view,
    clock: normClock(msg.clock),
    clockAt: now,
    anchor,
    fresh: same ? game.fresh : null,
  };
}

/** Which end a `played` tile went to: the server's own word when it gives one, else the ends. */
function sideOf(ev, line, placed, ends) {
  if (!line.length) return null;
  if (ev.line_side === 'left' || ev.line_side === 'right') return ev.line_side;
  if (ev.end === 'left' || ev.end === 'right') return ev.end;
  const L = line[0][0];
  const R = line[line.length - 1][1];
  if (placed && ends) {
    if (placed[1] === L && placed[0] === ends[0] && ends[1] === R) return 'left';
    if (placed[0] === R && placed[1] === ends[1] && ends[0] === L) return 'right';
  }
  if (ends && ends[1] === R && ends[0] !== L) return 'left';
  return 'right';
}

/**
 * Apply one `event` message. Returns {game, status, effects}:
 * status "applied" | "duplicate" (already seen, ignored) | "gap" (resync needed).
 * effects describe what happened for announcements and badges.
 */
export function applyEvent(game, msg, now, viewer) {
  const ev = msg.event || {};
  const setNo = typeof msg.set === 'number' ? msg.set : game.set;
  const seq = msg.seq;
  if (!game.view) return { game, status: 'gap', effects: [] };
  let view = game.view;
  let anchor = game.anchor;
  if (setNo !== game.set) {
    // A new set that starts with its first event (the server may send no snapshot on start).
    if (!(game.set === null || setNo > game.set) || seq !== 1) return { game, status: 'gap', effects: [] };
    view = freshSetView(view);
  } else if (typeof seq === 'number' && seq <= game.seq) {
    return { game, status: 'duplicate', effects: [] };
  } else if (typeof seq === 'number' && seq !== game.seq + 1) {
    return { game, status: 'gap', effects: [] };
  }

  const clock = normClock(msg.clock);
  const effects = [];
  let fresh = game.fresh;
  view = { ...view };
  switch (ev.kind) {
    case 'deal_started': {
      const hand = Array.isArray(ev.hand) ? ev.hand.map(tileKey) : null;
      if (viewer !== null && viewer !== undefined && !hand) {
        return { game, status: 'gap', effects: [] }; // we hold a seat but got no hand: resync
      }
      view.phase = 'playing';
      view.dealNumber = typeof ev.deal_number === 'number' ? ev.deal_number : view.dealNumber + 1;
      view.additional = Boolean(ev.additional ?? ev.additional_game);
      view.hand = viewer === null || viewer === undefined ? null : hand;
      view.counts = Array.isArray(ev.counts) ? ev.counts.slice() : view.counts.map(() => (hand ? hand.length : 7));
      view.line = [];
      view.ends = null;
      view.startIndex = null;
      view.start = typeof ev.start === 'string' ? ev.start : null;
      if (view.start && parseTile(view.start)) {
        // Klasik: the face-up start tile is already on the line.
        view.line = [parseTile(view.start)];
        view.ends = [view.line[0][0], view.line[0][1]];
        view.startIndex = 0;
      }
      if (typeof ev.set_aside === 'number') {
        view.setAside = ev.set_aside;
        if (view.stuck === 'draw') view.boneyard = ev.set_aside; // Draw Domino: all of it is left
      }
      view.discards = view.hand ? [] : null;
      view.discardCounts = view.counts.map(() => 0);
      view.turn = typeof ev.opener === 'number' ? ev.opener : clock ? clock.seat : null;
      view.lastResult = null;
      view.commitment = typeof ev.commitment === 'string' ? ev.commitment : null;
      view.dealing = ev.dealing && typeof ev.dealing === 'object' ? ev.dealing : null;
      view.secret = null;
      view.dealtHand = view.hand;
      anchor = 0;
      fresh = null;
      effects.push({ kind: 'deal_started', dealNumber: view.dealNumber });
      break;
    }
    case 'played': {
      const seat = ev.seat;
      const key = tileKey(ev.tile);
      const ends = normEnds(ev.ends) || normEnds({ left: ev.left, right: ev.right });
      const line = view.line.slice();
      let placed = ev.placed ? parseTile(ev.placed) : null;
      const side = sideOf(ev, line, placed, ends);
      if (!side) {
        placed = placed || (ends ? [ends[0], ends[1]] : parseTile(ev.tile));
        line.splice(0, line.length, placed);
        anchor = 0;
      } else if (side === 'left') {
        placed = placed || [ends ? ends[0] : NaN, line[0][0]];
        line.unshift(placed);
        anchor += 1;
        if (typeof view.startIndex === 'number') view.startIndex += 1;
      } else {
        placed = placed || [line[line.length - 1][1], ends ? ends[1] : NaN];
        line.push(placed);
      }
      view.line = line;
      view.ends = ends || [line[0][0], line[line.length - 1][1]];
      if (Array.isArray(ev.counts)) view.counts = ev.counts.slice();
      else if (typeof seat === 'number') {
        view.counts = view.counts.slice();
        view.counts[seat] = Math.max(0, (view.counts[seat] || 0) - 1);
      }
      if (view.hand && seat === viewer) view.hand = view.hand.filter((t) => t !== key);
      view.turn = clock ? clock.seat : null;
      fresh = { index: side === 'left' ? 0 : line.length - 1, key, at: now };
      effects.push({ kind: 'played', seat, tile: key, auto: Boolean(ev.auto) });
      break;
    }
    case 'discarded': {
      // Klasik: a tile laid face down. Only the discarder's own event names the tile.
      const seat = ev.seat;
      if (typeof seat === 'number') {
        view.counts = view.counts.slice();
        view.counts[seat] = Math.max(0, (view.counts[seat] || 0) - 1);
        view.discardCounts = view.discardCounts.slice();
        view.discardCounts[seat] = (view.discardCounts[seat] || 0) + 1;
      }
      const key = ev.tile ? tileKey(ev.tile) : null;
      if (key && seat === viewer && view.hand) {
        view.hand = view.hand.filter((x) => x !== key);
        view.discards = [...(view.discards || []), key];
      }
      view.turn = clock ? clock.seat : null;
      effects.push({ kind: 'discarded', seat, tile: key, auto: Boolean(ev.auto) });
      break;
    }
    case 'drew': {
      // Draw Domino: a tile off the boneyard, face down; only the drawer's own event names it.
      const seat = ev.seat;
      if (typeof seat === 'number') {
        view.counts = view.counts.slice();
        view.counts[seat] = (view.counts[seat] || 0) + 1;
      }
      if (typeof ev.boneyard === 'number') view.boneyard = view.setAside = ev.boneyard;
      const key = ev.tile ? tileKey(ev.tile) : null;
      if (key && seat === viewer && view.hand && !view.hand.includes(key)) view.hand = [...view.hand, key];
      effects.push({ kind: 'drew', seat, tile: key, left: ev.boneyard });
      break;
    }
    case 'passed':
      if (clock) view.turn = clock.seat;
      effects.push({ kind: 'passed', seat: ev.seat });
      break;
    case 'deal_ended': {
      const result = normResult(ev);
      view.phase = 'deal_over';
      view.lastResult = result;
      view.secret = typeof ev.secret === 'string' ? ev.secret : null;
      view.scores = result.scores
        ? result.scores.slice()
        : view.scores.map((s, i) => s + (result.points[i] || 0));
      view.turn = null;
      // The score sheet gets its row now; the snapshot that follows brings the same one.
      const row = normDeal(ev, ev.deal_number ?? view.dealNumber);
      if (row) view.deals = [...(view.deals || []).filter((d) => d.deal !== row.deal), row];
      effects.push({ kind: 'deal_ended', result });
      break;
    }
    case 'set_ended':
      view.phase = 'set_over';
      view.setResult = normSetResult(ev);
      view.turn = null;
      effects.push({ kind: 'set_ended' });
      break;
    default:
      break; // an event this client does not draw (e.g. a redeal): nothing to show
  }

  // Legal placements come with the snapshot that closes this batch; until it arrives (a few
  // milliseconds), nothing is offered.
  view.legal = [];

  return {
    game: {
      ...game,
      set: setNo,
      seq: typeof seq === 'number' ? seq : game.seq,
      view,
      clock,
      clockAt: now,
      anchor,
      fresh,
    },
    status: 'applied',
    effects,
  };
}

function freshSetView(view) {
  const zeros = Array(view.players).fill(0);
  return {
    ...view,
    phase: 'ready',
    dealNumber: 0,
    additional: false,
    hand: view.hand ? [] : null,
    line: [],
    ends: null,
    start: null,
    startIndex: null,
    discards: view.hand ? [] : null,
    discardCounts: zeros.slice(),
    scores: zeros,
    legal: [],
    lastResult: null,
    setResult: null,
    deals: [],
    turn: null,
  };
}

/** legal entries grouped by tile: Map "a-b" -> [{end, points}, ...]. */
export function legalByTile(legal) {
  const map = new Map();
  for (const entry of legal || []) {
    if (!map.has(entry.tile)) map.set(entry.tile, []);
    map.get(entry.tile).push(entry);
  }
  return map;
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
  if (Array.isArray(view.teams)) {
    const team = view.teams.find((tm) => Array.isArray(tm) && tm.includes(seatNo));
    if (team) return team.find((x) => x !== seatNo) ?? null;
  }
  return (seatNo + 2) % view.players;
}

export function teamIndexOf(seatNo, view) {
  if (Array.isArray(view && view.teams)) {
    const i = view.teams.findIndex((tm) => Array.isArray(tm) && tm.includes(seatNo));
    if (i >= 0) return i;
  }
  return seatNo % 2;
}
