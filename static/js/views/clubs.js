// The Clubs pages: /klub (the clubs by name, a search, and the create form for accounts) and
// /klub/{id} (a club's page: its description, joining or leaving, the leaders' requests and
// their tools, members with roles and ratings, the club's events and tables, and its
// leaderboard in each mode). Also the player's own clubs (myClubs), which the lobby's room form
// and the tournament form offer. It draws what GET /api/clubs… says (docs/API.md "Clubs") and
// reads every rule from the server's answers: a refusal is shown in the page's words.

import { h } from '../dom.js';
import { t, has } from '../i18n.js';
import { changed, toast } from '../store.js';
import { request } from '../api.js';
import { icon } from '../icons.js';
import { errorText } from '../errors.js';
import {
  clubPath, CLUBS_PATH, memberOf, isLeader, leads, successorChoices, boardModes, boardRows,
} from '../clubs.js';
import { tournamentPath } from '../tournament.js';
import { modeLabel } from './common.js';
import { profileLink, formatDate } from './profile.js';
import { myPlayerId, myUsername } from './account.js';

const ROUTE_RE = /^\/klub(?:\/(\d+))?\/?$/;
const PAGE = 30;

const cv = {
  id: null,
  list: { status: 'idle', items: [], next: null, more: false, error: null, seq: 0 },
  q: '',
  creating: false,
  draft: { name: '', description: '', open: true },
  formError: null,
  busy: false,
  detail: { status: 'idle', club: null, error: null, requests: null, joined: null },
  editing: null, // a leader's edit: {description, open}
  leaving: false, // the successor choice is shown (the server asked for one)
  successor: '',
  board: null, // the leaderboard's mode shown
};

// The player's clubs ({id, name, role}, from their profile), for the room and tournament forms.
const mine = { player: null, clubs: null, loading: false };

export function clubsRoute(pathname) {
  const m = ROUTE_RE.exec(pathname);
  if (!m) return null;
  return { name: 'clubs', id: m[1] ? Number(m[1]) : null };
}

