// Before the set: the room's code and link, the four seats, the host's controls.

import { h } from '../dom.js';
import { t, lang } from '../i18n.js';
import { modeLabel, lengthLabel, initials } from './common.js';
import {
  nameCard, presetDefaults, settingsPayload, klasikFields, lengthField, fieldError,
} from './lobby.js';
import { icon } from '../icons.js';

const TIMERS = [15, 30, 60];

export function roomView(state, act) {
  const room = state.room;
  const info = room.info;
  if (room.notFound) {
    return h('section', { class: 'room-screen narrow', 'data-testid': 'room-not-found' },
      h('div', { class: 'card' },
        h('h1', {}, t('room.not_found', { code: room.code })),
        h('a', { class: 'btn btn-primary', href: '/', onClick: act.toLobby }, t('nav.lobby'))));
  }
  if (!info) {
    return h('section', { class: 'room-screen narrow' },
      h('div', { class: 'card loading-card', role: 'status' }, t('room.loading')));
  }
  const me = room.playerId || (state.player && state.player.player_id);
  const isHost = Boolean(me && info.hostId === me);
  const mySeat = info.seats.find((x) => me && x.player_id === me);
  const taken = info.seats.filter((x) => x.player_id || x.bot).length;
  const link = info.shareLink || `${window.location.origin}/r/${info.code || room.code}`;

  // Regions (see dom.patchRegions): a seat changing hands does not rebuild the host's form.
  const needName = !state.player || !state.player.name;
  const sig = (...parts) => JSON.stringify(parts);
  return h('section', {
    class: 'room-screen',
    'data-testid': 'room-screen',
    'data-screen': `room:${lang()}:${room.code}`,
    'aria-labelledby': 'room-title',
  },
  h('div', { 'data-region': 'head', 'data-sig': sig(info.code, link, info.settings, info.hostName, room.role) },
    h('div', { class: 'card room-head' },
      h('div', { class: 'room-head-main' },
        h('h1', { id: 'room-title', class: 'room-title' },
          h('span', { class: 'muted small block' }, t('room.code')),
          h('span', { class: 'room-code', 'data-testid': 'room-code' }, info.code || room.code)),
        h('p', { class: 'room-summary', 'data-testid': 'room-summary' },
          info.settings.preset === 'klasik'
            ? [h('span', { class: 'mode-pill mode-klasik' }, t('create.preset.klasik')), ' ']
            : null,
          h('span', { class: `mode-pill mode-${info.settings.mode}` }, modeLabel(info.settings.mode)),
          ' ',
          t('seconds', { n: info.settings.turn_seconds }), ' · ', lengthLabel(info.settings)),
        info.hostName ? h('p', { class: 'muted small' }, t('room.host_is', { name: info.hostName })) : null,
        room.role !== 'seat'
          ? h('span', { class: 'spectator-badge', 'data-testid': 'spectator-marker' }, icon('eye'), ' ', t('table.spectating'))
          : null),
      h('div', { class: 'share' },
        h('label', { for: 'share-link', class: 'field-label' }, t('room.share')),
        h('div', { class: 'inline-field' },
          h('input', {
            id: 'share-link',
            class: 'input',
            readonly: true,
            value: link,
            'data-testid': 'share-link',
            'data-focus': 'share-link',
            onFocus: (e) => e.target.select(),
          }),
          h('button', {
            type: 'button',
            class: 'btn',
            'data-testid': 'copy-link',
            'data-focus': 'copy-link',
            onClick: () => act.copyLink(link),
          }, t('room.copy')))))),
  h('div', { 'data-region': 'name', 'data-sig': sig(needName) },
    needName ? h('div', { class: 'room-name-prompt' },
      h('p', { class: 'muted' }, t('room.sit_prompt')), nameCard(state, act, { compact: true })) : null),
  h('section', {
    class: 'seats-block',
    'aria-labelledby': 'seats-title',
    'data-region': 'seats',
    'data-sig': sig(info.seats, info.status, info.settings.mode, info.hostId, room.presence, room.busy, me, isHost),
  },
  h('h2', { id: 'seats-title', class: 'sr-only' }, t('room.seats')),
  h('ol', { class: `seat-cards mode-${info.settings.mode} seats-${info.seats.length}`, 'data-testid': 'seat-cards' },
    info.seats.map((seat) => seatCard(seat, { room, info, me, isHost, mySeat, act }))),
  info.status === 'finished' ? h('p', { class: 'muted center' }, t('room.finished')) : null),
  h('div', {
    'data-region': 'host',
    'data-sig': sig(isHost, room.settingsDraft, info.settings, info.status, room.busy, taken, room.settingsError,
      info.seats.length),
  },
  isHost ? hostControls(room, info, taken, act) : h('p', { class: 'waiting-note', role: 'status' }, t('room.waiting_host'))));
}

