// The operators' page, /admin: paste the admin token (kept in sessionStorage, this tab only),
// see this node's live tables (GET /api/admin/tables), close a table or take a player off a seat,
// ban or unban a player by id; the moderators' queue (reports grouped by player, a report's
// stored chat and replay, dismiss / warn / mute / unmute), player search and the bans
// (docs/API.md, "Admin"; docs/FAIRPLAY.md).

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
  reports: [], // GET /api/admin/reports: one entry per reported player
  context: {}, // report id -> GET /api/admin/reports/{id} (the chat around it, the replay)
  opened: null, // the report whose context is shown
  query: '',
  found: null, // GET /api/admin/players?q=
  bans: null, // GET /api/admin/bans; null: not an admin's token
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
    const [data, queue, bans] = await Promise.all([
      call('GET', '/api/admin/tables'),
      call('GET', '/api/admin/reports'),
      call('GET', '/api/admin/bans').catch((err) => {
        if (err.code === 'forbidden_role') return null; // a moderator: bans are for admins
        throw err;
      }),
    ]);
    if (seq !== adm.seq) return;
    adm.data = data;
    adm.reports = queue.players;
    adm.bans = bans ? bans.players : null;
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
  if (adm.found !== null) await search(); // what was found shows the action too
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

// --- the moderators' queue, players, bans ---------------------------------------------------------

async function showContext(reportId) {
  if (adm.opened === reportId) {
    adm.opened = null;
    changed();
    return;
  }
  adm.opened = reportId;
  changed();
  try {
    adm.context[reportId] = await call('GET', `/api/admin/reports/${reportId}`);
  } catch (err) {
    toast(refusal(err), 'error');
    adm.opened = null;
  }
  changed();
}

function playerPath(playerId, what) {
  return `/api/admin/players/${encodeURIComponent(playerId)}/${what}`;
}

function dismiss(group) {
  act(async () => {
    for (const id of group.report_ids) await call('POST', `/api/admin/reports/${id}/dismiss`);
  }, () => t('admin.dismissed', { name: group.name }));
}

function warn(player) {
  const reason = (window.prompt(t('admin.warn.reason', { name: player.name })) || '').trim();
  if (!reason) return;
  act(() => call('POST', playerPath(player.player_id, 'warn'), { reason }),
    () => t('admin.warned', { name: player.name }));
}

function mute(player) {
  act(() => call('POST', playerPath(player.player_id, 'mute'), {}),
    (done) => t('admin.muted', { name: player.name, until: when(done.muted_until) }));
}

function unmute(player) {
  act(() => call('DELETE', playerPath(player.player_id, 'mute')),
    () => t('admin.unmuted', { name: player.name }));
}

function ban(player, on) {
  const path = playerPath(player.player_id, 'ban');
  act(() => (on ? call('POST', path, {}) : call('DELETE', path)),
    (done) => t(on ? 'admin.banned' : 'admin.unbanned', { name: done.name }));
}

function when(iso) {
  return iso ? new Date(iso).toLocaleString() : '';
}

function actionButton(testid, label, onClick, ghost = true) {
  return h('button', {
    type: 'button',
    class: ghost ? 'btn btn-ghost btn-small' : 'btn btn-small',
    'data-testid': testid,
    disabled: adm.busy,
    onClick,
  }, label);
}

function moderation(player) {
  return [
    actionButton('admin-warn', t('admin.warn'), () => warn(player)),
    actionButton('admin-mute', t('admin.mute'), () => mute(player), false),
    actionButton('admin-unmute', t('admin.unmute'), () => unmute(player)),
  ];
}

function chatLine(line) {
  const who = line.seat === null ? t('admin.chat.spectator', { name: line.name || '' }) : (line.name || '');
  const said = line.kind === 'phrase' ? t('admin.chat.phrase', { id: line.text }) : line.text;
  return h('li', { 'data-testid': 'admin-chat-line', 'data-player': line.player_id },
    h('span', { class: 'muted small' }, `${when(line.at)} `),
    h('b', {}, who), `: ${said}`);
}

function contextView(reportId) {
  const found = adm.context[reportId];
  if (!found) return h('p', { class: 'muted small', role: 'status' }, t('admin.loading'));
  return h('div', { class: 'admin-context', 'data-testid': 'admin-context' },
    found.replay
      ? h('a', { href: found.replay, 'data-testid': 'admin-replay' }, t('admin.replay', { set: found.report.set_id }))
      : h('p', { class: 'muted small' }, t('admin.no_set')),
    found.lines.length
      ? h('ol', { class: 'admin-chat', 'data-testid': 'admin-chat' }, found.lines.map(chatLine))
      : h('p', { class: 'muted small', 'data-testid': 'admin-no-chat' }, t('admin.no_chat')));
}

