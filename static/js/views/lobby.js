// The lobby: your name, play now, public tables, a table of your own, a code to join.
// Every choice list and default comes from the server's presets (../presets.js).

import { h } from '../dom.js';
import { icon } from '../icons.js';
import { t, lang, has } from '../i18n.js';
import { modeLabel, lengthLabel } from './common.js';
import { initial } from '../text.js';
import { nameLength } from '../text.js';
import { profileLink } from './profile.js';
import { practiceCard } from './practice.js';
import { partnerQuickButton } from './social.js';
import { partner } from '../social.js';
import { clubSelect, clubsLink, myClubs, clubLink } from './clubs.js';
import {
  presetNames, fieldOf, fieldKeys, choicesOf, rangeOf, fieldShown, draftFor, payloadFor,
  joinBotsDefault, quickplayChoices, nameMaxLength,
} from '../presets.js';

/** The draft for a preset when the host picks it: the server's defaults (see presets.draftFor). */
export function presetDefaults(preset, current = null) {
  return draftFor(preset, current);
}

/** The settings to send for a draft: only its preset's keys (a PORDI room refuses Klasik ones). */
export function settingsPayload(d) {
  return payloadFor(d);
}

/** Settings with a control of their own: a 422 naming one of them is shown next to it. */
export function knownFields(preset) {
  return fieldKeys(preset);
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

/** Deals per set (Tunggal, Klasik penalty) or target points (Ganda, Klasik difference): the one
 * the preset's `when` says matters under the draft's mode or scoring. */
export function lengthField(prefix, d, set, errors) {
  const target = fieldOf(d.preset, 'target_points');
  const deals = fieldOf(d.preset, 'deals_per_set');
  if (target && fieldShown(target, d)) {
    return numberField(`${prefix}-target`, `${prefix}-target-points`, t('create.target'), d.target_points,
      target.min, target.max, (v) => set('target_points', v), fieldError(errors, 'target_points'));
  }
  if (!deals) return null;
  const [low, high] = rangeOf(d.preset, 'deals_per_set');
  return numberField(`${prefix}-deals`, `${prefix}-deals-per-set`, t('create.deals'), d.deals_per_set, low, high,
    (v) => set('deals_per_set', v), fieldError(errors, 'deals_per_set'));
}

/** A select over a "choice" field's values. */
export function choiceSelect(prefix, key, d, label, optionLabel, onValue, errors) {
  const id = `${prefix}-${key.replaceAll('_', '-')}`;
  return h('div', { class: 'field' },
    h('label', { for: id, class: 'field-label' }, label),
    h('select', {
      id,
      class: 'input',
      'data-testid': id,
      'data-focus': id,
      onChange: (e) => {
        const value = choicesOf(d.preset, key).find((c) => String(c) === e.target.value);
        onValue(value);
      },
    }, choicesOf(d.preset, key).map((c) => h('option', { value: String(c), selected: d[key] === c }, optionLabel(c)))),
    fieldError(errors, key));
}

/** The preset select (every preset the server offers). */
export function presetSelect(prefix, d, onPreset, errors) {
  return h('div', { class: 'field' },
    h('label', { for: `${prefix}-preset`, class: 'field-label' }, t('create.preset')),
    h('select', {
      id: `${prefix}-preset`,
      class: 'input',
      'data-testid': `${prefix}-preset`,
      'data-focus': `${prefix}-preset`,
      onChange: (e) => onPreset(e.target.value),
    }, presetNames().map((p) => h('option', { value: p, selected: d.preset === p }, t(`create.preset.${p}`)))),
    fieldError(errors, 'preset'));
}

/** Public, and whether others may take a bot's seat (its default follows `public` until set). */
export function visibilityFields(prefix, d, set, act) {
  const joinBots = fieldOf(d.preset, 'allow_join_bots');
  return [
    h('label', { class: 'check' },
      h('input', {
        type: 'checkbox',
        checked: Boolean(d.public),
        'data-testid': `${prefix}-public`,
        'data-focus': `${prefix}-public`,
        onChange: (e) => {
          set('public', e.target.checked);
          if (joinBots && !d.joinBotsChosen) {
            set('allow_join_bots', joinBotsDefault(d.preset, e.target.checked));
            act.redraw();
          }
        },
      }),
      h('span', {}, t('create.public'))),
    joinBots ? h('label', { class: 'check' },
      h('input', {
        type: 'checkbox',
        checked: Boolean(d.allow_join_bots),
        'data-testid': `${prefix}-allow-join-bots`,
        'data-focus': `${prefix}-allow-join-bots`,
        onChange: (e) => {
          set('joinBotsChosen', true);
          set('allow_join_bots', e.target.checked);
        },
      }),
      h('span', {}, t('create.allow_join_bots'))) : null,
  ];
}

/** The Klasik options: players, 7 tiles (where its `when` allows), discards, 0-0 counts 25,
 * scoring and its length; the choices are the preset's. */
export function klasikFields(prefix, d, set, errors) {
  const check = (key, label, hint) => {
    const field = fieldOf(d.preset, key);
    if (!field) return null;
    const disabled = !fieldShown(field, d);
    return h('div', { class: 'field check-field' },
      h('label', { class: `check${disabled ? ' disabled' : ''}` },
        h('input', {
          type: 'checkbox',
          checked: Boolean(d[key]) && !disabled,
          disabled,
          'data-testid': `${prefix}-${key.replaceAll('_', '-')}`,
          'data-focus': `${prefix}-${key}`,
          onChange: (e) => set(key, e.target.checked, true),
        }),
        h('span', {}, label, hint && (disabled || key !== 'seven_tiles') ? h('span', { class: 'muted small block' }, hint) : null)),
      fieldError(errors, key));
  };
  const only = (fieldOf(d.preset, 'seven_tiles') || {}).when;
  const onlyHint = only && only.players ? t('klasik.seven_tiles.only', { n: only.players.join('/') }) : null;
  return h('fieldset', { class: 'field klasik-options', 'data-testid': `${prefix}-klasik-options` },
    h('legend', { class: 'field-label' }, t('klasik.options')),
    stuckChoice(prefix, d, set, errors),
    h('div', { class: 'field-row' },
      fieldOf(d.preset, 'players') ? choiceSelect(prefix, 'players', d, t('klasik.players'),
        (n) => t('klasik.players.n', { n }), (n) => set('players', n, true), errors) : null,
      fieldOf(d.preset, 'scoring') ? choiceSelect(prefix, 'scoring', d, t('klasik.scoring'),
        (k) => t(`klasik.scoring.${k}`), (k) => set('scoring', k, true), errors) : null,
      lengthField(prefix, d, set, errors)),
    check('seven_tiles', t('klasik.seven_tiles'), onlyHint),
    check('zero_zero_25', t('klasik.zero_zero_25'), null));
}

/** The game itself (the `stuck` field): Gaple Klasik, Block Domino or Draw Domino, each named
 * in the page's language (the server's English name when the page has none) with a hint. */
function stuckChoice(prefix, d, set, errors) {
  const field = fieldOf(d.preset, 'stuck');
  if (!field) return null;
  const names = field.names || {};
  const label = (c) => (has(`stuck.${c}`) ? t(`stuck.${c}`) : names[c] || c);
  return h('div', { class: 'field stuck-field', role: 'radiogroup', 'aria-label': t('stuck.label') },
    h('span', { class: 'field-label' }, t('stuck.label')),
    h('div', { class: 'segmented stuck-choices' }, field.choices.map((c) => h('button', {
      type: 'button',
      class: `seg${d.stuck === c ? ' on' : ''}`,
      role: 'radio',
      'aria-checked': String(d.stuck === c),
      'data-testid': `${prefix}-stuck-${c}`,
      'data-focus': `${prefix}-stuck-${c}`,
      onClick: () => set('stuck', c, true),
    }, h('span', { class: 'seg-name' }, label(c)),
    has(`stuck.${c}.hint`) ? h('span', { class: 'seg-hint' }, t(`stuck.${c}.hint`)) : null))),
    fieldError(errors, 'stuck'));
}

/** Whether a preset has the Klasik options (its fields say so, not its name). */
export function hasKlasikOptions(preset) {
  return Boolean(fieldOf(preset, 'players') || fieldOf(preset, 'scoring'));
}

/**
 * @param {object} state the app state
 * @param {object} act {saveName, editName, createTable, joinCode, openTable(code, sit), quickPlay,
 *   moreRooms, loadPresets}
 */
export function lobbyView(state, act) {
  // Regions (see dom.patchRegions): the table list refreshes every few seconds without
  // touching the forms.
  const p = state.player;
  const nameSig = JSON.stringify([p && p.name, state.drafts.editingName, nameMaxLength()]);
  const mate = partner();
  const quickSig = JSON.stringify([state.presets, state.drafts.quick, state.lobby.quickBusy, mate && mate.name]);
  const formsSig = JSON.stringify([state.presets, state.drafts.create, state.lobby.busy, state.lobby.createError, myClubs()]);
  const tablesSig = JSON.stringify([state.lobby.rooms, state.lobby.extra, state.lobby.next, state.lobby.more,
    state.lobby.error]);
  return h('section', {
    class: 'lobby',
    'data-testid': 'lobby',
    'data-screen': `lobby:${lang()}`,
    'aria-labelledby': 'lobby-title',
  },
  h('div', { class: 'lobby-hero' },
    h('h1', { id: 'lobby-title' }, t('app.name')),
    h('p', { class: 'tagline' }, t('app.tagline')),
    h('div', { class: 'hero-links' }, tournamentsLink(), clubsLink())),
  h('div', { class: 'lobby-grid' },
    h('div', { class: 'lobby-col lobby-top', 'data-region': 'name', 'data-sig': nameSig }, nameCard(state, act)),
    h('div', { class: 'lobby-col lobby-quick', 'data-region': 'quick', 'data-sig': quickSig }, quickCard(state, act), practiceCard(state, act)),
    h('div', { class: 'lobby-col lobby-tables', 'data-region': 'tables', 'data-sig': tablesSig }, tablesCard(state, act)),
    h('div', { class: 'lobby-col lobby-forms', 'data-region': 'forms', 'data-sig': formsSig },
      createCard(state, act),
      joinCard(state, act))));
}

/** The Tournaments page, from the lobby (the top bar's trophy is left out on a phone). */
function tournamentsLink() {
  return h('a', {
    class: 'hero-link',
    href: '/turnamen',
    'data-testid': 'lobby-tournaments',
    'data-focus': 'lobby-tournaments',
    onClick: (e) => {
      if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
      e.preventDefault();
      window.history.pushState({}, '', '/turnamen');
      window.dispatchEvent(new PopStateEvent('popstate'));
    },
  }, icon('trophy'), ' ', t('nav.tournaments'));
}

/** A server-data problem in place of a form: the presets did not load. */
function presetsMissing(state, act, title) {
  return h('div', { class: 'card', 'data-testid': 'presets-missing' },
    title ? h('h2', {}, title) : null,
    h('p', { class: 'muted', role: state.presets === 'error' ? 'alert' : 'status' },
      state.presets === 'error' ? t('presets.error') : t('presets.loading')),
    state.presets === 'error'
      ? h('button', { type: 'button', class: 'btn', 'data-focus': `presets-retry-${title}`, onClick: act.loadPresets }, t('conn.retry'))
      : null);
}

/** Play now: Tunggal or Ganda, the clock, and one big button to a table that starts soon. */
function quickCard(state, act) {
  const q = state.drafts.quick;
  const choices = quickplayChoices();
  if (state.presets !== 'ready' || !q || !choices) return presetsMissing(state, act, null);
  const seg = (key, value, label, hint) => h('label', { class: `seg${q[key] === value ? ' on' : ''}` },
    h('input', {
      type: 'radio',
      name: `quick-${key}`,
      value: String(value),
      checked: q[key] === value,
      'data-testid': `quickplay-${key === 'turn_seconds' ? 'turn' : key}-${value}`,
      'data-focus': `quick-${key}-${value}`,
      onChange: () => {
        q[key] = value;
        act.redraw();
      },
    }),
    h('span', { class: 'seg-title' }, label),
    hint ? h('span', { class: 'seg-hint' }, hint) : null);
  return h('form', {
    class: 'card quick-card',
    'data-testid': 'quickplay',
    'aria-labelledby': 'quick-title',
    onSubmit: (e) => {
      e.preventDefault();
      act.quickPlay();
    },
  },
  h('h2', { id: 'quick-title' }, t('quick.title')),
  h('p', { class: 'muted small quick-hint' }, t('quick.hint')),
  choices.presets.length > 1 ? h('fieldset', { class: 'field' },
    h('legend', { class: 'field-label' }, t('create.preset')),
    h('div', { class: 'segmented' }, choices.presets.map((p) => seg('preset', p, t(`create.preset.${p}`), null)))) : null,
  h('fieldset', { class: 'field' },
    h('legend', { class: 'field-label' }, t('create.mode')),
    h('div', { class: 'segmented' }, choices.modes.map((m) => seg('mode', m, modeLabel(m), t(`mode.${m}.hint`))))),
  h('fieldset', { class: 'field' },
    h('legend', { class: 'field-label' }, t('create.timer')),
    h('div', { class: `segmented cols-${choices.turn_seconds.length}` },
      choices.turn_seconds.map((n) => seg('turn_seconds', n, t('seconds', { n }), null)))),
  h('button', {
    type: 'submit',
    class: 'btn btn-gold btn-block btn-huge',
    'data-testid': 'quickplay-submit',
    'data-focus': 'quickplay-submit',
    disabled: state.lobby.quickBusy,
  }, h('span', { class: 'btn-huge-title' }, t('quick.submit')),
  h('span', { class: 'btn-huge-sub' }, [
    choices.presets.length > 1 ? null : t(`create.preset.${q.preset}`),
    modeLabel(q.mode), t('seconds', { n: q.turn_seconds }),
  ].filter(Boolean).join(' · '))),
  // A party: either partner's Ganda quick play seats both, across (docs/API.md "Parties").
  choices.modes.includes('ganda') ? partnerQuickButton(act.quickPlay, q, state.lobby.quickBusy) : null);
}

export function nameCard(state, act, { compact = false } = {}) {
  const player = state.player;
  const editing = !player || !player.name || state.drafts.editingName;
  if (!editing) {
    return h('div', { class: 'card name-card', 'data-testid': 'name-card' },
      h('div', { class: 'name-row' },
        h('span', { class: 'avatar avatar-lg', 'aria-hidden': 'true' }, initial(player.name)),
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
  const max = nameMaxLength();
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
      // No maxlength: the browser would cut a long (or pasted) name without a word. The field
      // says how long it may be, and that a name is too long, with the server's own limit.
      required: true,
      placeholder: t('name.placeholder'),
      value: draft,
      'data-testid': 'name-input',
      'data-focus': 'name-input',
      'aria-describedby': 'name-hint name-limit',
      'aria-invalid': max !== null && nameLength(draft) > max ? 'true' : 'false',
      onInput: (e) => {
        state.drafts.name = e.target.value;
        showNameLimit(e.target, max);
      },
    }),
    h('button', { type: 'submit', class: 'btn btn-primary', 'data-testid': 'name-save', 'data-focus': 'name-save' }, t('name.save'))),
  h('p', { id: 'name-hint', class: 'muted small' }, t('name.hint')),
  nameLimitLine(draft, max));
}

