// The operators' page, /admin: paste the admin token (kept in sessionStorage, this tab only),
// see this node's live tables (GET /api/admin/tables), close a table or take a player off a seat,
// ban or unban a player by id (docs/API.md, "Admin").

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { changed, toast } from '../store.js';
import { request } from '../api.js';
import { errorText } from '../errors.js';

const ROUTE_RE = /^\/admin\/?$/;
const TOKEN_KEY = 'gaple.admin_token';

const adm = {
  open: false,
  status: 'idle', // idle | loading | ready | error
  data: null,
  error: null,
  busy: false,
  draftToken: '',
  banId: '',
  banReason: '',
  seq: 0,
};

export function adminRoute(pathname) {
  return ROUTE_RE.test(pathname) ? { name: 'admin' } : null;
}

function savedToken() {
  try {
    return window.sessionStorage.getItem(TOKEN_KEY) || '';
  } catch {
    return '';
  }
}

function keepToken(token) {
  try {
    if (token) window.sessionStorage.setItem(TOKEN_KEY, token);
    else window.sessionStorage.removeItem(TOKEN_KEY);
  } catch { /* a private mode without storage: the token lasts until the page reloads */ }
  memoryToken = token;
}

let memoryToken = '';

function token() {
  return savedToken() || memoryToken;
}

function call(method, path, body) {
  return request(method, path, body, { token: token() });
}

function refusal(err) {
  if (err.code === 'unauthorized') return t('admin.bad_token');
  if (err.status === 404 && err.code === 'not_found') return t('admin.off');
  return errorText(err.code, err.message, err.field);
}

export function openAdmin() {
  adm.open = true;
  if (token()) load();
}

export function closeAdmin() {
  adm.open = false;
}

async function load() {
  adm.seq += 1;
  const seq = adm.seq;
  adm.status = 'loading';
  changed();
  try {
    const data = await call('GET', '/api/admin/tables');
    if (seq !== adm.seq) return;
    adm.data = data;
    adm.status = 'ready';
    adm.error = null;
  } catch (err) {
    if (seq !== adm.seq) return;
    adm.status = 'error';
    adm.error = refusal(err);
  }
  changed();
}

async function act(run, done) {
  if (adm.busy) return;
  adm.busy = true;
  changed();
  try {
    const result = await run();
    toast(done(result), 'ok');
  } catch (err) {
    toast(refusal(err), 'error');
  } finally {
    adm.busy = false;
  }
  await load();
}

function useToken(e) {
  if (e) e.preventDefault();
  const value = adm.draftToken.trim();
  if (!value) return;
  keepToken(value);
  adm.draftToken = '';
  load();
}

function forgetToken() {
  keepToken('');
  Object.assign(adm, { status: 'idle', data: null, error: null });
  changed();
}

function closeTable(table) {
  if (!window.confirm(t('admin.close.confirm', { code: table.code }))) return;
  act(() => call('DELETE', `/api/admin/rooms/${encodeURIComponent(table.code)}`),
    () => t('admin.closed', { code: table.code }));
}

function removeSeat(table, seat) {
  const name = seat.name || seat.player_id;
  if (!window.confirm(t('admin.remove.confirm', { name, n: seat.seat + 1 }))) return;
  act(() => call('DELETE', `/api/admin/rooms/${encodeURIComponent(table.code)}/seats/${seat.seat}`),
    () => t('admin.removed', { name, code: table.code }));
}

function banOrUnban(ban) {
  const id = adm.banId.trim();
  if (!id) {
    toast(t('admin.ban.need_id'), 'error');
    return;
  }
  const path = `/api/admin/players/${encodeURIComponent(id)}/ban`;
  const reason = adm.banReason.trim();
  act(() => (ban ? call('POST', path, { reason: reason || null }) : call('DELETE', path)),
    (player) => t(ban ? 'admin.banned' : 'admin.unbanned', { name: player.name }));
}

function seatRow(table, seat) {
  let who;
  if (seat.player_id) who = seat.name || seat.player_id;
  else if (seat.bot) who = t('admin.seat.bot', { kind: seat.bot });
  else who = t('admin.seat.empty');
  return h('li', { class: 'admin-seat', 'data-testid': 'admin-seat', 'data-seat': seat.seat, 'data-player': seat.player_id || '' },
    h('span', {}, `${seat.seat + 1}. ${who}`),
    seat.player_id ? h('span', { class: 'muted small' }, ` · ${seat.player_id} · `,
      t(seat.connected ? 'admin.seat.online' : 'admin.seat.offline')) : null,
    seat.player_id ? h('button', {
      type: 'button',
      class: 'btn btn-ghost btn-small',
      'data-testid': 'admin-remove',
      disabled: adm.busy,
      onClick: () => removeSeat(table, seat),
    }, t('admin.remove')) : null);
}