function categoriesText(categories) {
  return Object.entries(categories).map(([c, n]) => `${t(`admin.category.${c}`)} ${n}`).join(', ');
}

function reportCard(group) {
  const latest = group.latest;
  return h('li', { class: 'card admin-report', 'data-testid': 'admin-report', 'data-player': group.player_id },
    h('h3', {}, `${group.name || group.player_id} · ${t('admin.reports.count', { n: group.count })}`),
    h('p', { class: 'muted small' }, categoriesText(group.categories), ` · ${when(latest.created_at)}`),
    latest.text ? h('p', { class: 'admin-report-text' }, latest.text) : null,
    h('div', { class: 'admin-actions' },
      actionButton('admin-context-toggle', t('admin.context'), () => showContext(latest.id)),
      actionButton('admin-dismiss', t('admin.dismiss'), () => dismiss(group)),
      ...moderation({ player_id: group.player_id, name: group.name }),
      adm.bans !== null // an admin's token: a ban closes the reports too
        ? actionButton('admin-report-ban', t('admin.ban'), () => ban({ player_id: group.player_id, name: group.name }, true))
        : null),
    adm.opened === latest.id ? contextView(latest.id) : null);
}

function queueView() {
  return h('div', { class: 'admin-queue' },
    h('h2', {}, t('admin.queue')),
    adm.reports.length
      ? h('ul', { class: 'admin-reports', 'data-testid': 'admin-reports' }, adm.reports.map(reportCard))
      : h('p', { class: 'muted', 'data-testid': 'admin-no-reports' }, t('admin.queue.empty')));
}

function playerFacts(player) {
  const facts = [player.username ? `@${player.username}` : t('admin.player.guest'), player.player_id];
  const open = player.reports.open || 0;
  facts.push(t('admin.player.reports', { n: open }), t('admin.player.warnings', { n: player.warnings }),
    t('admin.player.mutes', { n: player.mutes }));
  if (player.muted_until) facts.push(t('admin.player.muted_until', { until: when(player.muted_until) }));
  if (player.banned) facts.push(t('admin.player.banned'));
  return facts.join(' · ');
}

function playerRow(player) {
  return h('li', { class: 'card admin-player', 'data-testid': 'admin-player', 'data-player': player.player_id },
    h('h3', {}, player.name),
    h('p', { class: 'muted small' }, playerFacts(player)),
    h('div', { class: 'admin-actions' },
      ...moderation(player),
      adm.bans !== null
        ? actionButton(player.banned ? 'admin-player-unban' : 'admin-player-ban',
          t(player.banned ? 'admin.unban' : 'admin.ban'), () => ban(player, !player.banned))
        : null));
}

async function search(e) {
  if (e) e.preventDefault();
  const q = adm.query.trim();
  if (!q) return;
  try {
    adm.found = (await call('GET', `/api/admin/players?q=${encodeURIComponent(q)}`)).players;
  } catch (err) {
    toast(refusal(err), 'error');
  }
  changed();
}

function searchView() {
  return h('div', { class: 'admin-search' },
    h('h2', {}, t('admin.search')),
    h('form', { class: 'card', onSubmit: search },
      h('label', { for: 'admin-q' }, t('admin.search.label')),
      h('input', { id: 'admin-q', maxlength: 64, value: adm.query, 'data-testid': 'admin-q', onInput: (e) => { adm.query = e.target.value; } }),
      h('button', { type: 'submit', class: 'btn btn-small', 'data-testid': 'admin-search' }, t('admin.search.go'))),
    adm.found === null ? null
      : adm.found.length
        ? h('ul', { class: 'admin-players', 'data-testid': 'admin-players' }, adm.found.map(playerRow))
        : h('p', { class: 'muted', 'data-testid': 'admin-no-players' }, t('admin.search.none')));
}

function bansView() {
  if (adm.bans === null) return null;
  return h('div', { class: 'admin-bans' },
    h('h2', {}, t('admin.bans')),
    adm.bans.length
      ? h('ul', { class: 'admin-players', 'data-testid': 'admin-bans' }, adm.bans.map(playerRow))
      : h('p', { class: 'muted', 'data-testid': 'admin-no-bans' }, t('admin.bans.none')));
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
        : h('p', { class: 'muted', 'data-testid': 'admin-none' }, t('admin.none')),
      queueView(),
      searchView(),
      bansView());
  }
  return h('section', { class: 'acct-page admin', 'data-testid': 'admin', 'data-status': adm.status },
    h('h1', {}, t('admin.title')),
    h('p', { class: 'muted small' }, t('admin.explain')),
    tokenForm(),
    h('h2', {}, t('admin.tables')),
    body,
    token() ? banForm() : null);
}
