// The Tournaments page: /turnamen (tabs upcoming / running / finished, a page at a time, and the
// create form for accounts) and /turnamen/{id} (header, entry, withdraw, a partner's
// confirmation, the organizer's start and cancel, standings, rounds and their tables, the
// knockout's pools and bracket). The detail follows /ws/tournaments/{id} (tournament_live.js):
// every frame's `tournament` redraws it; round_started takes a seated viewer to their table.

import { h } from '../dom.js';
import { t, lang } from '../i18n.js';
import { changed, toast, announce } from '../store.js';
import { request } from '../api.js';
import { icon } from '../icons.js';
import { errorText } from '../errors.js';
import { getCatalogue, defaultPreset, draftFor, payloadFor, choicesOf, fieldOf } from '../presets.js';
import { follow } from '../tournament_live.js';
import {
  TABS, tabOf, entrantLabel, entrantPlayers, entryOf, inviteFor, isConfirmed, isOrganizer, tableState,
  myTable, seatedCode, tableRows, bracketLayout, tournamentDraft, tournamentPayload, tournamentPath,
  replaySet,
} from '../tournament.js';
import { replayPath } from './replay.js';
import { modeLabel } from './common.js';
import { profileLink, formatDate } from './profile.js';
import { myPlayerId, myUsername } from './account.js';
import { presetSelect, choiceSelect, lengthField, klasikFields, hasKlasikOptions, fieldError, numberField } from './lobby.js';
import { clubSelect, clubLink, myClubs } from './clubs.js';
import {
  isBattle, clubStandingRows, battleClubsFor, entryBody, tournamentClubFields, withClub, withoutClub,
} from '../clubs.js';

const ROUTE_RE = /^\/turnamen(?:\/(\d+))?\/?$/;
const PAGE = 20;
const GO_TO_TABLE_MS = 2500; // the announcement before a seated viewer is taken to their table

const tv = {
  id: null,
  tab: TABS[0],
  list: { status: 'idle', items: [], next: null, more: false, error: null, seq: 0 },
  draft: null,
  creating: false,
  busy: false,
  formError: null,
  detail: { status: 'idle', view: null, error: null, live: 'polling' },
  stop: null,
  friends: null,
  partner: '',
  entryClub: '', // a team battle: the club an entry plays for, when the player is in several
  clubSearch: { q: '', found: null, busy: false }, // the form's search for a battle's clubs
  fromClub: null, // a club's page opened the form (`?klub=`): its club
  going: null,
};

const CLUB_KINDS = ['all', 'club', 'battle'];

export function tournamentsRoute(pathname) {
  const m = ROUTE_RE.exec(pathname);
  if (!m) return null;
  return { name: 'tournaments', id: m[1] ? Number(m[1]) : null };
}

export { tournamentPath };

