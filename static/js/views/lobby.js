// The lobby: your name, public tables, a table of your own, a code to join.

import { h } from '../dom.js';
import { t, lang } from '../i18n.js';
import { modeLabel, lengthLabel } from './common.js';

const TIMERS = [15, 30, 60];
const PRESETS = ['pordi', 'klasik'];
// Settings that have their own control: a 422 naming one of them is shown next to it.
const KNOWN_FIELDS = ['preset', 'mode', 'players', 'seven_tiles', 'discard', 'zero_zero_25', 'scoring',
  'deals_per_set', 'target_points'];

/** The settings a preset starts from (docs/API.md): Klasik is Tunggal, 4 players, discards on. */
export function presetDefaults(preset, current = {}) {
  if (preset === 'klasik') {
    return {
      preset,
      mode: 'tunggal',
      players: 4,
      seven_tiles: false,
      discard: true,
      zero_zero_25: false,
      scoring: 'difference',
      target_points: 100,
      deals_per_set: current.deals_per_set || 7,
    };
  }
  return { preset: 'pordi', target_points: 7, deals_per_set: current.deals_per_set || 7 };
}

/** The settings to send for a draft: Klasik keys only in a Klasik room (a PORDI room refuses them). */
export function settingsPayload(d) {
  const out = {
    preset: d.preset,
    mode: d.preset === 'klasik' ? 'tunggal' : d.mode,
    turn_seconds: d.turn_seconds,
    deals_per_set: d.deals_per_set,
    target_points: d.target_points,
    public: d.public,
  };
  if (typeof d.chat === 'boolean') out.chat = d.chat;
  if (d.preset === 'klasik') {
    out.players = d.players === 5 ? 5 : 4;
    out.seven_tiles = out.players === 4 && Boolean(d.seven_tiles);
    out.discard = d.discard !== false;
    out.zero_zero_25 = Boolean(d.zero_zero_25);
    out.scoring = d.scoring === 'penalty' ? 'penalty' : 'difference';
  }
  return out;
}

/**
 * The message of a 422 next to the field it names (`field`), or, with field null, any error whose
 * field has no control of its own (`known` lists those that do).
 */
export function fieldError(err, field, known = null) {
  if (!err) return null;
  if (field !== null && err.field !== field) return null;
  if (field === null && known && known.includes(err.field)) return null;
  return h('p', {
    class: 'field-error',
    role: 'alert',
    'data-testid': 'field-error',
    'data-field': err.field || '',
  }, err.text);
}

/** Deals per set (Tunggal, Klasik penalty) or target points (Ganda, Klasik difference). */
export function lengthField(prefix, d, set, errors) {
  const klasik = d.preset === 'klasik';
  const byTarget = klasik ? d.scoring !== 'penalty' : d.mode === 'ganda';
  if (byTarget) {
    const max = klasik ? 1000 : 99;
    return numberField(`${prefix}-target`, `${prefix}-target-points`, t('create.target'), d.target_points, 1, max,
      (v) => set('target_points', v), fieldError(errors, 'target_points'));
  }
  return numberField(`${prefix}-deals`, `${prefix}-deals-per-set`, t('create.deals'), d.deals_per_set, 1, 21,
    (v) => set('deals_per_set', v), fieldError(errors, 'deals_per_set'));
}