/** "1 player connected, 2 watching": the count decides the form. */
export function socketsText(table) {
  const n = table.seat_sockets;
  const seats = n === 1 ? t('admin.table.seats.one') : t('admin.table.seats', { n });
  return `${seats}, ${t('admin.table.watching', { n: table.spectators })}`;
}

function tableCard(table) {
  return h('li', { class: 'card admin-table', 'data-testid': 'admin-table', 'data-code': table.code, 'data-status': table.status },
    h('h3', {}, `${table.code} · ${table.status}`),
    h('p', { class: 'muted small' },
      table.set_number ? `${t('admin.table.set', { set: table.set_number, deal: table.deal_number })} · ` : '',
      socketsText(table)),
    h('ul', { class: 'admin-seats' }, table.seats.map((seat) => seatRow(table, seat))),
    h('button', {
      type: 'button',
      class: 'btn btn-small',
      'data-testid': 'admin-close',
      disabled: adm.busy || table.status === 'closed',
      onClick: () => closeTable(table),
    }, t('admin.close')));
}

function tokenForm() {
  const has = Boolean(token());
  return h('form', { class: 'card admin-token', onSubmit: useToken },
    h('label', { for: 'admin-token' }, t('admin.token')),
    h('input', {
      id: 'admin-token',
      type: 'password',
      autocomplete: 'off',
      value: adm.draftToken,
      'data-testid': 'admin-token',
      onInput: (e) => { adm.draftToken = e.target.value; },
    }),
    h('button', { type: 'submit', class: 'btn btn-small', 'data-testid': 'admin-token-use' }, t('admin.token.use')),
    has ? h('button', { type: 'button', class: 'btn btn-ghost btn-small', onClick: forgetToken }, t('admin.token.forget')) : null);
}

function banForm() {
  return h('div', { class: 'card admin-ban' },
    h('h2', {}, t('admin.ban.title')),
    h('label', { for: 'admin-ban-id' }, t('admin.ban.player')),
    h('input', { id: 'admin-ban-id', value: adm.banId, 'data-testid': 'admin-ban-id', onInput: (e) => { adm.banId = e.target.value; } }),
    h('label', { for: 'admin-ban-reason' }, t('admin.ban.reason')),
    h('input', { id: 'admin-ban-reason', maxlength: 200, value: adm.banReason, onInput: (e) => { adm.banReason = e.target.value; } }),
    h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'admin-ban', disabled: adm.busy, onClick: () => banOrUnban(true) }, t('admin.ban')),
    h('button', { type: 'button', class: 'btn btn-ghost btn-small', 'data-testid': 'admin-unban', disabled: adm.busy, onClick: () => banOrUnban(false) }, t('admin.unban')));
}

export function adminView() {
  let body;
  if (!token()) {
    body = h('p', { class: 'muted' }, t('admin.token.needed'));
  } else if (adm.status === 'error') {
    body = h('p', { class: 'acct-error', role: 'alert', 'data-testid': 'admin-error' }, adm.error);
  } else if (!adm.data) {
    body = h('p', { class: 'muted', role: 'status' }, t('admin.loading'));
  } else {
    const tables = adm.data.tables;
    body = h('div', {},
      h('p', { class: 'muted small' }, t('admin.node', { node: adm.data.node }), ' ',
        h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'admin-refresh', onClick: load }, t('admin.refresh'))),
      tables.length
        ? h('ul', { class: 'admin-tables', 'data-testid': 'admin-tables' }, tables.map(tableCard))
        : h('p', { class: 'muted', 'data-testid': 'admin-none' }, t('admin.none')));
  }
  return h('section', { class: 'acct-page admin', 'data-testid': 'admin', 'data-status': adm.status },
    h('h1', {}, t('admin.title')),
    h('p', { class: 'muted small' }, t('admin.explain')),
    tokenForm(),
    h('h2', {}, t('admin.tables')),
    body,
    token() ? banForm() : null);
}
