// Before the set: the room's code and link, the four seats, the host's controls.

import { clubLink } from './clubs.js';
import { h } from '../dom.js';
import { t, lang, has } from '../i18n.js';
import { modeLabel, lengthLabel } from './common.js';
import { initial } from '../text.js';
import {
  nameCard, presetDefaults, settingsPayload, klasikFields, lengthField, fieldError, presetSelect,
  choiceSelect, visibilityFields, hasKlasikOptions, knownFields,
} from './lobby.js';
import { icon } from '../icons.js';
import { profileLink } from './profile.js';
import { botKinds, choicesOf, defaultBot, quickplayLike } from '../presets.js';
import { quickWait } from './quick.js';

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
  if (isClosed(room)) return closedView(state, act);
  if (room.full) return fullView(state, act);
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
  h('div', { 'data-region': 'head', 'data-sig': sig(info.code, link, info.settings, info.hostName, room.role, info.club) },
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
        info.club ? h('p', { class: 'small', 'data-testid': 'room-club-line', 'data-club': info.club.id },
          clubLink({ id: info.club.id, name: t('club.room.label', { name: info.club.name }) })) : null,
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
  null),
  h('div', {
    'data-region': 'host',
    'data-sig': sig(isHost, room.settingsDraft, info.settings, info.status, room.busy, taken, room.settingsError,
      info.seats.length, info.quickplay, info.botsDue, info.seats, Boolean(mySeat)),
  },
  quickplayWaiting(info, mySeat) ? quickWait(room, info, act)
    : isHost ? hostControls(room, info, taken, act) : waitingNote(info, mySeat, act)));
}

/** A seated player at a quick-play table waiting for players: the wait screen (views/quick.js). */
function quickplayWaiting(info, mySeat) {
  return Boolean(info.quickplay && info.status === 'open' && mySeat);
}

/** Closed by its host, for idleness or for want of players; or abandoned mid-set. */
export function isClosed(room) {
  const status = room.info && room.info.status;
  return room.halted === 'room_closed' || status === 'closed' || status === 'abandoned';
}

/** Where a player goes from a dead end: the lobby, or straight to a table that starts soon. */
function wayOut(act, prefix, { watch = null, settings = null } = {}) {
  const choice = quickplayLike(settings);
  return h('div', { class: 'way-out' },
    h('button', {
      type: 'button',
      class: 'btn btn-gold btn-large btn-stack',
      'data-testid': `${prefix}-quickplay`,
      'data-focus': `${prefix}-quickplay`,
      onClick: () => act.quickPlay(choice),
    }, h('span', {}, t('quick.submit')),
    choice ? h('span', { class: 'btn-huge-sub' },
      [t(`create.preset.${choice.preset}`), modeLabel(choice.mode), t('seconds', { n: choice.turn_seconds })].join(' · ')) : null),
    watch,
    h('a', {
      class: 'btn',
      href: '/',
      'data-testid': `${prefix}-lobby`,
      'data-focus': `${prefix}-lobby`,
      onClick: act.toLobby,
    }, t('nav.back_lobby')));
}

// The dead-end pages carry no data-screen: without regions to patch, patchRegions would keep the
// old page whole, and the reason (which arrives a moment after the status) would never show.
function closedView(state, act) {
  const room = state.room;
  const info = room.info;
  const abandoned = info.status === 'abandoned';
  const reason = abandoned ? 'abandoned' : (room.closedReason || info.closedReason || 'closed');
  return h('section', {
    class: 'room-screen narrow',
    'data-testid': 'room-closed',
    'data-status': abandoned ? 'abandoned' : 'closed',
    'data-reason': reason,
    'aria-labelledby': 'closed-title',
  },
  h('div', { class: 'card dead-end-card' },
    h('span', { class: 'dead-end-icon', 'aria-hidden': 'true' }, icon('door')),
    h('h1', { id: 'closed-title' }, abandoned ? t('closed.title.abandoned') : t('closed.title')),
    h('p', { class: 'muted', 'data-testid': 'room-closed-reason' },
      has(`closed.reason.${reason}`) ? t(`closed.reason.${reason}`) : t('closed.reason.closed')),
    h('p', { class: 'muted small' }, t('room.code'), ' ', h('strong', {}, info.code || room.code)),
    wayOut(act, 'closed', { settings: info.settings })));
}