function seatCard(seat, { room, info, me, isHost, mySeat, act }) {
  const occupied = Boolean(seat.player_id || seat.bot);
  const mine = Boolean(me && seat.player_id === me);
  const open = info.status === 'open';
  const team = info.settings.mode === 'ganda' ? (seat.seat % 2 === 0 ? 'A' : 'B') : null;
  const connected = room.presence[seat.seat];
  const name = seat.name || (seat.bot ? `${t('seat.bot_badge')} ${seat.seat + 1}` : t('seat.empty'));
  const buttons = [];
  if (!occupied && open) {
    buttons.push(h('button', {
      type: 'button',
      class: 'btn btn-primary btn-small',
      'data-testid': 'sit-button',
      'data-seat': seat.seat,
      'data-focus': `sit-${seat.seat}`,
      disabled: room.busy,
      onClick: () => act.sit(seat.seat),
    }, mySeat ? t('seat.move') : t('seat.sit')));
    if (isHost) {
      buttons.push(h('button', {
        type: 'button',
        class: 'btn btn-small',
        'data-testid': 'bot-button',
        'data-seat': seat.seat,
        'data-focus': `bot-${seat.seat}`,
        'aria-label': t('seat.bot.aria', { n: seat.seat + 1 }),
        disabled: room.busy,
        onClick: () => act.addBot(seat.seat),
      }, t('seat.bot')));
    }
  }
  if (mine && open) {
    buttons.push(h('button', {
      type: 'button',
      class: 'btn btn-ghost btn-small',
      'data-testid': 'leave-seat-button',
      'data-seat': seat.seat,
      'data-focus': `leave-${seat.seat}`,
      disabled: room.busy,
      onClick: () => act.standUp(seat.seat),
    }, t('seat.leave')));
  }
  if (seat.bot && isHost && open) {
    buttons.push(h('button', {
      type: 'button',
      class: 'btn btn-ghost btn-small',
      'data-testid': 'remove-bot-button',
      'data-seat': seat.seat,
      'data-focus': `unbot-${seat.seat}`,
      disabled: room.busy,
      onClick: () => act.removeBot(seat.seat),
    }, t('seat.remove_bot')));
  }
  return h('li', {
    class: `seat-card${occupied ? ' occupied' : ' empty'}${mine ? ' mine' : ''}${team ? ` team-${team}` : ''}`,
    'data-testid': 'seat-card',
    'data-seat': seat.seat,
    'data-occupied': String(occupied),
  },
  h('div', { class: 'seat-card-top' },
    h('span', { class: `avatar seat-color-${seat.seat}`, 'aria-hidden': 'true' }, seat.bot ? icon('bot') : occupied ? initials(name) : '+'),
    h('div', { class: 'seat-card-text' },
      h('div', { class: 'muted small' }, t('seat.n', { n: seat.seat + 1 }), team ? ' · ' : '',
        team ? h('span', { class: 'nowrap' }, t('room.team', { t: team })) : null),
      h('div', { class: 'seat-card-name', 'data-testid': 'seat-card-name' }, name),
      h('div', { class: 'badges' },
        mine ? h('span', { class: 'badge badge-you' }, t('seat.you')) : null,
        seat.player_id && seat.player_id === info.hostId ? h('span', { class: 'badge' }, t('seat.host')) : null,
        seat.bot ? h('span', { class: 'badge badge-bot' }, t('seat.bot_badge')) : null,
        seat.player_id && connected !== undefined
          ? h('span', { class: `presence ${connected ? 'on' : 'off'}` }, connected ? t('seat.online') : t('seat.offline'))
          : null))),
  buttons.length ? h('div', { class: 'seat-card-actions' }, buttons) : null);
}

