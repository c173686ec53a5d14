// A stored deal (GET /api/sets/{id}, docs/API.md) after its first `upto` moves, for the replay
// page: the view the table would have been sent then (PROTOCOL §3 "Views", as a spectator, read
// by game.js's normView like any snapshot), where the opening tile lies, and every hand face up.
// Pure: checked under node (tests/deal_position.test.js).

import { normView, parseTile } from './game.js';

export function finishedDeals(data) {
  return data.deals.filter((d) => d.status === 'finished');
}

export function positionAt(data, dealIndex, upto) {
  const deals = finishedDeals(data);
  const deal = deals[dealIndex];
  const n = data.players;
  const moves = deal.moves.slice(0, upto);
  const done = upto >= deal.moves.length;
  const hands = deal.hands.map((hand) => hand.slice());
  const discards = deal.hands.map(() => []);
  let boneyard = deal.set_aside.length;
  const draw = (list) => {
    for (const d of list || []) {
      hands[d.seat].push(d.tile);
      boneyard -= 1;
    }
  };
  // The line is rebuilt as the API says: a move's `placed` tile prepended (`left`) or appended.
  const start = deal.start ? parseTile(deal.start) : null;
  let line = start ? [{ tile: deal.start, seat: null }] : [];
  let ends = start ? { left: start[0], right: start[1] } : null;
  let anchor = 0;
  draw(deal.draws);
  for (const m of moves) {
    hands[m.seat] = hands[m.seat].filter((tile) => tile !== m.tile);
    if (m.end === 'discard') discards[m.seat].push(m.tile);
    else if (m.end === 'left') {
      line = [{ tile: m.placed, seat: m.seat }, ...line];
      anchor += 1;
    } else line = [...line, { tile: m.placed, seat: m.seat }];
    ends = m.ends;
    draw(m.draws);
  }
  const before = dealIndex > 0 ? deals[dealIndex - 1].scores : Array(n).fill(0);
  const next = done ? null : deal.moves[upto];
  const rules = data.rules || {};
  const drawing = rules.stuck === 'draw';
  const view = normView({
    viewer: null,
    preset: data.preset,
    mode: data.mode,
    scoring: rules.scoring,
    stuck: rules.stuck,
    players: n,
    phase: done ? 'deal_over' : 'playing',
    deal_number: deal.number,
    additional_game: deal.additional,
    scores: done ? deal.scores : before,
    teams: null,
    turn: next ? next.seat : null,
    opener: deal.opener,
    hand: null,
    counts: hands.map((hand) => hand.length),
    start: deal.start,
    line,
    ends,
    set_aside: drawing ? boneyard : deal.set_aside.length,
    boneyard: drawing ? boneyard : null,
    discards: null,
    discard_counts: discards.map((list) => list.length),
    legal: [],
    last_result: done ? { ...deal.result, points: deal.points } : null,
    set_result: null,
  });
  return {
    deal,
    view,
    anchor,
    hands,
    discards,
    last: upto > 0 ? deal.moves[upto - 1] : null,
    next,
    done,
  };
}