function go(path) {
  window.history.pushState({}, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

function link(path, text, attrs = {}) {
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

export function openTournaments(id) {
  if (id === tv.id && (id !== null || tv.list.status !== 'idle')) return;
  closeTournaments();
  tv.id = id;
  if (id === null) {
    const tab = new URLSearchParams(window.location.search).get('tab');
    tv.tab = TABS.includes(tab) ? tab : TABS[0];
    // From a club's page (`?klub=`): the form opens for an event of that club.
    const club = Number(new URLSearchParams(window.location.search).get('klub'));
    if (Number.isInteger(club) && club > 0) {
      tv.creating = true;
      tv.draft = null;
      tv.fromClub = club; // the draft (made once the presets are in) starts as that club's event
    }
    loadList(false);
  } else {
    tv.detail = { status: 'loading', view: null, error: null, live: 'polling' };
    tv.partner = '';
    tv.entryClub = '';
    loadDetail();
    tv.stop = follow(id, {
      fetchView: () => request('GET', `/api/tournaments/${id}`, undefined, { auth: false }),
      onView: (view, frame) => showView(view, frame),
      onStatus: (live) => { tv.detail.live = live; changed(); },
    });
    if (myPlayerId()) loadFriends();
  }
}

export function closeTournaments() {
  if (tv.stop) tv.stop();
  tv.stop = null;
  clearTimeout(tv.going);
  tv.going = null;
  tv.id = null;
  tv.list.status = 'idle';
}

// --- list ----------------------------------------------------------------------------------------

async function loadList(more) {
  const list = tv.list;
  list.seq += 1;
  const seq = list.seq;
  if (more) list.more = true;
  else Object.assign(list, { status: 'loading', items: [], next: null, error: null });
  changed();
  const query = new URLSearchParams({ status: tv.tab, limit: String(PAGE) });
  if (more && list.next) query.set('cursor', list.next);
  try {
    const page = await request('GET', `/api/tournaments?${query}`, undefined, { auth: false });
    if (seq !== list.seq) return;
    const known = new Set(list.items.map((x) => x.id));
    list.items = [...list.items, ...page.tournaments.filter((x) => !known.has(x.id))];
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

function setTab(tab) {
  if (tab === tv.tab && tv.list.status === 'ready') return;
  tv.tab = tab;
  window.history.replaceState({}, '', `/turnamen${tab === TABS[0] ? '' : `?tab=${tab}`}`);
  loadList(false);
}

function rules() {
  const cat = getCatalogue();
  return cat && cat.tournaments ? cat.tournaments : null;
}

function ensureDraft() {
  const r = rules();
  if (tv.draft || !r || !defaultPreset()) return tv.draft;
  const club = tv.fromClub;
  tv.fromClub = null;
  tv.draft = {
    ...tournamentDraft(r, draftFor(defaultPreset())),
    clubKind: club ? 'club' : 'all',
    club_id: club || null,
    battle: { clubs: [], best: 2 },
  };
  return tv.draft;
}

async function create(e) {
  e.preventDefault();
  if (tv.busy || !tv.draft) return;
  tv.busy = true;
  tv.formError = null;
  changed();
  try {
    const d = tv.draft;
    const clubs = tournamentClubFields({
      club_id: d.clubKind === 'club' ? d.club_id : null,
      battle: d.clubKind === 'battle' ? d.battle : null,
    });
    const made = await request('POST', '/api/tournaments', { ...tournamentPayload(d, payloadFor), ...clubs });
    tv.draft = null;
    tv.creating = false;
    toast(t('tour.created', { name: made.name }), 'ok', 3000);
    go(tournamentPath(made.id));
  } catch (err) {
    tv.formError = { field: err.field, text: formErrorText(err) };
    toast(tv.formError.text, 'error');
  } finally {
    tv.busy = false;
    changed();
  }
}

/** The server's refusal in the page's words; a room setting's field (`settings.x`) by its own
 * label, the tournament's name not as the player's name. */
function formErrorText(err) {
  let field = err.field;
  if (field && /^(bracket_)?settings\./.test(field)) field = field.replace(/^(bracket_)?settings\./, '');
  else if (field === 'name') field = 'tournament_name';
  else if (field && field.startsWith('club_battle')) field = field === 'club_battle.best' ? 'best' : 'club_id';
  return errorText(err.code, err.message, field);
}

function listView() {
  const me = myPlayerId();
  const tabs = h('div', { class: 'lb-tabs tour-tabs', role: 'tablist', 'aria-label': t('tour.title') }, TABS.map((tab) => h('button', {
    type: 'button',
    role: 'tab',
    class: `lb-tab${tab === tv.tab ? ' active' : ''}`,
    'aria-selected': String(tab === tv.tab),
    'data-testid': 'tournaments-tab',
    'data-tab': tab,
    'data-focus': `tour-tab-${tab}`,
    onClick: () => setTab(tab),
  }, t(`tour.tab.${tab}`))));
  const list = tv.list;
  let body;
  if (list.status === 'error') {
    body = h('div', { class: 'acct-error', role: 'alert', 'data-testid': 'tournaments-error' },
      h('p', {}, list.error), h('button', { type: 'button', class: 'btn btn-small', onClick: () => loadList(false) }, t('lb.retry')));
  } else if (list.status !== 'ready') {
    body = h('p', { class: 'muted', role: 'status' }, t('tour.loading'));
  } else if (!list.items.length) {
    body = h('p', { class: 'muted', 'data-testid': 'tournaments-empty' }, t(`tour.empty.${tv.tab}`));
  } else {
    body = h('ul', { class: 'tour-list', 'data-testid': 'tournaments-list' }, list.items.map((x) => h('li', {
      class: 'tour-row',
      'data-testid': 'tournament-row',
      'data-id': x.id,
      'data-status': x.status,
    },
    link(tournamentPath(x.id), x.name, { class: 'tour-row-name', 'data-testid': 'tournament-link' }),
    h('span', { class: 'tour-row-meta muted small' },
      `${t(`tour.format.${x.format}`)} · ${modeLabel(x.mode)} · ${formatDate(x.starts_at, true)}`),
    h('span', { class: 'tour-row-meta muted small' },
      t('tour.by', { name: x.organizer.name }), ' · ',
      t('tour.entries.n', { n: x.entries, max: x.max_entrants }),
      x.rated ? ` · ${t('tour.rated')}` : ''),
    statusPill(x.status))));
  }
  const more = list.status === 'ready' && list.next ? h('button', {
    type: 'button', class: 'btn btn-ghost btn-small', 'data-testid': 'tournaments-more', disabled: list.more,
    onClick: () => loadList(true),
  }, t('tour.more')) : null;
  return h('section', { class: 'acct-page tournaments', 'data-testid': 'tournaments', 'data-tab': tv.tab, 'data-status': list.status },
    h('h1', {}, icon('trophy'), ' ', t('tour.title')),
    h('p', { class: 'muted small' }, t('tour.explain')),
    createArea(me),
    tabs,
    h('div', { class: 'card lb-card' }, body, more));
}

function createArea(me) {
  if (!me || !myUsername()) {
    return h('p', { class: 'muted small tour-need-account', 'data-testid': 'tournament-need-account' }, t('tour.need_account'));
  }
  if (!tv.creating) {
    return h('button', {
      type: 'button', class: 'btn btn-primary', 'data-testid': 'tournament-new', 'data-focus': 'tour-new',
      onClick: () => { tv.creating = true; ensureDraft(); changed(); },
    }, t('tour.new'));
  }
  const d = ensureDraft();
  const r = rules();
  if (!d || !r) return h('p', { class: 'muted', role: 'status' }, getCatalogue() ? t('presets.error') : t('tour.loading'));
  const err = tv.formError;
  const set = (key, value, rerender = false) => {
    d[key] = value;
    if (rerender) changed();
  };
  const setting = (key, value, rerender = false) => {
    d.settings[key] = value;
    if (rerender) changed();
  };
  const settingsErr = err && err.field && /^(bracket_)?settings\./.test(err.field)
    ? { ...err, field: err.field.replace(/^(bracket_)?settings\./, '') } : null;
  const seg = (key, values, label) => h('fieldset', { class: 'field' },
    h('legend', { class: 'field-label' }, t(`tour.form.${key}`)),
    h('div', { class: 'segmented' }, values.map((v) => h('label', { class: `seg${d[key] === v ? ' on' : ''}` },
      h('input', {
        type: 'radio', name: `tour-${key}`, value: v, checked: d[key] === v,
        'data-testid': `tournament-${key}-${v}`, 'data-focus': `tour-${key}-${v}`,
        onChange: () => {
          d[key] = v;
          if (key === 'mode') {
            d.settings = { ...d.settings, mode: v };
            d.min_entrants = Math.max(d.min_entrants, r.table_entrants[v]);
          }
          changed();
        },
      }),
      h('span', { class: 'seg-title' }, label(v))))),
    fieldError(err, key));
  const s = d.settings;
  return h('form', { class: 'card create-card tour-form', 'data-testid': 'tournament-form', onSubmit: create },
    h('h2', {}, t('tour.new')),
    h('div', { class: 'field' },
      h('label', { for: 'tour-name', class: 'field-label' }, t('tour.form.name')),
      h('input', {
        id: 'tour-name', class: 'input', required: true, value: d.name,
        minlength: String(r.name_length[0]), maxlength: String(r.name_length[1]),
        'data-testid': 'tournament-name', 'data-focus': 'tour-name',
        onInput: (e) => set('name', e.target.value),
      }),
      fieldError(err, 'name')),
    seg('format', r.formats, (f) => t(`tour.format.${f}`)),
    seg('mode', r.modes.filter((m) => choicesOf(s.preset, 'mode').includes(m) || !fieldOf(s.preset, 'mode')), modeLabel),
    h('div', { class: 'field-row' },
      d.format === 'swiss' ? numberField('tour-rounds', 'tournament-rounds', t('tour.form.rounds'), d.rounds,
        r.rounds[0], r.rounds[1], (v) => set('rounds', v), fieldError(err, 'rounds')) : null,
      numberField('tour-min', 'tournament-min', t('tour.form.min'), d.min_entrants,
        r.table_entrants[d.mode], r.entrants[1], (v) => set('min_entrants', v), fieldError(err, 'min_entrants')),
      numberField('tour-max', 'tournament-max', t('tour.form.max'), d.max_entrants,
        r.entrants[0], r.entrants[1], (v) => set('max_entrants', v), fieldError(err, 'max_entrants'))),
    h('div', { class: 'field' },
      h('label', { for: 'tour-start', class: 'field-label' }, t('tour.form.starts_at')),
      h('input', {
        id: 'tour-start', class: 'input', type: 'datetime-local', required: true, value: d.starts_at,
        'data-testid': 'tournament-starts-at', 'data-focus': 'tour-start',
        onInput: (e) => set('starts_at', e.target.value),
      }),
      fieldError(err, 'starts_at')),
    h('fieldset', { class: 'field tour-settings' },
      h('legend', { class: 'field-label' }, t('tour.form.settings')),
      presetSelect('tournament', s, (preset) => {
        // A preset with one mode (Klasik is Tunggal) sets the tournament's.
        const modes = choicesOf(preset, 'mode');
        if (modes.length && !modes.includes(d.mode)) {
          d.mode = modes[0];
          d.min_entrants = Math.max(d.min_entrants, r.table_entrants[d.mode]);
        }
        d.settings = { ...draftFor(preset, s), mode: d.mode };
        changed();
      }, settingsErr),
      h('div', { class: 'field-row' },
        choiceSelect('tournament', 'turn_seconds', s, t('create.timer'), (n) => t('seconds', { n }),
          (n) => setting('turn_seconds', n), settingsErr),
        hasKlasikOptions(s.preset) ? null : lengthField('tournament', s, setting, settingsErr)),
      hasKlasikOptions(s.preset) ? klasikFields('tournament', s, setting, settingsErr) : null),
    clubFields(d, r, err),
    h('label', { class: 'check' },
      h('input', { type: 'checkbox', checked: d.rated, 'data-testid': 'tournament-rated', onChange: (e) => set('rated', e.target.checked) }),
      h('span', {}, t('tour.form.rated'))),
    h('label', { class: 'check' },
      h('input', { type: 'checkbox', checked: d.public, 'data-testid': 'tournament-public', onChange: (e) => set('public', e.target.checked) }),
      h('span', {}, t('tour.form.public'))),
    err && !['name', 'format', 'mode', 'rounds', 'min_entrants', 'max_entrants', 'starts_at', 'club_id', 'club_battle', 'club_battle.clubs', 'club_battle.best'].includes(err.field) && !settingsErr
      ? fieldError(err, null) : null,
    h('div', { class: 'tour-actions' },
      h('button', { type: 'submit', class: 'btn btn-primary', 'data-testid': 'tournament-submit', disabled: tv.busy }, t('tour.form.submit')),
      h('button', {
        type: 'button', class: 'btn btn-ghost', 'data-testid': 'tournament-form-cancel',
        onClick: () => { tv.creating = false; tv.formError = null; changed(); },
      }, t('tour.form.cancel'))));
}

/** Who may enter: every player, one club's members, or club against club (a team battle: the
 * clubs that meet, found by name, and how many of each club's best entrants count). */
function clubFields(d, r, err) {
  const mine = myClubs();
  const kinds = CLUB_KINDS.filter((k) => k !== 'club' || (mine && mine.length));
  const setKind = (k) => { d.clubKind = k; changed(); };
  const clubErr = err && (err.field === 'club_id' || (err.field || '').startsWith('club_battle'))
    ? h('p', { class: 'field-error', role: 'alert', 'data-testid': 'field-error', 'data-field': err.field }, err.text) : null;
  const search = tv.clubSearch;
  const battle = d.battle;
  const offer = [...(mine || []), ...(search.found || [])].filter((c, i, all) => all.findIndex((x) => x.id === c.id) === i
    && !battle.clubs.some((x) => x.id === c.id));
  const find = async () => {
    if (search.busy) return;
    search.busy = true;
    changed();
    try {
      const q = new URLSearchParams({ q: search.q.trim(), limit: '10' });
      const page = await request('GET', `/api/clubs?${q}`, undefined, { auth: false });
      search.found = page.clubs || [];
    } catch (e) {
      toast(errorText(e.code, e.message, e.field), 'error');
    } finally {
      search.busy = false;
      changed();
    }
  };
  return h('fieldset', { class: 'field tour-clubs', 'data-testid': 'tournament-clubs', 'data-kind': d.clubKind },
    h('legend', { class: 'field-label' }, t('club.tour.kind')),
    h('div', { class: `segmented cols-${kinds.length}` }, kinds.map((k) => h('label', { class: `seg${d.clubKind === k ? ' on' : ''}` },
      h('input', {
        type: 'radio', name: 'tour-club-kind', value: k, checked: d.clubKind === k,
        'data-testid': `tournament-clubs-${k}`, 'data-focus': `tour-clubs-${k}`, onChange: () => setKind(k),
      }),
      h('span', { class: 'seg-title' }, t(`club.tour.kind.${k}`))))),
    d.clubKind === 'club' ? clubSelect('tournament', d.club_id, (id) => { d.club_id = id; changed(); }, t('club.field')) : null,
    d.clubKind === 'battle' ? h('div', { class: 'tour-battle', 'data-testid': 'tournament-battle' },
      h('p', { class: 'field-label' }, t('club.battle.clubs')),
      battle.clubs.length ? h('ul', { class: 'club-chips' }, battle.clubs.map((c) => h('li', { class: 'club-chip', 'data-testid': 'battle-club', 'data-club': c.id },
        h('span', {}, c.name),
        h('button', {
          type: 'button', class: 'club-chip-remove', 'aria-label': t('club.battle.remove', { name: c.name }),
          'data-testid': 'battle-club-remove', 'data-club': c.id,
          onClick: () => { battle.clubs = withoutClub(battle.clubs, c.id); changed(); },
        }, icon('close'))))) : null,
      h('label', { for: 'tour-club-search', class: 'field-label' }, t('club.battle.search')),
      h('div', { class: 'social-search-row' },
        h('input', {
          id: 'tour-club-search', class: 'input', type: 'search', value: search.q, autocomplete: 'off',
          placeholder: t('club.search.placeholder'), 'data-testid': 'battle-club-search', 'data-focus': 'battle-club-search',
          onInput: (e) => { search.q = e.target.value; },
          onKeydown: (e) => { if (e.key === 'Enter') { e.preventDefault(); find(); } },
        }),
        h('button', { type: 'button', class: 'btn', 'data-testid': 'battle-club-find', disabled: search.busy, onClick: find }, t('club.search.submit'))),
      offer.length ? h('ul', { class: 'club-offer' }, offer.map((c) => h('li', {},
        h('button', {
          type: 'button', class: 'btn btn-small btn-ghost', 'data-testid': 'battle-club-add', 'data-club': c.id,
          onClick: () => { battle.clubs = withClub(battle.clubs, c); changed(); },
        }, '+ ', c.name)))) : null,
      numberField('tour-best', 'tournament-best', t('club.battle.best'), battle.best, 1, r.entrants[1],
        (v) => { battle.best = v; }, h('p', { class: 'muted small' }, t('club.battle.hint', { n: battle.best })))) : null,
    clubErr);
}

// --- detail --------------------------------------------------------------------------------------

async function loadDetail() {
  const id = tv.id;
  try {
    const view = await request('GET', `/api/tournaments/${id}`, undefined, { auth: false });
    if (tv.id === id) showView(view, null);
  } catch (err) {
    if (tv.id !== id || tv.detail.view) return;
    tv.detail.status = 'error';
    tv.detail.error = err.code === 'tournament_not_found' ? t('err.tournament_not_found') : errorText(err.code, err.message, err.field);
    changed();
  }
}

async function loadFriends() {
  try {
    const data = await request('GET', '/api/friends');
    tv.friends = Array.isArray(data && data.friends) ? data.friends : [];
  } catch {
    tv.friends = [];
  }
  changed();
}

/** A fresh view: draw it; the frame (if any) only drives effects. */
function showView(view, frame) {
  if (!view || view.id !== tv.id) return;
  tv.detail.view = view;
  tv.detail.status = 'ready';
  changed();
  if (frame) effect(frame, view);
}

/** Tell a seated entrant their round's table, then take them there (unless ``stillWanted()``
 * says they went elsewhere meanwhile). */
function takeToTable(round, code, stillWanted) {
  const text = t('tour.live.your_table', { round, code });
  toast(text, 'ok', GO_TO_TABLE_MS + 1000);
  announce(text);
  clearTimeout(tv.going);
  tv.going = setTimeout(() => { if (stillWanted()) go(`/r/${code}`); }, GO_TO_TABLE_MS);
}

/** An entrant still at their last round's table (on its result panel, say) follows the next
 * round too: /ws/me's ``tournament_round`` notification names their new table. ``room`` is the
 * page's room state (main.js calls this while a room is shown). */
export function followNextRound(msg, room) {
  if (msg.type !== 'notification' || msg.kind !== 'tournament_round') return;
  const p = msg.payload || {};
  const here = room && room.info && room.info.tournament;
  if (!here || here.id !== p.tournament_id || !p.table || p.table === room.code) return;
  takeToTable(p.round, p.table, () => window.location.pathname.toUpperCase() === `/R/${room.code}`);
}

function effect(frame, view) {
  const me = myPlayerId();
  if (frame.type === 'round_started') {
    const code = seatedCode(frame, me);
    if (code) {
      const id = view.id;
      takeToTable(frame.round, code, () => tv.id === id);
    } else {
      announce(t('tour.live.round_started', { round: frame.round }));
    }
  } else if (frame.type === 'table_finished') {
    toast(t('tour.live.table_finished', { round: frame.round, code: frame.code }), 'info', 3000);
  } else if (frame.type === 'tournament_finished') {
    const top = view.standings && view.standings[0];
    const text = top ? t('tour.live.finished_won', { name: entrantLabel(view, top.entrant) }) : t('tour.live.finished');
    toast(text, 'ok', 6000);
    announce(text);
  }
}

async function act(kind, fn) {
  if (tv.busy) return;
  tv.busy = true;
  changed();
  try {
    const out = await fn();
    if (out && typeof out === 'object' && out.id === tv.id && Array.isArray(out.entrants)) showView(out, null);
    else await loadDetail();
    toast(t(`tour.done.${kind}`), 'ok', 2500);
  } catch (err) {
    toast(errorText(err.code, err.message, err.field === 'partner_id' ? 'partner_id' : err.field), 'error');
  } finally {
    tv.busy = false;
    changed();
  }
}

const base = () => `/api/tournaments/${tv.id}`;

function enter(view) {
  if (view.mode === 'ganda') {
    const partner = tv.partner.trim();
    if (!partner) {
      toast(t('tour.partner.required'), 'error');
      return;
    }
  }
  const body = entryBody(view, myClubs(), tv.entryClub, view.mode === 'ganda' ? tv.partner.trim() : null);
  if (battleClubsFor(view, myClubs()).length > 1 && !body.club_id) {
    toast(t('club.entry.choose.required'), 'error');
    return;
  }
  act('enter', () => request('POST', `${base()}/entries`, body));
}

/** A team battle's entry by a member of several of its clubs: the club they play for. */
function entryClubPicker(view) {
  const choices = battleClubsFor(view, myClubs());
  if (choices.length < 2) return null;
  return h('div', { class: 'field' },
    h('label', { for: 'tour-entry-club', class: 'field-label' }, t('club.entry.choose')),
    h('select', {
      id: 'tour-entry-club', class: 'input', 'data-testid': 'tournament-entry-club',
      onChange: (e) => { tv.entryClub = e.target.value; changed(); },
    }, h('option', { value: '' }, t('club.entry.pick')),
    choices.map((c) => h('option', { value: String(c.id), selected: tv.entryClub === String(c.id) }, c.name))));
}

function statusPill(status) {
  return h('span', { class: `pill tour-status tour-status-${status}`, 'data-testid': 'tournament-status', 'data-status': status },
    t(`tour.status.${status}`));
}

function header(view) {
  const facts = [
    t(`tour.format.${view.format}`),
    modeLabel(view.mode),
    view.format === 'swiss' ? t('tour.rounds.n', { n: view.round_count }) : null,
    view.rated ? t('tour.rated') : t('tour.unrated'),
  ].filter(Boolean).join(' · ');
  return h('header', { class: 'card tour-head', 'data-testid': 'tournament-header' },
    h('div', { class: 'tour-head-top' },
      h('h1', { 'data-testid': 'tournament-name-title' }, view.name),
      statusPill(view.status)),
    h('p', { class: 'muted', 'data-testid': 'tournament-facts' }, facts),
    h('p', {},
      h('span', { class: 'muted' }, `${t('tour.starts')} `),
      h('time', { datetime: view.starts_at, 'data-testid': 'tournament-start' }, formatDate(view.starts_at, true))),
    h('p', {}, h('span', { class: 'muted' }, `${t('tour.organizer')} `),
      profileLink(view.organizer.player_id, view.organizer.name, { testid: 'tournament-organizer' })),
    view.club ? h('p', { 'data-testid': 'tournament-of-club' }, h('span', { class: 'muted' }, `${t('club.field')}: `), clubLink(view.club)) : null,
    isBattle(view) ? h('p', { 'data-testid': 'tournament-battle-clubs' },
      h('span', { class: 'muted' }, `${t('club.tour.kind.battle')}: `),
      view.club_battle.clubs.map((c, i) => [i ? ' · ' : null, clubLink(c)]),
      h('span', { class: 'muted small' }, ` (${t('club.battle.hint', { n: view.club_battle.best })})`)) : null,
    h('p', { class: 'muted small', 'data-testid': 'tournament-live', 'data-live': tv.detail.live },
      tv.detail.live === 'live' ? t('tour.live.on') : t('tour.live.off')));
}

function entryCard(view) {
  const me = myPlayerId();
  const mine = entryOf(view, me);
  const invite = inviteFor(view, me);
  const parts = [];
  if (invite) {
    parts.push(h('div', { class: 'tour-invite', 'data-testid': 'tournament-invite', 'data-entry': invite.id },
      h('p', {}, t('tour.invite', { name: invite.player.name })),
      h('button', {
        type: 'button', class: 'btn btn-primary', 'data-testid': 'tournament-confirm', disabled: tv.busy,
        onClick: () => act('confirm', () => request('POST', `${base()}/entries/${invite.id}/confirm`)),
      }, t('tour.confirm')),
      h('button', {
        type: 'button', class: 'btn btn-ghost', 'data-testid': 'tournament-decline', disabled: tv.busy,
        onClick: () => act('withdraw', () => request('DELETE', `${base()}/entries/me`)),
      }, t('tour.decline'))));
  } else if (mine) {
    const waiting = !isConfirmed(view, mine);
    parts.push(h('p', { 'data-testid': 'tournament-my-entry', 'data-entry': mine.id, 'data-confirmed': String(!waiting) },
      waiting ? t('tour.entered.waiting', { name: mine.partner.name }) : t('tour.entered')));
    if (view.status === 'registering' || view.status === 'running') {
      parts.push(h('button', {
        type: 'button', class: 'btn btn-ghost', 'data-testid': 'tournament-withdraw', disabled: tv.busy,
        onClick: () => {
          if (view.status === 'running' && !window.confirm(t('tour.withdraw.confirm'))) return;
          act('withdraw', () => request('DELETE', `${base()}/entries/me`));
        },
      }, t('tour.withdraw')));
    }
  } else if (view.entries_open) {
    if (!me) {
      parts.push(h('p', { class: 'muted' }, t('tour.need_name')));
    } else {
      if (view.mode === 'ganda') parts.push(partnerPicker());
      if (isBattle(view)) parts.push(entryClubPicker(view));
      parts.push(h('button', {
        type: 'button', class: 'btn btn-primary', 'data-testid': 'tournament-enter', disabled: tv.busy,
        onClick: () => enter(view),
      }, view.mode === 'ganda' ? t('tour.enter.pair') : t('tour.enter')));
    }
  }
  if (isOrganizer(view, me) && (view.status === 'registering' || view.status === 'running')) {
    const ready = view.entrants.filter((e) => !e.withdrawn && isConfirmed(view, e)).length;
    parts.push(h('div', { class: 'tour-organizer', 'data-testid': 'tournament-organizer-tools' },
      view.status === 'registering' ? h('button', {
        type: 'button', class: 'btn btn-primary', 'data-testid': 'tournament-start-button', disabled: tv.busy,
        onClick: () => act('start', () => request('POST', `${base()}/start`)),
      }, t('tour.start')) : null,
      view.status === 'registering' ? h('span', { class: 'muted small' }, t('tour.start.hint', { n: ready, min: view.min_entrants })) : null,
      h('button', {
        type: 'button', class: 'btn btn-danger btn-small', 'data-testid': 'tournament-cancel-button', disabled: tv.busy,
        onClick: () => {
          if (!window.confirm(t('tour.cancel.confirm'))) return;
          act('cancel', () => request('POST', `${base()}/cancel`));
        },
      }, t('tour.cancel'))));
  }
  if (!parts.length) return null;
  return h('section', { class: 'card tour-entry', 'data-testid': 'tournament-entry' }, ...parts);
}

function partnerPicker() {
  const friends = tv.friends || [];
  return h('div', { class: 'field tour-partner' },
    h('label', { for: 'tour-partner', class: 'field-label' }, t('tour.partner')),
    friends.length ? h('select', {
      class: 'input', 'data-testid': 'tournament-partner-friend', 'aria-label': t('tour.partner.friend'),
      onChange: (e) => { tv.partner = e.target.value; changed(); },
    }, h('option', { value: '' }, t('tour.partner.friend')),
    friends.map((f) => h('option', { value: f.player_id, selected: tv.partner === f.player_id }, f.name))) : null,
    h('input', {
      id: 'tour-partner', class: 'input', value: tv.partner, placeholder: t('tour.partner.id'),
      autocomplete: 'off', spellcheck: 'false', maxlength: '32',
      'data-testid': 'tournament-partner', 'data-focus': 'tour-partner',
      onInput: (e) => { tv.partner = e.target.value; },
    }),
    h('p', { class: 'muted small' }, t('tour.partner.hint')));
}

function entrantsCard(view) {
  const live = view.entrants.filter((e) => !e.withdrawn);
  return h('section', { class: 'card tour-entrants', 'data-testid': 'tournament-entrants', 'data-count': live.length },
    h('h2', {}, t('tour.entrants', { n: live.filter((e) => isConfirmed(view, e)).length, max: view.max_entrants })),
    view.entrants.length ? h('ul', { class: 'tour-entrant-list' }, view.entrants.map((e) => h('li', {
      class: `tour-entrant${e.withdrawn ? ' withdrawn' : ''}`,
      'data-testid': 'tournament-entrant',
      'data-entry': e.id,
      'data-confirmed': String(isConfirmed(view, e)),
      'data-withdrawn': String(e.withdrawn),
    }, entrantPlayers(e).map((p, i) => [i ? ' & ' : null, profileLink(p.player_id, p.name)]),
    e.club ? [' ', h('span', { class: 'pill club-pill', 'data-testid': 'tournament-entrant-club', 'data-club': e.club.id }, e.club.name)] : null,
    !isConfirmed(view, e) ? h('span', { class: 'muted small' }, ` ${t('tour.waiting_partner')}`) : null,
    e.withdrawn ? h('span', { class: 'muted small' }, ` ${t('tour.withdrawn')}`) : null))) : h('p', { class: 'muted' }, t('tour.no_entrants')));
}

const num = (x) => (typeof x === 'number' ? x.toLocaleString(lang() === 'id' ? 'id-ID' : 'en-GB') : '');

function standingsCard(view) {
  if (!view.standings || !view.standings.length) return null;
  const mine = entryOf(view, myPlayerId());
  return h('section', { class: 'card tour-standings', 'data-testid': 'tournament-standings' },
    h('h2', {}, view.status === 'finished' ? t('tour.standings.final') : t('tour.standings')),
    h('div', { class: 'tour-scroll' },
      h('table', { class: 'tour-table' },
        h('thead', {}, h('tr', {},
          h('th', { scope: 'col' }, '#'),
          h('th', { scope: 'col' }, t('tour.col.entrant')),
          h('th', { scope: 'col', class: 'num' }, t('tour.col.points')),
          h('th', { scope: 'col', class: 'num' }, t('tour.col.deal_points')),
          h('th', { scope: 'col', class: 'num' }, t('tour.col.buchholz')))),
        h('tbody', {}, view.standings.map((row) => h('tr', {
          class: mine && mine.id === row.entrant ? 'mine' : '',
          'data-testid': 'standing-row',
          'data-rank': row.rank,
          'data-entry': row.entrant,
          'data-points': row.points,
        },
        h('td', {}, String(row.rank)),
        h('td', {}, entrantLabel(view, row.entrant)),
        h('td', { class: 'num' }, num(row.points)),
        h('td', { class: 'num' }, num(row.tiebreaks && row.tiebreaks.deal_points)),
        h('td', { class: 'num' }, num(row.tiebreaks && row.tiebreaks.buchholz))))))));
}

/** A team battle's ranking of clubs: each club's points are its best entrants' (the server's
 * `club_standings`), and who counted. */
function clubStandingsCard(view) {
  const rows = clubStandingRows(view);
  if (!rows.length) return null;
  return h('section', { class: 'card tour-standings club-standings', 'data-testid': 'club-standings' },
    h('h2', {}, t('club.standings')),
    h('p', { class: 'muted small' }, t('club.battle.hint', { n: view.club_battle.best })),
    h('div', { class: 'tour-scroll' },
      h('table', { class: 'tour-table' },
        h('thead', {}, h('tr', {},
          h('th', { scope: 'col' }, '#'),
          h('th', { scope: 'col' }, t('club.col.club')),
          h('th', { scope: 'col', class: 'num' }, t('club.col.points')),
          h('th', { scope: 'col' }, t('club.col.counted')))),
        h('tbody', {}, rows.map((row) => h('tr', {
          'data-testid': 'club-standing', 'data-rank': row.rank, 'data-club': row.club.id, 'data-points': row.points,
        },
        h('td', {}, String(row.rank)),
        h('td', {}, clubLink(row.club)),
        h('td', { class: 'num' }, num(row.points)),
        h('td', { class: 'small club-counted' }, row.counted.join(', '))))))));
}

function tableCard(view, table, round, mineCode) {
  const state = tableState(table);
  const rows = tableRows(table);
  const mine = Boolean(mineCode && mineCode.round === round && mineCode.table === table);
  const setId = replaySet(table);
  const replay = setId === null ? null
    : link(replayPath(setId), t('tour.table.replay'), { class: 'btn btn-ghost btn-small', 'data-testid': 'tournament-table-replay' });
  return h('li', {
    class: `tour-tablecard${mine ? ' mine' : ''}`,
    'data-testid': 'tournament-table',
    'data-round': round,
    'data-number': table.number,
    'data-code': table.code || '',
    'data-state': state,
    'data-mine': String(mine),
  },
  h('div', { class: 'tour-table-head' },
    h('span', { class: 'tour-table-no' }, t('tour.table.n', { n: table.number })),
    mine ? h('span', { class: 'pill tour-mine-pill' }, t('tour.table.mine')) : null,
    state === 'setup'
      ? h('span', { class: 'muted small', 'data-testid': 'tournament-table-setup' }, t('tour.table.setup'))
      : link(`/r/${table.code}`, mine && state === 'playing' ? t('tour.table.play') : t('tour.table.watch'), {
        class: `btn btn-small${mine && state === 'playing' ? ' btn-primary' : ' btn-ghost'}`, 'data-testid': 'tournament-table-link',
      }),
    replay),
  h('ol', { class: 'tour-table-seats' }, rows.map((r) => h('li', { class: r.on && view.format === 'knockout' ? 'on' : '', 'data-entry': r.id },
    h('span', { class: 'tour-seat-name' }, entrantLabel(view, r.id)),
    r.place !== null ? h('span', { class: 'tour-seat-result small' }, t('tour.table.result', { place: r.place, points: num(r.points) })) : null))));
}

function roundsCard(view) {
  if (!view.rounds || !view.rounds.length) return null;
  const mine = myTable(view, myPlayerId());
  const mineRef = mine ? { round: mine.round, table: mine.table } : null;
  const rounds = [...view.rounds].reverse(); // the round being played first
  return h('section', { class: 'card tour-rounds', 'data-testid': 'tournament-rounds' },
    h('h2', {}, t('tour.rounds')),
    rounds.map((round) => h('div', { class: 'tour-round', 'data-testid': 'tournament-round', 'data-round': round.number, 'data-status': round.status },
      h('h3', {}, t('tour.round.n', { n: round.number }), ' ', h('span', { class: 'muted small' }, t(`tour.round.${round.status}`))),
      h('ul', { class: 'tour-tables' }, round.tables.map((table) => tableCard(view, table, round.number, mineRef))),
      round.byes && round.byes.length ? h('p', { class: 'muted small', 'data-testid': 'tournament-byes' },
        t('tour.byes', { names: round.byes.map((id) => entrantLabel(view, id)).join(', ') })) : null)));
}

function miniTable(view, table, mineId) {
  return h('div', {
    class: `br-table${(table.entrants || []).includes(mineId) ? ' mine' : ''}`,
    'data-testid': 'bracket-table',
    'data-state': tableState(table),
    'data-code': table.code || '',
  }, tableRows(table).map((r) => h('div', { class: `br-entrant${r.on ? ' on' : ''}`, 'data-entry': r.id },
    h('span', { class: 'br-name' }, entrantLabel(view, r.id)),
    h('span', { class: 'br-place' }, r.place === null ? '' : String(r.place)))),
  table.code ? link(`/r/${table.code}`, table.result ? t('tour.table.watch') : t('tour.table.live'), { class: 'br-link small' })
    : h('span', { class: 'br-link small muted' }, t('tour.table.setup')));
}

function bracketCard(view) {
  const layout = bracketLayout(view);
  if (!layout) return null;
  const mine = entryOf(view, myPlayerId());
  const mineId = mine ? mine.id : null;
  return h('section', { class: 'card tour-bracket', 'data-testid': 'tournament-bracket', 'data-pools': layout.pools.length, 'data-columns': layout.columns.length },
    h('h2', {}, t('tour.bracket')),
    layout.pools.length ? h('div', { class: 'br-pools' }, layout.pools.map((pool) => h('div', { class: 'br-pool', 'data-testid': 'bracket-pool', 'data-pool': pool.name },
      h('h3', {}, t('tour.pool', { name: pool.name })),
      h('ol', { class: 'br-members small' }, pool.members.map((id) => h('li', { class: id === mineId ? 'mine' : '' }, entrantLabel(view, id)))),
      pool.rounds.filter((r) => r.tables.length).map((r) => h('div', { class: 'br-pool-round' },
        h('span', { class: 'muted small' }, t('tour.round.n', { n: r.number })),
        r.tables.map((table) => miniTable(view, table, mineId))))))) : null,
    h('div', { class: 'br-strip', 'data-testid': 'bracket-strip', tabindex: '0', role: 'group', 'aria-label': t('tour.bracket') },
      layout.columns.length ? layout.columns.map((col, i) => h('div', { class: 'br-col', 'data-testid': 'bracket-column', 'data-round': col.number },
        h('h3', { class: 'small' }, layout.final && i === layout.columns.length - 1 ? t('tour.final') : t('tour.round.n', { n: col.number })),
        h('div', { class: 'br-col-tables' }, col.tables.map((table) => miniTable(view, table, mineId))))) : h('p', { class: 'muted small' }, t('tour.bracket.later'))));
}

function detailView() {
  const d = tv.detail;
  if (d.status === 'error') {
    return h('section', { class: 'acct-page', 'data-testid': 'tournament', 'data-status': 'error' },
      h('p', { class: 'acct-error', role: 'alert', 'data-testid': 'tournament-error' }, d.error),
      link('/turnamen', t('tour.back'), { class: 'btn btn-ghost' }));
  }
  const view = d.view;
  if (!view) return h('section', { class: 'acct-page', 'data-testid': 'tournament', 'data-status': 'loading' }, h('p', { class: 'muted', role: 'status' }, t('tour.loading')));
  return h('section', {
    class: 'acct-page tournament',
    'data-testid': 'tournament',
    'data-status': 'ready',
    'data-id': view.id,
    'data-tournament-status': view.status,
  },
  link(`/turnamen${view.status === 'registering' ? '' : `?tab=${tabOf(view.status)}`}`, `‹ ${t('tour.back')}`, { class: 'tour-back small', 'data-testid': 'tournament-back' }),
  header(view),
  entryCard(view),
  clubStandingsCard(view),
  standingsCard(view),
  bracketCard(view),
  roundsCard(view),
  entrantsCard(view));
}

export function tournamentsView() {
  return tv.id === null ? listView() : detailView();
}