/** The Klasik options: players, 7 tiles (4 only), discards, 0-0 counts 25, scoring and its length. */
export function klasikFields(prefix, d, set, errors) {
  const check = (key, label, hint, disabled = false) => h('div', { class: 'field check-field' },
    h('label', { class: `check${disabled ? ' disabled' : ''}` },
      h('input', {
        type: 'checkbox',
        checked: Boolean(d[key]) && !disabled,
        disabled,
        'data-testid': `${prefix}-${key.replaceAll('_', '-')}`,
        'data-focus': `${prefix}-${key}`,
        onChange: (e) => set(key, e.target.checked, true),
      }),
      h('span', {}, label, hint ? h('span', { class: 'muted small block' }, hint) : null)),
    fieldError(errors, key));
  return h('fieldset', { class: 'field klasik-options', 'data-testid': `${prefix}-klasik-options` },
    h('legend', { class: 'field-label' }, t('klasik.options')),
    h('div', { class: 'field-row' },
      h('div', { class: 'field' },
        h('label', { for: `${prefix}-players`, class: 'field-label' }, t('klasik.players')),
        h('select', {
          id: `${prefix}-players`,
          class: 'input',
          'data-testid': `${prefix}-players`,
          'data-focus': `${prefix}-players`,
          onChange: (e) => {
            const n = Number(e.target.value) === 5 ? 5 : 4;
            if (n === 5) set('seven_tiles', false);
            set('players', n, true);
          },
        }, [4, 5].map((n) => h('option', { value: String(n), selected: d.players === n }, t('klasik.players.n', { n })))),
        fieldError(errors, 'players')),
      h('div', { class: 'field' },
        h('label', { for: `${prefix}-scoring`, class: 'field-label' }, t('klasik.scoring')),
        h('select', {
          id: `${prefix}-scoring`,
          class: 'input',
          'data-testid': `${prefix}-scoring`,
          'data-focus': `${prefix}-scoring`,
          onChange: (e) => set('scoring', e.target.value === 'penalty' ? 'penalty' : 'difference', true),
        }, ['difference', 'penalty'].map((k) => h('option', { value: k, selected: d.scoring === k }, t(`klasik.scoring.${k}`)))),
        fieldError(errors, 'scoring')),
      lengthField(prefix, d, set, errors)),
    check('seven_tiles', t('klasik.seven_tiles'), d.players === 5 ? t('klasik.seven_tiles.only4') : null, d.players === 5),
    check('discard', t('klasik.discard'), t('klasik.discard.hint')),
    check('zero_zero_25', t('klasik.zero_zero_25'), null));
}

/**
 * @param {object} state the app state
 * @param {object} act {saveName, editName, createTable, joinCode, openTable(code, sit)}
 */
export function lobbyView(state, act) {
  // Two regions (see dom.patchRegions): the table list refreshes every few seconds without
  // touching the forms on the left.
  const p = state.player;
  const formsSig = JSON.stringify([p && p.name, state.drafts.editingName, state.drafts.create, state.lobby.busy,
    state.lobby.createError]);
  const tablesSig = JSON.stringify([state.lobby.rooms, state.lobby.error]);
  return h('section', {
    class: 'lobby',
    'data-testid': 'lobby',
    'data-screen': `lobby:${lang()}`,
    'aria-labelledby': 'lobby-title',
  },
  h('div', { class: 'lobby-hero' },
    h('h1', { id: 'lobby-title' }, t('app.name')),
    h('p', { class: 'tagline' }, t('app.tagline'))),
  h('div', { class: 'lobby-grid' },
    h('div', { class: 'lobby-col', 'data-region': 'forms', 'data-sig': formsSig },
      nameCard(state, act),
      createCard(state, act),
      joinCard(state, act)),
    h('div', { class: 'lobby-col', 'data-region': 'tables', 'data-sig': tablesSig }, tablesCard(state, act))));
}

export function nameCard(state, act, { compact = false } = {}) {
  const player = state.player;
  const editing = !player || !player.name || state.drafts.editingName;
  if (!editing) {
    return h('div', { class: 'card name-card', 'data-testid': 'name-card' },
      h('div', { class: 'name-row' },
        h('span', { class: 'avatar avatar-lg', 'aria-hidden': 'true' }, (player.name[0] || '?').toUpperCase()),
        h('div', {},
          h('div', { class: 'muted small' }, t('name.playing_as')),
          h('div', { class: 'name-value', 'data-testid': 'current-name' }, player.name)),
        h('button', {
          type: 'button',
          class: 'btn btn-ghost btn-small',
          'data-testid': 'name-change',
          'data-focus': 'name-change',
          onClick: act.editName,
        }, t('name.change'))));
  }
  const draft = state.drafts.name;
  return h('form', {
    class: `card name-card${compact ? ' compact' : ''}`,
    'data-testid': 'name-form',
    onSubmit: (e) => {
      e.preventDefault();
      act.saveName();
    },
  },
  h('label', { for: 'name-input', class: 'field-label' }, t('name.label')),
  h('div', { class: 'inline-field' },
    h('input', {
      id: 'name-input',
      class: 'input',
      type: 'text',
      name: 'name',
      autocomplete: 'nickname',
      maxlength: '24',
      required: true,
      placeholder: t('name.placeholder'),
      value: draft,
      'data-testid': 'name-input',
      'data-focus': 'name-input',
      'aria-describedby': 'name-hint',
      onInput: (e) => { state.drafts.name = e.target.value; },
    }),
    h('button', { type: 'submit', class: 'btn btn-primary', 'data-testid': 'name-save', 'data-focus': 'name-save' }, t('name.save'))),
  h('p', { id: 'name-hint', class: 'muted small' }, t('name.hint')));
}

