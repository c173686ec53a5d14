// The REST lobby API (/api). Every function returns parsed JSON or throws ApiError.
// Shapes are read defensively (normRoom): the client relies on few fields and tolerates extras.

import { loadPlayer, savePlayer } from './storage.js';
import { seatCount } from './presets.js';

export class ApiError extends Error {
  constructor(status, code, message, field) {
    super(message || code);
    this.status = status;
    this.code = code;
    this.field = field || null;
  }
}

/** `token`: send this bearer token instead of the player's (the admin page's). */
export async function request(method, path, body, { auth = true, token = null } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const player = loadPlayer();
  if (token) headers.Authorization = `Bearer ${token}`;
  else if (auth && player && player.token) headers.Authorization = `Bearer ${player.token}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch (err) {
    throw new ApiError(0, 'network', String(err && err.message ? err.message : err));
  }
  let data = null;
  const text = await response.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    const err = (data && data.error) || {};
    const detail = data && typeof data.detail === 'string' ? data.detail : null;
    throw new ApiError(
      response.status,
      err.code || (response.status === 401 ? 'unauthorized' : `http_${response.status}`),
      err.message || detail || response.statusText,
      err.field,
    );
  }
  return data;
}

let guestCall = null;

/** Make sure a guest with this name exists; returns {name, token, player_id}. One call at a
 * time: a second (a double tap on Save) waits for the first and then finds the player it saved,
 * so one name never makes two guests. */
export function ensureGuest(name) {
  const call = (guestCall || Promise.resolve()).then(() => ensureGuestNow(name), () => ensureGuestNow(name));
  guestCall = call;
  const done = () => { if (guestCall === call) guestCall = null; };
  call.then(done, done);
  return call;
}

async function ensureGuestNow(name) {
  const clean = String(name || '').trim();
  const saved = loadPlayer();
  if (saved && saved.token && saved.name === clean) return saved;
  if (saved && saved.token && saved.player_id) {
    // A new name for the same player (history, rating and account kept), not a new guest.
    try {
      const me = await request('PATCH', '/api/players/me', { name: clean });
      const player = { name: (me && me.name) || clean, token: saved.token, player_id: saved.player_id };
      savePlayer(player);
      return player;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) throw err;
    }
  }
  const data = await request('POST', '/api/guests', { name: clean }, { auth: false });
  const player = {
    name: (data && data.name) || clean,
    token: data && data.token,
    player_id: data && data.player_id,
  };
  savePlayer(player);
  return player;
}

/** Forget a token the server no longer accepts, keeping the name. */
export function forgetToken() {
  const saved = loadPlayer();
  if (saved) savePlayer({ name: saved.name, token: null, player_id: null });
}

/**
 * Run an authenticated call; if the server says the token is unknown (401), make a new guest with
 * the remembered name once and retry.
 */
async function withGuest(fn) {
  const saved = loadPlayer();
  if (!saved || !saved.name) throw new ApiError(0, 'name_required', 'name required');
  await ensureGuest(saved.name);
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      forgetToken();
      await ensureGuest(saved.name);
      return fn();
    }
    throw err;
  }
}

const enc = encodeURIComponent;

/**
 * One page of the public lobby, newest activity first: {rooms, next} where `next` is the cursor of
 * the following page (null at the end). `limit` is left to the server unless given.
 */
export async function listRooms({ cursor = null, limit = null } = {}) {
  const query = new URLSearchParams();
  if (limit) query.set('limit', String(limit));
  if (cursor) query.set('cursor', cursor);
  const qs = query.toString();
  const data = await request('GET', `/api/rooms${qs ? `?${qs}` : ''}`, undefined, { auth: false });
  const list = Array.isArray(data) ? data : (data && (data.rooms || data.items)) || [];
  const next = (data && !Array.isArray(data) && (data.next_cursor || data.cursor || data.next)) || null;
  return { rooms: list.map(normRoom).filter((room) => room.code), next };
}

/** The server's presets, defaults and choices (see presets.js). */
export const getPresets = () => request('GET', '/api/presets', undefined, { auth: false });

export const getRoom = async (code) => normRoom(await request('GET', `/api/rooms/${enc(code)}`));
export const createRoom = (settings) =>
  withGuest(async () => normRoom(await request('POST', '/api/rooms', settings)));
export const sit = (code, seat) =>
  withGuest(async () => normRoom(await request('POST', `/api/rooms/${enc(code)}/seats/${seat}`)));
export const vacate = (code, seat) =>
  withGuest(async () => normRoom(await request('DELETE', `/api/rooms/${enc(code)}/seats/${seat}`)));
export const addBot = (code, seat, kind = null) =>
  withGuest(async () =>
    normRoom(await request('POST', `/api/rooms/${enc(code)}/bots/${seat}`, kind ? { kind } : {})));
export const patchSettings = (code, patch) =>
  withGuest(async () => normRoom(await request('PATCH', `/api/rooms/${enc(code)}/settings`, patch)));
export const startRoom = (code) =>
  withGuest(() => request('POST', `/api/rooms/${enc(code)}/start`));
/** The host closes the room for good (every socket gets `bye` room_closed). */
export const closeRoom = (code) =>
  withGuest(() => request('DELETE', `/api/rooms/${enc(code)}`));
/** Quick play after a set: "play again" at the same table. */
export const playAgain = (code) =>
  withGuest(async () => normRoom(await request('POST', `/api/rooms/${enc(code)}/again`)));
/** Quick play: "start now with bots". */
export const fillNow = (code) =>
  withGuest(async () => normRoom(await request('POST', `/api/rooms/${enc(code)}/fill`)));
/** Play now: a seat at a waiting public table with these settings, or a new one: {room, seat}. */
export const quickplay = (choice) =>
  withGuest(async () => {
    const data = await request('POST', '/api/quickplay', choice);
    return { room: normRoom(data && data.room), seat: data && typeof data.seat === 'number' ? data.seat : null };
  });

/** Practice: a private table against bots, already playing: {room, seat}. `choice` may be {}. */
export const practice = (choice) =>
  withGuest(async () => {
    const data = await request('POST', '/api/practice', choice);
    return { room: normRoom(data && data.room), seat: data && typeof data.seat === 'number' ? data.seat : null };
  });

function dueOf(src) {
  if (typeof src.bots_in_ms === 'number') return Date.now() + src.bots_in_ms;
  return 'bots_in_ms' in src ? false : null;
}

const num = (v, fallback) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

function clubOf(x) {
  if (!x || typeof x !== 'object' || !Number.isInteger(x.id)) return null;
  return { id: x.id, name: typeof x.name === 'string' ? x.name : '' };
}

function tournamentOf(x) {
  if (!x || typeof x !== 'object' || !Number.isInteger(x.id)) return null;
  return { id: x.id, round: Number.isInteger(x.round) ? x.round : null, name: typeof x.name === 'string' ? x.name : '' };
}

/**
 * One room in the client's own shape, from a REST room/summary or the WebSocket's `room` object.
 * Relied on: code; settings (or the same keys at top level) as the server sent them, no defaults
 * added here (they are the server's: GET /api/presets); seats [{seat, player_id, name, bot,
 * left_by, ready}]; host_id or host.player_id; status; closed_reason; seats_taken; spectators (a
 * number or a list); share_link; host_name or host.name; quickplay; rematch; bots_in_ms;
 * tournament ({id, round, name} at a tournament's table); club ({id, name} at a club's table).
 */
export function normRoom(raw) {
  if (!raw || typeof raw !== 'object') return { code: null, seats: [], settings: {} };
  const src = raw.room && typeof raw.room === 'object' && !raw.code ? raw.room : raw;
  const given = src.settings && typeof src.settings === 'object' ? src.settings : src;
  const settings = {};
  for (const key of ['preset', 'mode', 'turn_seconds', 'deals_per_set', 'target_points', 'public',
    'allow_join_bots', 'chat', 'players', 'seven_tiles', 'stuck', 'zero_zero_25', 'scoring']) {
    if (given[key] !== undefined && given[key] !== null) settings[key] = given[key];
  }
  const listed = Array.isArray(src.seats) ? src.seats : [];
  // One entry per seat from the server; a summary has no list, so its preset or players tell.
  const total = listed.length || num(src.seat_count, null) || seatCount(settings) || 0;
  const seats = [];
  for (let i = 0; i < total; i += 1) {
    const found = listed.find((x) => x && x.seat === i) || listed[i] || {};
    seats.push({
      seat: i,
      player_id: found.player_id || null,
      name: found.name || null,
      bot: found.bot || null,
      left_by: found.left_by || null,
      ready: found.ready === true,
    });
  }
  const taken = seats.filter((x) => x.player_id || x.bot).length;
  let spectators = 0;
  if (typeof src.spectators === 'number') spectators = src.spectators;
  else if (Array.isArray(src.spectators)) spectators = src.spectators.length;
  const host = src.host && typeof src.host === 'object' ? src.host : {};
  return {
    code: typeof src.code === 'string' ? src.code.toUpperCase() : null,
    status: src.status || null,
    closedReason: src.closed_reason || null,
    // The socket's room frames leave it out: null keeps what the REST room said (mergeInfo).
    quickplay: typeof src.quickplay === 'boolean' ? src.quickplay : null,
    // A challenge's table: "play again" after a set is the rematch (REST only, as quickplay).
    rematch: typeof src.rematch === 'boolean' ? src.rematch : null,
    // A tournament's table: {id, round, name} (REST and socket alike); null: not one, or not said.
    tournament: tournamentOf(src.tournament),
    // A club's table: {id, name} (only its members sit); null: not one, or not said.
    club: clubOf(src.club),
    settings,
    seats,
    seatsTaken: listed.length ? taken : num(src.seats_taken, taken),
    // Seats a newcomer could take now: empty ones before the start, bots' seats they may take.
    seatsFree: num(src.seats_free, null),
    spectators,
    hostId: src.host_id || host.player_id || null,
    hostName: src.host_name || host.name || null,
    shareLink: src.share_link || null,
    // Quick play: when bots fill (Date.now() ms); false: none pending; null: not said (a summary).
    botsDue: dueOf(src),
  };
}