function hostControls(room, info, taken, act) {
  const draft = { ...info.settings, ...(room.settingsDraft || {}) };
  const errors = room.settingsError || null;
  const edit = (key, value, rerender = false) => {
    room.settingsDraft = { ...draft, ...room.settingsDraft, [key]: value };
    if (rerender) act.redraw();
  };
  const open = info.status === 'open';
  const seatsNeeded = info.seats.length || 4;
  const klasik = draft.preset === 'klasik';
  return h('div', { class: 'host-controls' },
    open ? h('form', {
      class: 'card settings-card',
      'data-testid': 'settings-form',
      'aria-labelledby': 'settings-title',
      onSubmit: (e) => {
        e.preventDefault();
        act.saveSettings(settingsPayload({ ...draft, ...room.settingsDraft }));
      },
    },
    h('h2', { id: 'settings-title' }, t('room.settings')),
    h('div', { class: 'field-row' },
      h('div', { class: 'field' },
        h('label', { for: 'settings-preset', class: 'field-label' }, t('create.preset')),
        h('select', {
          id: 'settings-preset',
          class: 'input',
          'data-testid': 'settings-preset',
          'data-focus': 'settings-preset',
          onChange: (e) => {
            room.settingsDraft = { ...draft, ...presetDefaults(e.target.value, draft) };
            room.settingsError = null;
            act.redraw();
          },
        },
        ['pordi', 'klasik'].map((p) => h('option', { value: p, selected: draft.preset === p }, t(`create.preset.${p}`)))),
        fieldError(errors, 'preset')),
      klasik ? null : h('div', { class: 'field' },
        h('label', { for: 'settings-mode', class: 'field-label' }, t('create.mode')),
        h('select', { id: 'settings-mode', class: 'input', 'data-testid': 'settings-mode', 'data-focus': 'settings-mode', onChange: (e) => edit('mode', e.target.value, true) },
          ['tunggal', 'ganda'].map((m) => h('option', { value: m, selected: draft.mode === m }, modeLabel(m)))),
        fieldError(errors, 'mode')),
      h('div', { class: 'field' },
        h('label', { for: 'settings-timer', class: 'field-label' }, t('create.timer')),
        h('select', { id: 'settings-timer', class: 'input', 'data-testid': 'settings-turn-seconds', 'data-focus': 'settings-turn-seconds', onChange: (e) => edit('turn_seconds', Number(e.target.value)) },
          TIMERS.map((n) => h('option', { value: String(n), selected: draft.turn_seconds === n }, t('seconds', { n }))))),
      klasik ? null : lengthField('settings', draft, edit, errors)),
    klasik ? klasikFields('settings', draft, edit, errors) : null,
    fieldError(errors, null, ['preset', 'mode', 'players', 'seven_tiles', 'discard', 'zero_zero_25', 'scoring',
      'deals_per_set', 'target_points']),
    h('label', { class: 'check' },
      h('input', { type: 'checkbox', checked: draft.public, 'data-testid': 'settings-public', 'data-focus': 'settings-public', onChange: (e) => edit('public', e.target.checked) }),
      h('span', {}, t('create.public'))),
    h('label', { class: 'check' },
      h('input', { type: 'checkbox', checked: draft.chat !== false, 'data-testid': 'settings-chat', 'data-focus': 'settings-chat', onChange: (e) => edit('chat', e.target.checked) }),
      h('span', {}, t('create.chat'))),
    h('button', { type: 'submit', class: 'btn', 'data-testid': 'settings-save', 'data-focus': 'settings-save', disabled: room.busy }, t('room.settings.save')))
      : null,
    h('div', { class: 'start-row' },
      taken < seatsNeeded ? h('p', { class: 'muted', 'data-testid': 'start-hint' }, t('room.need_seats', { n: taken, total: seatsNeeded })) : null,
      h('button', {
        type: 'button',
        class: 'btn btn-primary btn-large',
        'data-testid': 'start-button',
        'data-focus': 'start-button',
        disabled: taken < seatsNeeded || room.busy || !open,
        onClick: act.startSet,
      }, t('room.start'))));
}
