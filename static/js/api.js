// The REST lobby API (/api). Every function returns parsed JSON or throws ApiError.
// Shapes are read defensively (normRoom): the client relies on few fields and tolerates extras.

import { loadPlayer, savePlayer } from './storage.js';

export class ApiError extends Error {
  constructor(status, code, message, field) {
    super(message || code);
    this.status = status;
    this.code = code;
    this.field = field || null;
  }
}

async function request(method, path, body, { auth = true } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const player = loadPlayer();
  if (auth && player && player.token) headers.Authorization = `Bearer ${player.token}`;
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

/** Make sure a guest with this name exists; returns {name, token, player_id}. */
export async function ensureGuest(name) {
  const clean = String(name || '').trim();
  const saved = loadPlayer();
  if (saved && saved.token && saved.name === clean) return saved;
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

export async function listRooms() {
  const data = await request('GET', '/api/rooms', undefined, { auth: false });
  const list = Array.isArray(data) ? data : (data && (data.rooms || data.items)) || [];
  return list.map(normRoom).filter((room) => room.code);
}

export const getRoom = async (code) => normRoom(await request('GET', `/api/rooms/${enc(code)}`));
export const createRoom = (settings) =>
  withGuest(async () => normRoom(await request('POST', '/api/rooms', settings)));
export const sit = (code, seat) =>
  withGuest(async () => normRoom(await request('POST', `/api/rooms/${enc(code)}/seats/${seat}`)));
export const vacate = (code, seat) =>
  withGuest(async () => normRoom(await request('DELETE', `/api/rooms/${enc(code)}/seats/${seat}`)));
export const addBot = (code, seat, kind = 'heuristic') =>
  withGuest(async () =>
    normRoom(await request('POST', `/api/rooms/${enc(code)}/bots/${seat}`, { kind })));
export const patchSettings = (code, patch) =>
  withGuest(async () => normRoom(await request('PATCH', `/api/rooms/${enc(code)}/settings`, patch)));
export const startRoom = (code) =>
  withGuest(() => request('POST', `/api/rooms/${enc(code)}/start`));

const num = (v, fallback) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/**
 * One room in the client's own shape, from a REST room/summary or the WebSocket's `room` object.
 * Relied on: code; settings.{preset, mode, turn_seconds, deals_per_set, target_points, public}
 * (or the same keys at top level); seats [{seat, player_id, name, bot}]; host_id or host.player_id;
 * status; seats_taken; spectators (a number or a list); share_link; host_name or host.name.
 */
export function normRoom(raw) {
  if (!raw || typeof raw !== 'object') return { code: null, seats: [], settings: {} };
  const src = raw.room && typeof raw.room === 'object' && !raw.code ? raw.room : raw;
  const given = src.settings && typeof src.settings === 'object' ? src.settings : src;
  const settings = {
    preset: given.preset || 'pordi',
    mode: given.mode === 'ganda' ? 'ganda' : 'tunggal',
    turn_seconds: num(given.turn_seconds, 30),
    deals_per_set: num(given.deals_per_set, 7),
    target_points: num(given.target_points, 7),
    public: given.public !== false,
    chat: given.chat !== false,
  };
  if (settings.preset === 'klasik') {
    // Klasik options (docs/API.md): present only in Klasik rooms.
    settings.players = num(given.players, 4);
    settings.seven_tiles = given.seven_tiles === true;
    settings.discard = given.discard !== false;
    settings.zero_zero_25 = given.zero_zero_25 === true;
    settings.scoring = given.scoring === 'penalty' ? 'penalty' : 'difference';
  }
  const players = num(given.players, num(src.players, Array.isArray(src.seats) && src.seats.length === 5 ? 5 : 4));
  const listed = Array.isArray(src.seats) ? src.seats : [];
  const seats = [];
  for (let i = 0; i < players; i += 1) {
    const found = listed.find((x) => x && x.seat === i) || listed[i] || {};
    seats.push({
      seat: i,
      player_id: found.player_id || null,
      name: found.name || null,
      bot: found.bot || null,
    });
  }
  const taken = seats.filter((x) => x.player_id || x.bot).length;
  let spectators = 0;
  if (typeof src.spectators === 'number') spectators = src.spectators;
  else if (Array.isArray(src.spectators)) spectators = src.spectators.length;
  const host = src.host && typeof src.host === 'object' ? src.host : {};
  return {
    code: typeof src.code === 'string' ? src.code.toUpperCase() : null,
    status: src.status || 'open',
    settings,
    seats,
    seatsTaken: listed.length ? taken : num(src.seats_taken, taken),
    spectators,
    hostId: src.host_id || host.player_id || null,
    hostName: src.host_name || host.name || null,
    shareLink: src.share_link || null,
  };
}