function go(path) {
  window.history.pushState({}, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** An in-app link. */
export function link(path, text, attrs = {}) {
  return h('a', {
    href: path,
    ...attrs,
    onClick: (e) => {
      if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
      e.preventDefault();
      go(path);
    },
  }, text);
}

/** A club's name as a link to its page. */
export function clubLink(club, testid = 'club-link', className = 'club-link') {
  if (!club) return null;
  return link(clubPath(club.id), club.name, { class: className, 'data-testid': testid, 'data-club': club.id });
}

/** The player's clubs (not closed), or null while unknown; asks the server once per player. */
export function myClubs() {
  const me = myPlayerId();
  if (!me) return [];
  if (mine.player !== me) {
    mine.player = me;
    mine.clubs = null;
    loadMyClubs();
  }
  return mine.clubs;
}

async function loadMyClubs() {
  const me = mine.player;
  if (!me || mine.loading) return;
  mine.loading = true;
  try {
    const profile = await request('GET', `/api/players/${encodeURIComponent(me)}`, undefined, { auth: false });
    if (mine.player === me) mine.clubs = Array.isArray(profile.clubs) ? profile.clubs : [];
  } catch {
    if (mine.player === me) mine.clubs = [];
  } finally {
    mine.loading = false;
    changed();
  }
}

/** A select of the player's clubs ("no club" first) for a form; nothing when they have none. */
export function clubSelect(prefix, value, onValue, label) {
  const clubs = myClubs();
  if (!clubs || !clubs.length) return null;
  const id = `${prefix}-club`;
  return h('div', { class: 'field' },
    h('label', { for: id, class: 'field-label' }, label),
    h('select', {
      id,
      class: 'input',
      'data-testid': id,
      'data-focus': id,
      onChange: (e) => onValue(e.target.value ? Number(e.target.value) : null),
    }, h('option', { value: '', selected: !value }, t('club.none')),
    clubs.map((c) => h('option', { value: String(c.id), selected: value === c.id }, c.name))));
}

export function openClubs(id) {
  if (id === cv.id && (id !== null || cv.list.status !== 'idle')) return;
  closeClubs();
  cv.id = id;
  if (id === null) loadList(false);
  else {
    cv.detail = { status: 'loading', club: null, error: null, requests: null, joined: null };
    cv.editing = null;
    cv.leaving = false;
    cv.successor = '';
    cv.board = null;
    loadClub();
  }
}

export function closeClubs() {
  cv.id = null;
  cv.list.status = 'idle';
}

// --- the list ----------------------------------------------------------------------------------

async function loadList(more) {
  const list = cv.list;
  list.seq += 1;
  const seq = list.seq;
  if (more) list.more = true;
  else Object.assign(list, { status: 'loading', items: [], next: null, error: null });
  changed();
  const query = new URLSearchParams({ limit: String(PAGE) });
  if (cv.q.trim()) query.set('q', cv.q.trim());
  if (more && list.next) query.set('cursor', list.next);
  try {
    const page = await request('GET', `/api/clubs?${query}`, undefined, { auth: false });
    if (seq !== list.seq) return;
    const known = new Set(list.items.map((x) => x.id));
    list.items = [...list.items, ...page.clubs.filter((x) => !known.has(x.id))];
    list.next = page.next_cursor;
    list.status = 'ready';
  } catch (err) {
    if (seq !== list.seq) return;
    if (more) toast(errorText(err.code, err.message, err.field), 'error');
    else { list.status = 'error'; list.error = errorText(err.code, err.message, err.field); }
  } finally {
    if (seq === list.seq) list.more = false;
    changed();
  }
}

async function create(e) {
  e.preventDefault();
  if (cv.busy) return;
  cv.busy = true;
  cv.formError = null;
  changed();
  try {
    const d = cv.draft;
    const made = await request('POST', '/api/clubs', { name: d.name.trim(), description: d.description.trim(), open: d.open });
    cv.draft = { name: '', description: '', open: true };
    cv.creating = false;
    mine.player = null; // the player's clubs changed
    toast(t('club.created', { name: made.name }), 'ok', 3000);
    go(clubPath(made.id));
  } catch (err) {
    const field = err.field === 'name' ? 'club_name' : err.field;
    cv.formError = { field: err.field, text: errorText(err.code, err.message, field) };
    toast(cv.formError.text, 'error');
  } finally {
    cv.busy = false;
    changed();
  }
}

function fieldError(field) {
  const err = cv.formError;
  if (!err || (field !== null && err.field !== field) || (field === null && ['name', 'description'].includes(err.field))) return null;
  return h('p', { class: 'field-error', role: 'alert', 'data-testid': 'field-error', 'data-field': err.field || '' }, err.text);
}

function createArea() {
  if (!myPlayerId() || !myUsername()) {
    return h('p', { class: 'muted small', 'data-testid': 'club-need-account' }, t('club.need_account'));
  }
  if (!cv.creating) {
    return h('button', {
      type: 'button', class: 'btn btn-primary', 'data-testid': 'club-new', 'data-focus': 'club-new',
      onClick: () => { cv.creating = true; changed(); },
    }, t('club.new'));
  }
  const d = cv.draft;
  return h('form', { class: 'card create-card club-form', 'data-testid': 'club-form', onSubmit: create },
    h('h2', {}, t('club.new')),
    h('div', { class: 'field' },
      h('label', { for: 'club-name', class: 'field-label' }, t('club.form.name')),
      h('input', {
        id: 'club-name', class: 'input', required: true, value: d.name, autocomplete: 'off',
        'data-testid': 'club-name', 'data-focus': 'club-name',
        onInput: (e) => { d.name = e.target.value; },
      }),
      fieldError('name')),
    h('div', { class: 'field' },
      h('label', { for: 'club-description', class: 'field-label' }, t('club.form.description')),
      h('textarea', {
        id: 'club-description', class: 'input', rows: '3',
        'data-testid': 'club-description', 'data-focus': 'club-description',
        onInput: (e) => { d.description = e.target.value; },
      }, d.description),
      fieldError('description')),
    h('label', { class: 'check' },
      h('input', { type: 'checkbox', checked: d.open, 'data-testid': 'club-open', onChange: (e) => { d.open = e.target.checked; } }),
      h('span', {}, t('club.form.open'), h('span', { class: 'muted small block' }, t('club.form.open.hint')))),
    fieldError(null),
    h('div', { class: 'tour-actions' },
      h('button', { type: 'submit', class: 'btn btn-primary', 'data-testid': 'club-submit', disabled: cv.busy }, t('club.form.submit')),
      h('button', {
        type: 'button', class: 'btn btn-ghost', 'data-testid': 'club-form-cancel',
        onClick: () => { cv.creating = false; cv.formError = null; changed(); },
      }, t('club.form.cancel'))));
}

function listView() {
  const list = cv.list;
  let body;
  if (list.status === 'error') {
    body = h('div', { class: 'acct-error', role: 'alert' },
      h('p', {}, list.error), h('button', { type: 'button', class: 'btn btn-small', onClick: () => loadList(false) }, t('lb.retry')));
  } else if (list.status !== 'ready') {
    body = h('p', { class: 'muted', role: 'status' }, t('club.loading'));
  } else if (!list.items.length) {
    body = h('p', { class: 'muted', 'data-testid': 'clubs-empty' }, cv.q.trim() ? t('club.none_found') : t('club.empty'));
  } else {
    body = h('ul', { class: 'tour-list', 'data-testid': 'clubs-list' }, list.items.map((c) => h('li', {
      class: 'tour-row club-row', 'data-testid': 'club-row', 'data-club': c.id,
    },
    clubLink(c, 'club-row-link', 'tour-row-name'),
    h('span', { class: `pill ${c.open ? 'club-open' : 'club-closed'}` }, c.open ? t('club.open') : t('club.by_request')),
    h('span', { class: 'tour-row-meta muted small' }, t('club.members.n', { n: c.members })),
    c.description ? h('span', { class: 'tour-row-meta small club-row-desc' }, c.description) : null)));
  }
  const more = list.status === 'ready' && list.next ? h('button', {
    type: 'button', class: 'btn btn-ghost btn-small', 'data-testid': 'clubs-more', disabled: list.more,
    onClick: () => loadList(true),
  }, t('club.more')) : null;
  const mineNow = myClubs();
  return h('section', { class: 'acct-page clubs', 'data-testid': 'clubs', 'data-status': list.status },
    h('h1', {}, icon('home'), ' ', t('club.title')),
    h('p', { class: 'muted small' }, t('club.explain')),
    mineNow && mineNow.length ? h('p', { class: 'club-mine', 'data-testid': 'clubs-mine' },
      h('span', { class: 'muted' }, `${t('club.mine')} `),
      mineNow.map((c, i) => [i ? ', ' : null, clubLink(c, 'my-club')])) : null,
    createArea(),
    h('form', {
      class: 'social-search club-search', role: 'search', 'data-testid': 'club-search',
      onSubmit: (e) => { e.preventDefault(); loadList(false); },
    },
    h('label', { class: 'field-label', for: 'club-search-input' }, t('club.search')),
    h('div', { class: 'social-search-row' },
      h('input', {
        id: 'club-search-input', class: 'input', type: 'search', value: cv.q, autocomplete: 'off',
        placeholder: t('club.search.placeholder'), 'data-testid': 'club-search-input', 'data-focus': 'club-search-input',
        onInput: (e) => { cv.q = e.target.value; },
      }),
      h('button', { type: 'submit', class: 'btn btn-primary', 'data-testid': 'club-search-submit' }, t('club.search.submit')))),
    h('div', { class: 'card lb-card' }, body, more));
}

// --- a club's page -------------------------------------------------------------------------------

async function loadClub() {
  const id = cv.id;
  try {
    const club = await request('GET', `/api/clubs/${id}`, undefined, { auth: false });
    if (cv.id !== id) return;
    cv.detail.club = club;
    cv.detail.status = 'ready';
    if (!cv.board || !boardModes(club).includes(cv.board)) [cv.board] = boardModes(club);
    if (isLeader(club, myPlayerId()) && !club.closed_at) await loadRequests(id);
    else cv.detail.requests = null;
  } catch (err) {
    if (cv.id !== id) return;
    cv.detail.status = 'error';
    cv.detail.error = errorText(err.code, err.message, err.field);
  }
  changed();
}

async function loadRequests(id) {
  try {
    const data = await request('GET', `/api/clubs/${id}/requests`);
    if (cv.id === id) cv.detail.requests = data.requests || [];
  } catch {
    if (cv.id === id) cv.detail.requests = null;
  }
}

/** A change to the club: the call, then the page again as the server says it is. */
async function act(fn, done = null) {
  if (cv.busy) return false;
  cv.busy = true;
  changed();
  try {
    await fn();
    if (done) toast(done, 'ok', 2500);
    mine.player = null; // memberships may have changed
    return true;
  } catch (err) {
    if (err.code === 'last_leader') {
      cv.leaving = true; // the server asks for a successor: the choice is shown
      toast(t('club.leave.successor_needed'), 'error');
    } else {
      toast(errorText(err.code, err.message, err.field), 'error');
    }
    return false;
  } finally {
    cv.busy = false;
    await loadClub();
  }
}

const base = () => `/api/clubs/${cv.id}`;
const enc = encodeURIComponent;

async function join() {
  let answer = null;
  const ok = await act(async () => { answer = await request('POST', `${base()}/members`); });
  if (ok && answer) {
    cv.detail.joined = answer.state;
    toast(answer.state === 'member' ? t('club.joined') : t('club.requested'), 'ok', 3000);
    changed();
  }
}

function leave() {
  const successor = cv.leaving && cv.successor ? `?successor=${enc(cv.successor)}` : '';
  if (!successor && !window.confirm(t('club.leave.confirm'))) return;
  act(() => request('DELETE', `${base()}/members/me${successor}`), t('club.left')).then((ok) => {
    if (ok) { cv.leaving = false; cv.successor = ''; changed(); }
  });
}

function button(testid, text, onClick, kind = 'btn-small', extra = {}) {
  return h('button', {
    type: 'button', class: `btn ${kind}`, 'data-testid': testid,
    'data-focus': `${testid}-${extra['data-player'] || ''}`, disabled: cv.busy, onClick, ...extra,
  }, text);
}

function clubHead(club) {
  const me = myPlayerId();
  const leader = isLeader(club, me);
  const edit = cv.editing;
  return h('header', { class: 'card tour-head club-head', 'data-testid': 'club-header' },
    h('div', { class: 'tour-head-top' },
      h('h1', { 'data-testid': 'club-name-title' }, icon('home'), ' ', club.name),
      club.closed_at
        ? h('span', { class: 'pill club-shut', 'data-testid': 'club-state', 'data-state': 'closed' }, t('club.closed'))
        : h('span', { class: `pill ${club.open ? 'club-open' : 'club-closed'}`, 'data-testid': 'club-state', 'data-state': club.open ? 'open' : 'requests' },
          club.open ? t('club.open') : t('club.by_request'))),
    edit ? h('form', {
      class: 'club-edit', 'data-testid': 'club-edit-form',
      onSubmit: (e) => {
        e.preventDefault();
        act(() => request('PATCH', base(), { description: edit.description.trim(), open: edit.open }), t('club.saved'))
          .then((ok) => { if (ok) { cv.editing = null; changed(); } });
      },
    },
    h('label', { for: 'club-edit-description', class: 'field-label' }, t('club.form.description')),
    h('textarea', {
      id: 'club-edit-description', class: 'input', rows: '3', 'data-testid': 'club-edit-description',
      'data-focus': 'club-edit-description', onInput: (e) => { edit.description = e.target.value; },
    }, edit.description),
    h('label', { class: 'check' },
      h('input', { type: 'checkbox', checked: edit.open, 'data-testid': 'club-edit-open', onChange: (e) => { edit.open = e.target.checked; } }),
      h('span', {}, t('club.form.open'))),
    h('div', { class: 'tour-actions' },
      h('button', { type: 'submit', class: 'btn btn-primary btn-small', 'data-testid': 'club-edit-save', disabled: cv.busy }, t('club.edit.save')),
      h('button', { type: 'button', class: 'btn btn-ghost btn-small', onClick: () => { cv.editing = null; changed(); } }, t('club.form.cancel'))))
      : h('p', { class: 'club-description', 'data-testid': 'club-description-text' }, club.description || h('span', { class: 'muted' }, t('club.no_description'))),
    h('p', { class: 'muted small' }, t('club.members.n', { n: club.members.length }), ' · ', t('club.since', { date: formatDate(club.created_at) })),
    leader && !edit && !club.closed_at ? button('club-edit', t('club.edit'), () => {
      cv.editing = { description: club.description || '', open: club.open };
      changed();
    }, 'btn-ghost btn-small') : null);
}

function membershipCard(club) {
  const me = myPlayerId();
  const member = memberOf(club, me);
  const parts = [];
  if (club.closed_at) return null;
  if (member) {
    parts.push(h('p', { 'data-testid': 'club-my-role', 'data-role': member.role }, t('club.you_are', { role: roleText(member.role) })));
    if (cv.leaving) {
      const choices = successorChoices(club, me);
      parts.push(h('div', { class: 'field club-successor', 'data-testid': 'club-successor' },
        h('label', { for: 'club-successor-select', class: 'field-label' }, t('club.leave.successor')),
        h('select', {
          id: 'club-successor-select', class: 'input', 'data-testid': 'club-successor-select',
          onChange: (e) => { cv.successor = e.target.value; changed(); },
        }, h('option', { value: '' }, t('club.leave.choose')),
        choices.map((m) => h('option', { value: m.player_id, selected: cv.successor === m.player_id }, m.name)))));
    }
    parts.push(h('div', { class: 'tour-actions' },
      button('club-leave', cv.leaving ? t('club.leave.hand_over') : t('club.leave'), leave, 'btn-ghost btn-small',
        { disabled: cv.busy || (cv.leaving && !cv.successor) }),
      cv.leaving ? button('club-leave-cancel', t('club.form.cancel'), () => { cv.leaving = false; changed(); }, 'btn-ghost btn-small') : null));
  } else if (cv.detail.joined === 'requested') {
    parts.push(h('p', { 'data-testid': 'club-requested' }, t('club.requested')));
  } else if (!me || !myUsername()) {
    parts.push(h('p', { class: 'muted small', 'data-testid': 'club-join-need-account' }, t('club.join.need_account')));
  } else {
    parts.push(button('club-join', club.open ? t('club.join') : t('club.ask'), join, 'btn-primary'));
  }
  return h('section', { class: 'card club-membership', 'data-testid': 'club-membership' }, parts);
}

function roleText(role) {
  return has(`club.role.${role}`) ? t(`club.role.${role}`) : role;
}

function requestsCard(club) {
  const list = cv.detail.requests;
  if (!list || !isLeader(club, myPlayerId())) return null;
  return h('section', { class: 'card club-requests', 'data-testid': 'club-requests', 'data-count': list.length },
    h('h2', {}, t('club.requests', { n: list.length })),
    list.length ? h('ul', { class: 'social-list' }, list.map((r) => h('li', { class: 'social-row', 'data-testid': 'club-request', 'data-player': r.player_id },
      h('div', { class: 'social-who' }, profileLink(r.player_id, r.name), h('span', { class: 'muted small' }, formatDate(r.since, true))),
      h('div', { class: 'social-actions' },
        button('club-request-accept', t('club.accept'), () => act(() => request('POST', `${base()}/requests/${enc(r.player_id)}/accept`), t('club.accepted', { name: r.name })), 'btn-primary btn-small', { 'data-player': r.player_id }),
        button('club-request-decline', t('club.decline'), () => act(() => request('POST', `${base()}/requests/${enc(r.player_id)}/decline`)), 'btn-ghost btn-small', { 'data-player': r.player_id })))))
      : h('p', { class: 'muted small' }, t('club.requests.none')));
}

function ratingsText(ratings) {
  return Object.entries(ratings || {}).map(([mode, r]) => `${modeLabel(mode)} ${r}`).join(' · ');
}

function membersCard(club) {
  const me = myPlayerId();
  const leader = isLeader(club, me) && !club.closed_at;
  return h('section', { class: 'card club-members', 'data-testid': 'club-members', 'data-count': club.members.length },
    h('h2', {}, t('club.members', { n: club.members.length })),
    h('ul', { class: 'social-list' }, club.members.map((m) => h('li', {
      class: 'social-row', 'data-testid': 'club-member', 'data-player': m.player_id, 'data-role': m.role,
    },
    h('div', { class: 'social-who' },
      profileLink(m.player_id, m.name),
      h('span', { class: `pill club-role club-role-${m.role}`, 'data-testid': 'club-member-role' }, roleText(m.role)),
      h('span', { class: 'muted small', 'data-testid': 'club-member-ratings' }, ratingsText(m.ratings))),
    leader && !leads(m) ? h('div', { class: 'social-actions' },
      button('club-make-leader', t('club.make_leader'), () => act(() => request('POST', `${base()}/leaders`, { player_id: m.player_id }), t('club.now_leader', { name: m.name })), 'btn-small', { 'data-player': m.player_id }),
      button('club-remove', t('club.remove'), () => {
        if (window.confirm(t('club.remove.confirm', { name: m.name }))) act(() => request('DELETE', `${base()}/members/${enc(m.player_id)}`));
      }, 'btn-ghost btn-small', { 'data-player': m.player_id })) : null))));
}

function eventsCard(club) {
  const events = club.events || [];
  const member = memberOf(club, myPlayerId());
  return h('section', { class: 'card club-events', 'data-testid': 'club-events', 'data-count': events.length },
    h('h2', {}, icon('trophy'), ' ', t('club.events')),
    events.length ? h('ul', { class: 'tour-list' }, events.map((ev) => h('li', {
      class: 'tour-row', 'data-testid': 'club-event', 'data-id': ev.id, 'data-status': ev.status, 'data-battle': String(Boolean(ev.battle)),
    },
    link(tournamentPath(ev.id), ev.name, { class: 'tour-row-name', 'data-testid': 'club-event-link' }),
    h('span', { class: `pill tour-status tour-status-${ev.status}` }, t(`tour.status.${ev.status}`)),
    h('span', { class: 'tour-row-meta muted small' },
      [t(`tour.format.${ev.format}`), modeLabel(ev.mode), formatDate(ev.starts_at, true), ev.battle ? t('club.battle') : null]
        .filter(Boolean).join(' · ')))))
      : h('p', { class: 'muted small' }, t('club.events.none')),
    member && myUsername() && !club.closed_at
      ? link(`/turnamen?klub=${club.id}`, t('club.events.new'), { class: 'btn btn-ghost btn-small', 'data-testid': 'club-event-new' }) : null);
}

function tablesCard(club) {
  const tables = club.tables || [];
  return h('section', { class: 'card club-tables', 'data-testid': 'club-tables', 'data-count': tables.length },
    h('h2', {}, t('club.tables')),
    tables.length ? h('ul', { class: 'social-list' }, tables.map((x) => h('li', { class: 'social-row', 'data-testid': 'club-table', 'data-code': x.code },
      h('div', { class: 'social-who' },
        h('strong', {}, x.host ? t('tables.host', { name: x.host.name }) : x.code),
        h('span', { class: 'muted small' }, `${t(`status.${x.status}`)} · ${t('tables.seats', { n: x.seats_taken, total: x.seats })}`)),
      h('div', { class: 'social-actions' },
        link(`/r/${x.code}`, x.status === 'open' ? t('tables.join') : t('tables.watch'), { class: 'btn btn-small', 'data-testid': 'club-table-link' })))))
      : h('p', { class: 'muted small' }, t('club.tables.none')));
}

function boardCard(club) {
  const modes = boardModes(club);
  if (!modes.length) return null;
  const mode = modes.includes(cv.board) ? cv.board : modes[0];
  const rows = boardRows(club, mode);
  return h('section', { class: 'card club-board', 'data-testid': 'club-leaderboard', 'data-mode': mode },
    h('h2', {}, t('club.leaderboard')),
    modes.length > 1 ? h('div', { class: 'lb-tabs', role: 'tablist' }, modes.map((m) => h('button', {
      type: 'button', role: 'tab', class: `lb-tab${m === mode ? ' active' : ''}`, 'aria-selected': String(m === mode),
      'data-testid': 'club-board-tab', 'data-mode': m, 'data-focus': `club-board-${m}`,
      onClick: () => { cv.board = m; changed(); },
    }, modeLabel(m)))) : null,
    h('div', { class: 'tour-scroll' },
      h('table', { class: 'tour-table' },
        h('thead', {}, h('tr', {},
          h('th', { scope: 'col' }, '#'),
          h('th', { scope: 'col' }, t('club.col.player')),
          h('th', { scope: 'col', class: 'num' }, t('club.col.rating')),
          h('th', { scope: 'col', class: 'num' }, t('club.col.sets')))),
        h('tbody', {}, rows.map((r) => h('tr', {
          class: r.player_id === myPlayerId() ? 'mine' : '', 'data-testid': 'club-board-row', 'data-player': r.player_id, 'data-position': r.position,
        },
        h('td', {}, String(r.position)),
        h('td', {}, profileLink(r.player_id, r.name)),
        h('td', { class: 'num' }, String(r.rating)),
        h('td', { class: 'num' }, r.rated_sets ? String(r.rated_sets) : t('club.not_rated'))))))));
}

function detailView() {
  const d = cv.detail;
  if (d.status === 'error') {
    return h('section', { class: 'acct-page', 'data-testid': 'club', 'data-status': 'error' },
      h('p', { class: 'acct-error', role: 'alert', 'data-testid': 'club-error' }, d.error),
      link(CLUBS_PATH, t('club.back'), { class: 'btn btn-ghost' }));
  }
  const club = d.club;
  if (!club) return h('section', { class: 'acct-page', 'data-testid': 'club', 'data-status': 'loading' }, h('p', { class: 'muted', role: 'status' }, t('club.loading')));
  return h('section', {
    class: 'acct-page tournament club', 'data-testid': 'club', 'data-status': 'ready', 'data-id': club.id,
    'data-closed': String(Boolean(club.closed_at)),
  },
  link(CLUBS_PATH, `‹ ${t('club.back')}`, { class: 'tour-back small', 'data-testid': 'club-back' }),
  clubHead(club),
  membershipCard(club),
  requestsCard(club),
  membersCard(club),
  eventsCard(club),
  tablesCard(club),
  boardCard(club));
}

export function clubsView() {
  return cv.id === null ? listView() : detailView();
}

/** The lobby's way to the clubs (beside the tournaments'). */
export function clubsLink(testid = 'lobby-clubs', className = 'hero-link') {
  return link(CLUBS_PATH, [icon('home'), ' ', t('nav.clubs')], { class: className, 'data-testid': testid, 'data-focus': testid });
}