function fullView(state, act) {
  const room = state.room;
  const info = room.info;
  return h('section', {
    class: 'room-screen narrow',
    'data-testid': 'room-full',
    'aria-labelledby': 'full-title',
  },
  h('div', { class: 'card dead-end-card' },
    h('span', { class: 'dead-end-icon', 'aria-hidden': 'true' }, icon('eye')),
    h('h1', { id: 'full-title' }, t('full.title')),
    h('p', { class: 'muted' }, t('full.body')),
    h('p', { class: 'muted small' },
      h('span', { class: `mode-pill mode-${info.settings.mode}` }, modeLabel(info.settings.mode)), ' ',
      t('seconds', { n: info.settings.turn_seconds }), ' · ', lengthLabel(info.settings)),
    info.hostName ? h('p', { class: 'muted small' }, t('room.host_is', { name: info.hostName })) : null,
    wayOut(act, 'full', {
      settings: info.settings,
      watch: h('button', {
        type: 'button',
        class: 'btn',
        'data-testid': 'full-watch',
        'data-focus': 'full-watch',
        onClick: act.watchFull,
      }, icon('eye'), ' ', t('full.watch')),
    })));
}

/** A seated non-host before the start: what happens next, and a way out that is not a trap. */
function waitingNote(info, mySeat, act) {
  return h('div', { class: 'waiting-block' },
    h('p', { class: 'waiting-note', role: 'status', 'data-testid': 'waiting-note' },
      info.quickplay ? t('room.quick_waiting') : t('room.waiting_host')),
    mySeat ? null : wayOut(act, 'waiting', { settings: info.settings }));
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
      const drafts = room.botDrafts || (room.botDrafts = {});
      buttons.push(botLevelSelect(seat.seat, drafts[seat.seat] || defaultBot(), room.busy, (kind) => {
        drafts[seat.seat] = kind;  // seated with the next "+ Bot"
      }));
      buttons.push(h('button', {
        type: 'button',
        class: 'btn btn-small',
        'data-testid': 'bot-button',
        'data-seat': seat.seat,
        'data-focus': `bot-${seat.seat}`,
        'aria-label': t('seat.bot.aria', { n: seat.seat + 1 }),
        disabled: room.busy,
        onClick: () => act.addBot(seat.seat, drafts[seat.seat] || defaultBot()),
      }, t('seat.bot')));
    }
  }
  if (seat.bot && isHost && open) {
    // The same call seats a bot and changes the level of the one already there.
    buttons.push(botLevelSelect(seat.seat, seat.bot, room.busy, (kind) => act.addBot(seat.seat, kind)));
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
    h('span', { class: `avatar seat-color-${seat.seat}`, 'aria-hidden': 'true' }, seat.bot ? icon('bot') : occupied ? initial(name) : '+'),
    h('div', { class: 'seat-card-text' },
      h('div', { class: 'muted small' }, t('seat.n', { n: seat.seat + 1 }), team ? ' · ' : '',
        team ? h('span', { class: 'nowrap' }, t('room.team', { t: team })) : null),
      h('div', { class: 'seat-card-name', 'data-testid': 'seat-card-name' }, seat.player_id ? profileLink(seat.player_id, name, { newTab: true }) : name),
      h('div', { class: 'badges' },
        mine ? h('span', { class: 'badge badge-you' }, t('seat.you')) : null,
        seat.player_id && seat.player_id === info.hostId ? h('span', { class: 'badge', 'data-testid': 'host-badge' }, t('seat.host')) : null,
        seat.bot ? h('span', { class: 'badge badge-bot' }, t('seat.bot_badge')) : null,
        seat.bot ? h('span', {
          class: `badge badge-level level-${seat.bot}`,
          'data-testid': 'bot-level',
          'data-level': seat.bot,
        }, botLevelLabel(seat.bot)) : null,
        seat.player_id && connected !== undefined
          ? h('span', { class: `presence ${connected ? 'on' : 'off'}` }, connected ? t('seat.online') : t('seat.offline'))
          : null))),
  buttons.length ? h('div', { class: 'seat-card-actions' }, buttons) : null);
}

