// Pure: what the Tournaments page reads from a tournament's view (the body of GET
// /api/tournaments/{id}, docs/API.md "Tournaments", and the `tournament` of every frame of
// /ws/tournaments/{id}, docs/PROTOCOL.md): entrants by id and their names, the viewer's entry,
// invitation and table, a table's state, the knockout's pools and bracket as columns, the create
// form's payload. No DOM, no fetch: static/js/tests/tournament.test.js runs it under node.

/** A tournament's page (the route of views/tournaments.js). */
export const tournamentPath = (id) => `/turnamen/${id}`;

/** The list's tabs, in order: each is a `status` filter of GET /api/tournaments. */
export const TABS = ['upcoming', 'running', 'finished'];

/** The tab a tournament's status belongs to (a cancelled one is listed with the finished). */
export function tabOf(status) {
  if (status === 'registering') return 'upcoming';
  if (status === 'running') return 'running';
  return 'finished';
}

/** A view from a socket frame: its `tournament`, when it is one (else null: nothing to draw). */
export function frameView(frame) {
  const v = frame && typeof frame === 'object' ? frame.tournament : null;
  return v && typeof v === 'object' && typeof v.id === 'number' && Array.isArray(v.entrants) ? v : null;
}

export function entrantById(view, id) {
  return (view.entrants || []).find((e) => e.id === id) || null;
}

/** An entrant's name: the player, and in Ganda " & " the partner. */
export function entrantLabel(view, id) {
  const e = entrantById(view, id);
  if (!e) return `#${id}`;
  const names = [e.player && e.player.name, e.partner && e.partner.name].filter(Boolean);
  return names.join(' & ') || `#${id}`;
}

/** The players of an entrant (one, or the pair). */
export function entrantPlayers(entrant) {
  return [entrant.player, entrant.partner].filter(Boolean);
}

/** The entry the player holds (as its player or its partner, not withdrawn), or null. */
export function entryOf(view, playerId) {
  if (!view || !playerId) return null;
  return (view.entrants || []).find((e) => !e.withdrawn
    && entrantPlayers(e).some((p) => p.player_id === playerId)) || null;
}

/** A Ganda entry naming the player as partner and waiting for their confirmation, or null. */
export function inviteFor(view, playerId) {
  if (!view || !playerId || view.mode !== 'ganda') return null;
  return (view.entrants || []).find((e) => !e.withdrawn && !e.partner_confirmed
    && e.partner && e.partner.player_id === playerId) || null;
}

/** Whether an entrant counts: Tunggal always; Ganda once the partner confirmed. */
export function isConfirmed(view, entrant) {
  return view.mode !== 'ganda' || Boolean(entrant.partner_confirmed);
}

export function isOrganizer(view, playerId) {
  return Boolean(view && playerId && view.organizer && view.organizer.player_id === playerId);
}

/** The set a table's room played (its replay, /replay/{set_id}) once the set has ended, or
 * null: the view names it (`set_id`), nothing is guessed. */
export function replaySet(table) {
  return table.result && Number.isInteger(table.set_id) ? table.set_id : null;
}

/** A table's state: "setup" (no room yet), "playing" (its room plays the set), "finished". */
export function tableState(table) {
  if (table.result) return 'finished';
  return table.code ? 'playing' : 'setup';
}

/** The viewer's table in the latest round that seats their entry: {round, table} or null. */
export function myTable(view, playerId) {
  const mine = entryOf(view, playerId);
  if (!mine) return null;
  const rounds = view.rounds || [];
  for (let i = rounds.length - 1; i >= 0; i -= 1) {
    const table = (rounds[i].tables || []).find((x) => (x.entrants || []).includes(mine.id));
    if (table) return { round: rounds[i].number, table };
  }
  return null;
}

/** A `round_started` frame's table the player sits at: its code, or null (not seated, or no
 * room yet). */