function createCard(state, act) {
  const d = state.drafts.create;
  const errors = state.lobby.createError;
  const set = (key, value, rerender = false) => {
    d[key] = value;
    if (rerender) act.redraw();
  };
  const radio = (mode) => h('label', { class: `seg${d.mode === mode ? ' on' : ''}` },
    h('input', {
      type: 'radio',
      name: 'mode',
      value: mode,
      checked: d.mode === mode,
      'data-testid': `create-mode-${mode}`,
      'data-focus': `create-mode-${mode}`,
      onChange: () => set('mode', mode, true),
    }),
    h('span', { class: 'seg-title' }, modeLabel(mode)),
    h('span', { class: 'seg-hint' }, t(`mode.${mode}.hint`)));

  return h('form', {
    class: 'card create-card',
    'data-testid': 'create-form',
    'aria-labelledby': 'create-title',
    onSubmit: (e) => {
      e.preventDefault();
      act.createTable();
    },
  },
  h('h2', { id: 'create-title' }, t('create.title')),
  h('div', { class: 'field' },
    h('label', { for: 'create-preset', class: 'field-label' }, t('create.preset')),
    h('select', {
      id: 'create-preset',
      class: 'input',
      'data-testid': 'create-preset',
      'data-focus': 'create-preset',
      onChange: (e) => {
        Object.assign(d, presetDefaults(e.target.value, d));
        act.clearCreateError();
        act.redraw();
      },
    }, PRESETS.map((p) => h('option', { value: p, selected: d.preset === p }, t(`create.preset.${p}`)))),
    fieldError(errors, 'preset')),
  d.preset === 'klasik' ? null : h('fieldset', { class: 'field' },
    h('legend', { class: 'field-label' }, t('create.mode')),
    h('div', { class: 'segmented' }, radio('tunggal'), radio('ganda')),
    fieldError(errors, 'mode')),
  h('div', { class: 'field-row' },
    h('div', { class: 'field' },
      h('label', { for: 'create-timer', class: 'field-label' }, t('create.timer')),
      h('select', {
        id: 'create-timer',
        class: 'input',
        'data-testid': 'create-turn-seconds',
        'data-focus': 'create-turn-seconds',
        onChange: (e) => set('turn_seconds', Number(e.target.value)),
      }, TIMERS.map((n) => h('option', { value: String(n), selected: d.turn_seconds === n }, t('seconds', { n }))))),
    d.preset === 'klasik' ? null : lengthField('create', d, set, errors)),
  d.preset === 'klasik' ? klasikFields('create', d, set, errors) : null,
  fieldError(errors, null, KNOWN_FIELDS),
  h('label', { class: 'check' },
    h('input', {
      type: 'checkbox',
      checked: d.public,
      'data-testid': 'create-public',
      'data-focus': 'create-public',
      onChange: (e) => set('public', e.target.checked),
    }),
    h('span', {}, t('create.public'))),
  h('button', {
    type: 'submit',
    class: 'btn btn-primary btn-block',
    'data-testid': 'create-submit',
    'data-focus': 'create-submit',
    disabled: state.lobby.busy,
  }, t('create.submit')));
}