/** A bot level's name in the page's language (the server's name if no translation has it). */
export function botLevelLabel(kind) {
  return has(`bot.level.${kind}`) ? t(`bot.level.${kind}`) : kind;
}

/** The host's pick of a bot level for one seat: the levels GET /api/presets lists. */
function botLevelSelect(seatNumber, value, busy, onKind) {
  const id = `bot-level-${seatNumber}`;
  return h('select', {
    id,
    class: 'input input-small',
    'data-testid': 'bot-level-select',
    'data-seat': seatNumber,
    'data-focus': id,
    'aria-label': t('seat.bot_level.aria', { n: seatNumber + 1 }),
    disabled: busy,
    onChange: (e) => onKind(e.target.value),
  }, botKinds().map((kind) => h('option', { value: kind, selected: kind === value }, botLevelLabel(kind))));
}

function hostControls(room, info, taken, act) {
  const draft = { ...info.settings, ...(room.settingsDraft || {}) };
  const errors = room.settingsError || null;
  const edit = (key, value, rerender = false) => {
    room.settingsDraft = { ...draft, ...room.settingsDraft, [key]: value };
    if (rerender) act.redraw();
  };
  const open = info.status === 'open';
  const seatsNeeded = info.seats.length;
  const free = info.seats.filter((x) => !x.player_id && !x.bot).length;
  const klasik = hasKlasikOptions(draft.preset);
  const modes = choicesOf(draft.preset, 'mode');
  return h('div', { class: 'host-controls' },
    // A quick-play table keeps the settings people were matched on; until the REST room says
    // which kind this is (a socket frame does not), no form.
    open && info.quickplay === false ? h('form', {
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
      presetSelect('settings', draft, (preset) => {
        room.settingsDraft = presetDefaults(preset, draft);
        room.settingsError = null;
        act.redraw();
      }, errors),
      modes.length > 1
        ? choiceSelect('settings', 'mode', draft, t('create.mode'), modeLabel, (m) => edit('mode', m, true), errors)
        : null,
      choiceSelect('settings', 'turn_seconds', draft, t('create.timer'), (n) => t('seconds', { n }),
        (n) => edit('turn_seconds', n), errors),
      klasik ? null : lengthField('settings', draft, edit, errors)),
    klasik ? klasikFields('settings', draft, edit, errors) : null,
    fieldError(errors, null, knownFields(draft.preset)),
    visibilityFields('settings', { ...draft, joinBotsChosen: true }, edit, act),
    h('label', { class: 'check' },
      h('input', { type: 'checkbox', checked: draft.chat !== false, 'data-testid': 'settings-chat', 'data-focus': 'settings-chat', onChange: (e) => edit('chat', e.target.checked) }),
      h('span', {}, t('create.chat'))),
    h('button', { type: 'submit', class: 'btn', 'data-testid': 'settings-save', 'data-focus': 'settings-save', disabled: room.busy }, t('room.settings.save')))
      : null,
    h('div', { class: 'start-row' },
      info.quickplay && open && free > 0
        ? h('p', { class: 'waiting-note', role: 'status', 'data-testid': 'waiting-note' }, t('room.quick_waiting'))
        : null,
      taken < seatsNeeded ? h('p', { class: 'muted', 'data-testid': 'start-hint' }, t('room.need_seats', { n: taken, total: seatsNeeded })) : null,
      open && free > 0 ? h('button', {
        type: 'button',
        class: 'btn btn-block',
        'data-testid': 'fill-bots-button',
        'data-focus': 'fill-bots',
        disabled: room.busy,
        onClick: act.fillBots,
      }, icon('bot'), ' ', t('room.fill_bots', { n: free })) : null,
      h('button', {
        type: 'button',
        class: 'btn btn-primary btn-large',
        'data-testid': 'start-button',
        'data-focus': 'start-button',
        disabled: taken < seatsNeeded || room.busy || !open,
        onClick: act.startSet,
      }, t('room.start')),
      h('button', {
        type: 'button',
        class: 'btn btn-ghost btn-small btn-danger-text',
        'data-testid': 'close-room-button',
        'data-focus': 'close-room',
        disabled: room.busy,
        onClick: act.closeRoom,
      }, t('room.close'))));
}