/** "9/24", or "Too long: 30 characters, at most 24" (null when the limit is unknown). */
export function nameLimitText(name, max) {
  if (max === null) return null;
  const n = nameLength(name);
  return n > max ? t('name.too_long', { n, max }) : t('name.count', { n, max });
}

function nameLimitLine(name, max) {
  const text = nameLimitText(name, max);
  if (text === null) return null;
  const over = nameLength(name) > max;
  return h('p', {
    id: 'name-limit',
    class: `small name-limit${over ? ' over' : ' muted'}`,
    'data-testid': 'name-limit',
    'data-over': String(over),
    'aria-live': 'polite',
  }, text);
}

// Typing does not redraw the form (the caret stays put): the limit line follows the draft here.
function showNameLimit(input, max) {
  const line = input.form && input.form.querySelector('[data-testid="name-limit"]');
  if (!line) return;
  const over = nameLength(input.value) > max;
  line.textContent = nameLimitText(input.value, max);
  line.dataset.over = String(over);
  line.classList.toggle('over', over);
  line.classList.toggle('muted', !over);
  input.setAttribute('aria-invalid', over ? 'true' : 'false');
}

function createCard(state, act) {
  const d = state.drafts.create;
  if (state.presets !== 'ready' || !d) return presetsMissing(state, act, t('create.title'));
  const errors = state.lobby.createError;
  const set = (key, value, rerender = false) => {
    d[key] = value;
    if (rerender) act.redraw();
  };
  const modes = choicesOf(d.preset, 'mode');
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
  const klasik = hasKlasikOptions(d.preset);

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
  presetSelect('create', d, (preset) => {
    state.drafts.create = presetDefaults(preset, d);
    act.clearCreateError();
    act.redraw();
  }, errors),
  // One mode only (Klasik is Tunggal): nothing to choose.
  modes.length > 1 ? h('fieldset', { class: 'field' },
    h('legend', { class: 'field-label' }, t('create.mode')),
    h('div', { class: 'segmented' }, modes.map(radio)),
    fieldError(errors, 'mode')) : null,
  h('div', { class: 'field-row' },
    choiceSelect('create', 'turn_seconds', d, t('create.timer'), (n) => t('seconds', { n }),
      (n) => set('turn_seconds', n), errors),
    klasik ? null : lengthField('create', d, set, errors)),
  klasik ? klasikFields('create', d, set, errors) : null,
  fieldError(errors, null, [...knownFields(d.preset), 'club_id']),
  visibilityFields('create', d, set, act),
  clubSelect('create', d.club_id || null, (id) => set('club_id', id, true), t('club.room')),
  fieldError(errors, 'club_id'),
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
      // A whole invite link may be pasted here (roomcode.js takes the code out of it).
      placeholder: t('join.placeholder'),
      value: state.drafts.code,
      'data-testid': 'join-code-input',
      'data-focus': 'join-code-input',
      onInput: (e) => { state.drafts.code = e.target.value; },
    }),
    h('button', { type: 'submit', class: 'btn', 'data-testid': 'join-code-submit', 'data-focus': 'join-code-submit' }, t('join.submit'))));
}

