// Where every player (Tunggal) or team (Ganda) stands in a set, from the snapshot's scores and
// the server's set result. Pure (no DOM), so node can check it. No rule is decided here: the
// server names the winners, and their total says whether the most or the fewest points lead
// (penalty scoring: the fewest).

/** The columns of a score sheet: one per team in Ganda ([[0, 2], [1, 3]]), else one per seat. */
export function sides(view) {
  if (view.mode === 'ganda' && Array.isArray(view.teams) && view.teams.length) {
    return view.teams.map((team) => team.slice());
  }
  return view.scores.map((_, seat) => [seat]);
}

/**
 * [{seats, total, place, tied, winner}], best first. Places are shared on a tie (1, 2, 2, 4);
 * the set's winners are first (place 1) whatever their total.
 */
export function standings(view) {
  const groups = sides(view);
  const totals = groups.map((seats) => view.scores[seats[0]] ?? 0);
  const winners = (view.setResult && view.setResult.winners) || [];
  const isWinner = (seats) => seats.some((s) => winners.includes(s));
  const best = groups.findIndex(isWinner);
  const fewestLead = best >= 0 && totals[best] === Math.min(...totals) && totals[best] !== Math.max(...totals);
  const order = groups.map((seats, i) => i).sort((a, b) => {
    const wa = isWinner(groups[a]);
    const wb = isWinner(groups[b]);
    if (wa !== wb) return wa ? -1 : 1;
    const diff = fewestLead ? totals[a] - totals[b] : totals[b] - totals[a];
    return diff || a - b;
  });
  const out = [];
  order.forEach((i, rank) => {
    const prev = out[rank - 1];
    const winner = isWinner(groups[i]);
    const same = prev && prev.total === totals[i] && prev.winner === winner;
    out.push({ seats: groups[i], total: totals[i], place: same ? prev.place : rank + 1, tied: false, winner });
  });
  for (const entry of out) entry.tied = out.filter((x) => x.place === entry.place).length > 1;
  return out;
}

/** The entry that holds `seat` (a spectator's null: none). */
export function standingOf(list, seat) {
  if (seat === null || seat === undefined) return null;
  return list.find((entry) => entry.seats.includes(seat)) || null;
}