export function seatedCode(frame, playerId) {
  if (!frame || !Array.isArray(frame.tables) || !playerId) return null;
  const table = frame.tables.find((x) => Array.isArray(x.seats)
    && x.seats.some((seat) => seat && seat.player_id === playerId));
  return (table && table.code) || null;
}

/**
 * A table's entrants with their result: [{id, place, points, dealPoints, on}], `on` when the
 * entrant goes on in a bracket (the top half of the table: a Ganda table's winner, a Tunggal
 * table's top two).
 */
export function tableRows(table) {
  const r = table.result;
  const half = Math.max(1, Math.floor((table.entrants || []).length / 2));
  return (table.entrants || []).map((id, i) => ({
    id,
    place: r ? r.places[i] : null,
    points: r ? r.points[i] : null,
    dealPoints: r ? r.deal_points[i] : null,
    on: Boolean(r && r.places[i] <= half),
  }));
}

/**
 * A knockout drawn as its stages: `pools` [{name, members, rounds: [{number, tables}]}] (each
 * pool's tables by round) and `columns` [{number, tables}] (the bracket's rounds, left to right;
 * the last is the final once it is one table). A Swiss, or a knockout not started: null.
 */
export function bracketLayout(view) {
  if (!view || view.format !== 'knockout' || !Array.isArray(view.pools)) return null;
  const poolOf = new Map();
  for (const pool of view.pools) for (const id of pool.members) poolOf.set(id, pool.name);
  const pools = view.pools.map((pool) => ({ name: pool.name, members: pool.members, rounds: [] }));
  const columns = [];
  for (const round of view.rounds || []) {
    const tables = round.tables || [];
    if (round.stage === 'pool') { // the server's word for it (docs/API.md, `stage`)
      for (const pool of pools) {
        const own = tables.filter((x) => (x.entrants || []).some((id) => poolOf.get(id) === pool.name));
        pool.rounds.push({ number: round.number, tables: own });
      }
    } else {
      columns.push({ number: round.number, byes: round.byes || [], tables });
    }
  }
  return { pools, columns, final: columns.length > 0 && columns[columns.length - 1].tables.length === 1 };
}

// --- the create form ---------------------------------------------------------------------------

const pad = (n) => String(n).padStart(2, '0');

/** A Date as a datetime-local input's value (the browser's own time zone). */
export function localInputValue(date) {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
    + `T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A datetime-local value (local time) as ISO 8601 with its UTC offset, or null when unreadable. */
export function isoWithOffset(value) {
  const date = value instanceof Date ? value : new Date(value);
  if (!value || Number.isNaN(date.getTime())) return null;
  const off = -date.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const abs = Math.abs(off);
  return `${localInputValue(date)}:${pad(date.getSeconds())}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** A new tournament's draft: the presets' `tournaments` defaults, the room settings' draft given,
 * starting at the next full hour after `now`. */
export function tournamentDraft(rules, settings, now = new Date()) {
  const start = new Date(now.getTime() + 60 * 60 * 1000);
  start.setMinutes(0, 0, 0);
  const mode = rules.modes[0];
  return {
    name: '',
    format: rules.formats[0],
    mode,
    rounds: rules.defaults.rounds,
    starts_at: localInputValue(start),
    min_entrants: rules.table_entrants[mode],
    max_entrants: rules.defaults.max_entrants,
    rated: false,
    public: true,
    settings: { ...settings, mode },
  };
}

/** The body of POST /api/tournaments for a draft; `settingsPayload` turns the room settings'
 * draft into its keys (presets.payloadFor). A knockout sends no rounds. */
export function tournamentPayload(d, settingsPayload) {
  const body = {
    name: String(d.name || '').trim(),
    format: d.format,
    mode: d.mode,
    settings: { ...settingsPayload(d.settings), mode: d.mode },
    starts_at: isoWithOffset(d.starts_at),
    min_entrants: d.min_entrants,
    max_entrants: d.max_entrants,
    rated: Boolean(d.rated),
    public: Boolean(d.public),
  };
  if (d.format === 'swiss') body.rounds = d.rounds;
  return body;
}