function tablesCard(state, act) {
  const first = state.lobby.rooms;
  let body;
  if (first === null) body = h('p', { class: 'muted' }, state.lobby.error ? t('tables.error') : t('tables.loading'));
  else {
    // Later pages are kept as loaded; a room that moved up to the first page is shown once.
    const seen = new Set(first.map((r) => r.code));
    const rooms = [...first, ...state.lobby.extra.filter((r) => !seen.has(r.code))];
    body = rooms.length
      ? h('ul', { class: 'room-list', 'data-testid': 'rooms-list' }, rooms.map((room) => roomRow(room, act)))
      : h('p', { class: 'muted empty' }, t('tables.empty'));
  }
  return h('section', { class: 'card tables-card', 'aria-labelledby': 'tables-title', 'data-testid': 'tables' },
    h('h2', { id: 'tables-title' }, t('tables.title')),
    state.lobby.error && first ? h('p', { class: 'muted small' }, t('tables.error')) : null,
    body,
    state.lobby.next ? h('button', {
      type: 'button',
      class: 'btn btn-block rooms-more',
      'data-testid': 'rooms-more',
      'data-focus': 'rooms-more',
      disabled: state.lobby.more,
      onClick: act.moreRooms,
    }, state.lobby.more ? t('tables.loading') : t('tables.more')) : null);
}

