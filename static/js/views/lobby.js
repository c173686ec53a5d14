// The lobby: your name, public tables, a table of your own, a code to join.

import { h } from '../dom.js';
import { t, lang } from '../i18n.js';
import { modeLabel, lengthLabel } from './common.js';

const TIMERS = [15, 30, 60];

/**
 * @param {object} state the app state
 * @param {object} act {saveName, editName, createTable, joinCode, openTable(code, sit)}
 */
export function lobbyView(state, act) {
  // Two regions (see dom.patchRegions): the table list refreshes every few seconds without
  // touching the forms on the left.
  const p = state.player;
  const formsSig = JSON.stringify([p && p.name, state.drafts.editingName, state.drafts.create.mode, state.lobby.busy]);
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
    // One preset today; the select is here so "Klasik" is one <option> away.
    h('select', {
      id: 'create-preset',
      class: 'input',
      'data-testid': 'create-preset',
      'data-focus': 'create-preset',
      onChange: (e) => set('preset', e.target.value),
    }, h('option', { value: 'pordi', selected: d.preset === 'pordi' }, t('create.preset.pordi')))),
  h('fieldset', { class: 'field' },
    h('legend', { class: 'field-label' }, t('create.mode')),
    h('div', { class: 'segmented' }, radio('tunggal'), radio('ganda'))),
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
    d.mode === 'ganda'
      ? numberField('create-target', 'create-target-points', t('create.target'), d.target_points, 1, 99,
        (v) => set('target_points', v))
      : numberField('create-deals', 'create-deals-per-set', t('create.deals'), d.deals_per_set, 1, 21,
        (v) => set('deals_per_set', v))),
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

export function numberField(id, testid, label, value, min, max, onValue) {
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
    }));
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
  const full = room.seatsTaken >= 4;
  const canSit = room.status === 'open' && !full;
  return h('li', { class: 'room-row', 'data-testid': 'room-row', 'data-code': room.code, 'data-status': room.status },
    h('div', { class: 'room-main' },
      h('div', { class: 'room-title' },
        h('span', { class: 'room-name' }, room.hostName ? t('tables.host', { name: room.hostName }) : room.code),
        h('span', { class: `status-pill status-${room.status}` }, t(`status.${room.status}`) || room.status)),
      h('div', { class: 'room-facts' },
        h('span', { class: `mode-pill mode-${s.mode}` }, modeLabel(s.mode)),
        h('span', {}, t('seconds', { n: s.turn_seconds })),
        h('span', {}, lengthLabel(s)),
        h('span', { 'data-testid': 'room-seats' }, t('tables.seats', { n: room.seatsTaken })),
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