export function numberField(id, testid, label, value, min, max, onValue, extra = null) {
  return h('div', { class: 'field' },
    h('label', { for: id, class: 'field-label' }, label),
    h('input', {
      id,
      class: 'input',
      type: 'number',
      inputmode: 'numeric',
      min: String(min),
      max: String(max),
      step: '1',
      required: true,
      value: String(value),
      'data-testid': testid,
      'data-focus': testid,
      onInput: (e) => {
        const n = Number.parseInt(e.target.value, 10);
        if (Number.isFinite(n)) onValue(Math.min(max, Math.max(min, n)));
      },
    }),
    extra);
}

function joinCard(state, act) {
  return h('form', {
    class: 'card join-card',
    'data-testid': 'join-form',
    'aria-labelledby': 'join-title',
    onSubmit: (e) => {
      e.preventDefault();
      act.joinCode();
    },
  },
  h('h2', { id: 'join-title' }, t('join.title')),
  h('label', { for: 'join-code', class: 'field-label' }, t('join.label')),
  h('div', { class: 'inline-field' },
    h('input', {
      id: 'join-code',
      class: 'input code-input',
      type: 'text',
      autocomplete: 'off',
      autocapitalize: 'characters',
      spellcheck: 'false',
      maxlength: '12',
      placeholder: t('join.placeholder'),
      value: state.drafts.code,
      'data-testid': 'join-code-input',
      'data-focus': 'join-code-input',
      onInput: (e) => { state.drafts.code = e.target.value; },
    }),
    h('button', { type: 'submit', class: 'btn', 'data-testid': 'join-code-submit', 'data-focus': 'join-code-submit' }, t('join.submit'))));
}

function tablesCard(state, act) {
  const rooms = state.lobby.rooms;
  let body;
  if (rooms === null) body = h('p', { class: 'muted' }, state.lobby.error ? t('tables.error') : t('tables.loading'));
  else if (!rooms.length) body = h('p', { class: 'muted empty' }, t('tables.empty'));
  else body = h('ul', { class: 'room-list', 'data-testid': 'rooms-list' }, rooms.map((room) => roomRow(room, act)));
  return h('section', { class: 'card tables-card', 'aria-labelledby': 'tables-title', 'data-testid': 'tables' },
    h('h2', { id: 'tables-title' }, t('tables.title')),
    state.lobby.error && rooms ? h('p', { class: 'muted small' }, t('tables.error')) : null,
    body);
}

function roomRow(room, act) {
  const s = room.settings;
  const total = room.seats.length || 4;
  const full = room.seatsTaken >= total;
  const canSit = room.status === 'open' && !full;
  return h('li', { class: 'room-row', 'data-testid': 'room-row', 'data-code': room.code, 'data-status': room.status },
    h('div', { class: 'room-main' },
      h('div', { class: 'room-title' },
        h('span', { class: 'room-name' }, room.hostName ? t('tables.host', { name: room.hostName }) : room.code),
        h('span', { class: `status-pill status-${room.status}` }, t(`status.${room.status}`) || room.status)),
      h('div', { class: 'room-facts' },
        s.preset === 'klasik' ? h('span', { class: 'mode-pill mode-klasik' }, t('create.preset.klasik')) : null,
        h('span', { class: `mode-pill mode-${s.mode}` }, modeLabel(s.mode)),
        h('span', {}, t('seconds', { n: s.turn_seconds })),
        h('span', {}, lengthLabel(s)),
        h('span', { 'data-testid': 'room-seats' }, t('tables.seats', { n: room.seatsTaken, total })),
        h('span', { 'data-testid': 'room-watchers' }, t('tables.watchers', { n: room.spectators })),
        h('span', { class: 'room-code-small', 'aria-hidden': 'true' }, room.code))),
    h('div', { class: 'room-actions' },
      canSit
        ? h('button', {
          type: 'button',
          class: 'btn btn-primary btn-small',
          'data-testid': 'room-join',
          'data-code': room.code,
          'data-focus': `join-${room.code}`,
          onClick: () => act.openTable(room.code, true),
        }, t('tables.join'))
        : null,
      h('button', {
        type: 'button',
        class: 'btn btn-small',
        'data-testid': 'room-watch',
        'data-code': room.code,
        'data-focus': `watch-${room.code}`,
        onClick: () => act.openTable(room.code, false),
      }, t('tables.watch'))));
}