/** "Budi's table", the name a link to the host's profile. */
function hostLine(room) {
  if (!room.hostId) return t('tables.host', { name: room.hostName });
  const [before, after = ''] = t('tables.host').split('{name}');
  return [before, profileLink(room.hostId, room.hostName), after];
}

function roomRow(room, act) {
  const s = room.settings;
  const total = room.seats.length;
  const full = total > 0 && room.seatsTaken >= total;
  const canSit = room.seatsFree !== null ? room.seatsFree > 0 : room.status === 'open' && !full;
  return h('li', { class: 'room-row', 'data-testid': 'room-row', 'data-code': room.code, 'data-status': room.status },
    h('div', { class: 'room-main' },
      h('div', { class: 'room-title' },
        h('span', { class: 'room-name' }, room.hostName ? hostLine(room) : room.code),
        h('span', { class: `status-pill status-${room.status}` }, t(`status.${room.status}`) || room.status),
        room.quickplay ? h('span', { class: 'status-pill status-quick', 'data-testid': 'room-quick' }, t('tables.quick')) : null,
        room.club ? h('span', { class: 'status-pill status-club', 'data-testid': 'room-club', 'data-club': room.club.id },
          clubLink({ id: room.club.id, name: t('club.room.label', { name: room.club.name }) }, 'room-club-link')) : null),
      h('div', { class: 'room-facts' },
        s.preset === 'klasik' ? h('span', { class: 'mode-pill mode-klasik' }, t('create.preset.klasik')) : null,
        h('span', { class: `mode-pill mode-${s.mode}` }, modeLabel(s.mode)),
        h('span', {}, t('seconds', { n: s.turn_seconds })),
        h('span', {}, lengthLabel(s)),
        total ? h('span', { 'data-testid': 'room-seats' }, t('tables.seats', { n: room.seatsTaken, total })) : null,
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
        }, room.status === 'playing' ? t('tables.take_bot') : t('tables.join'))
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
