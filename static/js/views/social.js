// The friends drawer (opened from the top bar's friends button, or the bell for its notifications):
// friends with an online dot and a link to their table, requests in and out, a search by username
// or a pasted player link, a challenge form and a party invitation on each friend's row, the
// blocked players; and the notifications, each in words with what can be done about it. Also
// the small pieces other screens show: block, befriend and report on a profile, a seat's menu at
// a table, and "play with my partner" on the play-now card. State and calls: ../social.js; the
// report dialog: ../report.js.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { icon } from '../icons.js';
import { changed } from '../store.js';
import { loadPlayer } from '../storage.js';
import { notificationText, notificationLink, notificationClubLink } from '../bell.js';
import { openReport } from '../report.js';
import {
  defaultPreset, draftFor, payloadFor, choicesOf, fieldOf, fieldShown, rangeOf,
} from '../presets.js';
import {
  social, openDrawer, closeDrawer, reload, befriend, unfriend, acceptFriend, block, unblock,
  inviteParty, leaveParty, answerParty, answerChallenge, openChallenge, closeChallenge,
  sendChallenge, findPlayer, markAllRead, goTo, tieWith, blocks, partner,
} from '../social.js';

// (No other view is imported: the profile, the table and the lobby import this one.)
const loggedIn = () => Boolean(social.token);
const profilePath = (playerId) => `/p/${encodeURIComponent(playerId)}`;
const modeLabel = (mode) => t(`mode.${mode}`);

function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return date.toLocaleString(document.documentElement.lang === 'id' ? 'id-ID' : 'en-GB',
    { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

function btn(testid, text, onClick, { kind = 'btn-small', extra = {}, iconName = null } = {}) {
  return h('button', {
    type: 'button',
    class: `btn ${kind}`,
    'data-testid': testid,
    'data-focus': `${testid}-${extra['data-player'] || extra['data-id'] || ''}`,
    disabled: social.busy,
    onClick,
    ...extra,
  }, iconName ? icon(iconName) : null, iconName ? ' ' : null, text);
}

// --- the top bar -------------------------------------------------------------------------------

/** The friends button for the top bar (nothing without a player). */
export function friendsButton() {
  if (!loggedIn()) return null;
  const waiting = social.incoming.length + social.partyIncoming.length;
  return h('button', {
    type: 'button',
    class: 'friends-button',
    'data-testid': 'friends-button',
    'data-focus': 'friends-button',
    'aria-label': waiting ? t('social.open_waiting', { n: waiting }) : t('social.open'),
    'aria-expanded': String(social.open === 'friends'),
    onClick: () => (social.open === 'friends' ? closeDrawer() : openDrawer('friends')),
  }, h('span', { class: 'friends-icon', 'aria-hidden': 'true' }, icon('users')),
  waiting ? h('span', { class: 'bell-count', 'data-testid': 'friends-count', 'aria-hidden': 'true' }, String(waiting)) : null);
}

// --- the drawer ----------------------------------------------------------------------------------

/** The open drawer, or nothing (main.js draws it above the page). */
export function socialLayer() {
  if (!social.open || !loggedIn()) return null;
  const tab = social.open;
  const unread = social.notices.filter((n) => !n.read && n.id !== null).length;
  const tabButton = (name, text) => h('button', {
    type: 'button',
    role: 'tab',
    class: `social-tab${tab === name ? ' on' : ''}`,
    'aria-selected': String(tab === name),
    'data-testid': `social-tab-${name}`,
    'data-focus': `social-tab-${name}`,
    onClick: () => openDrawer(name),
  }, text);
  return h('div', { class: 'social-layer', onClick: (e) => { if (e.target === e.currentTarget) closeDrawer(); } },
    h('aside', {
      class: 'social-drawer',
      role: 'dialog',
      'aria-modal': 'true',
      'aria-label': t('social.title'),
      'data-testid': 'social-drawer',
      'data-tab': tab,
      'data-loaded': String(social.loaded),
    },
    h('header', { class: 'social-head' },
      h('div', { class: 'social-tabs', role: 'tablist' },
        tabButton('friends', t('social.tab.friends', { n: social.friends.length })),
        tabButton('notices', unread ? t('social.tab.notices_unread', { n: unread }) : t('social.tab.notices'))),
      h('button', {
        type: 'button',
        class: 'social-close',
        'data-testid': 'social-close',
        'data-focus': 'social-close',
        'aria-label': t('social.close'),
        onClick: closeDrawer,
      }, icon('close'))),
    h('div', { class: 'social-body' }, tab === 'notices' ? noticesTab() : friendsTab())));
}

function section(testid, title, rows, empty = null) {
  if (!rows.length && !empty) return null;
  return h('section', { class: 'social-section', 'data-testid': testid },
    h('h3', { class: 'social-section-title' }, title),
    rows.length ? h('ul', { class: 'social-list' }, rows) : h('p', { class: 'muted small' }, empty));
}

function nameOf(entry, testid = 'social-name') {
  return h('a', {
    class: 'social-name',
    href: profilePath(entry.player_id),
    'data-testid': testid,
    onClick: (e) => {
      if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
      e.preventDefault();
      goTo(profilePath(entry.player_id));
    },
  }, entry.name || '?');
}

function friendsTab() {
  return [
    searchForm(),
    partySection(),
    section('incoming-requests', t('social.incoming'), social.incoming.map((f) => h('li', { class: 'social-row', 'data-testid': 'incoming-row', 'data-player': f.player_id },
      h('div', { class: 'social-who' }, nameOf(f), h('span', { class: 'muted small' }, t('social.wants_friend'))),
      h('div', { class: 'social-actions' },
        btn('accept-friend', t('social.accept'), () => acceptFriend(f.player_id), { kind: 'btn-primary btn-small', extra: { 'data-player': f.player_id } }),
        btn('decline-friend', t('social.decline'), () => unfriend(f.player_id), { kind: 'btn-ghost btn-small', extra: { 'data-player': f.player_id } }))))),
    section('friends-list', t('social.friends'), social.friends.map(friendRow), t('social.no_friends')),
    section('outgoing-requests', t('social.outgoing'), social.outgoing.map((f) => h('li', { class: 'social-row', 'data-testid': 'outgoing-row', 'data-player': f.player_id },
      h('div', { class: 'social-who' }, nameOf(f), h('span', { class: 'muted small' }, t('social.waiting_answer'))),
      h('div', { class: 'social-actions' },
        btn('cancel-request', t('social.cancel'), () => unfriend(f.player_id), { kind: 'btn-ghost btn-small', extra: { 'data-player': f.player_id } }))))),
    blockedSection(),
  ];
}

function searchForm() {
  const found = social.found;
  const tie = found ? tieWith(found.player_id) : null;
  const me = found && found.player_id === myId();
  return h('form', {
    class: 'social-search',
    'data-testid': 'friend-search',
    onSubmit: (e) => { e.preventDefault(); findPlayer(); },
  },
  h('label', { class: 'field-label', for: 'friend-search-input' }, t('social.search.label')),
  h('div', { class: 'social-search-row' },
    h('input', {
      id: 'friend-search-input',
      class: 'input',
      type: 'search',
      value: social.search,
      placeholder: t('social.search.placeholder'),
      autocapitalize: 'none',
      spellcheck: 'false',
      'data-testid': 'friend-search-input',
      'data-focus': 'friend-search-input',
      onInput: (e) => { social.search = e.target.value; },
    }),
    h('button', { type: 'submit', class: 'btn btn-primary', 'data-testid': 'friend-search-submit', disabled: social.searching }, t('social.search.submit'))),
  found ? h('div', { class: 'social-row social-found', 'data-testid': 'search-result', 'data-player': found.player_id },
    h('div', { class: 'social-who' }, nameOf(found), found.username ? h('span', { class: 'muted small' }, `@${found.username}`) : null),
    h('div', { class: 'social-actions' },
      me ? h('span', { class: 'badge badge-you' }, t('profile.you'))
        : tie === 'friends' ? h('span', { class: 'muted small' }, t('social.already_friends'))
          : tie === 'outgoing' ? h('span', { class: 'muted small' }, t('social.waiting_answer'))
            : blocks(found.player_id) ? btn('unblock-player', t('social.unblock'), () => unblock(found.player_id), { kind: 'btn-ghost btn-small', extra: { 'data-player': found.player_id } })
              : btn('add-friend', tie === 'incoming' ? t('social.accept') : t('social.add'), () => befriend(found.player_id), { kind: 'btn-primary btn-small', extra: { 'data-player': found.player_id } }))) : null);
}

function myId() {
  const player = loadPlayer();
  return (player && player.player_id) || null;
}

function presenceText(f) {
  if (f.table) return t('social.at_table', { table: f.table });
  return f.online ? t('social.online') : t('social.offline');
}

function friendRow(f) {
  const inParty = partner() && partner().player_id === f.player_id;
  const invited = social.partyOutgoing.some((p) => p.invitee.player_id === f.player_id);
  return h('li', {
    class: 'social-row',
    'data-testid': 'friend-row',
    'data-player': f.player_id,
    'data-online': String(Boolean(f.online)),
  },
  h('div', { class: 'social-who' },
    h('span', { class: `presence-dot ${f.online ? 'on' : 'off'}`, 'data-testid': 'friend-presence', 'aria-hidden': 'true' }),
    nameOf(f),
    f.table
      ? h('a', {
        class: 'social-table',
        href: `/r/${f.table}`,
        'data-testid': 'friend-table',
        onClick: (e) => { e.preventDefault(); goTo(`/r/${f.table}`); },
      }, presenceText(f))
      : h('span', { class: 'muted small', 'data-testid': 'friend-status' }, presenceText(f))),
  h('div', { class: 'social-actions' },
    btn('challenge-friend', t('social.challenge'), () => (social.challengeFor === f.player_id ? closeChallenge() : openChallenge(f.player_id, draftFor(defaultPreset()))), { iconName: 'flag', extra: { 'data-player': f.player_id, 'aria-expanded': String(social.challengeFor === f.player_id) } }),
    inParty ? h('span', { class: 'badge badge-partner', 'data-testid': 'party-badge' }, t('seat.partner'))
      : invited ? h('span', { class: 'muted small' }, t('social.party_waiting'))
        : btn('invite-party', t('social.party'), () => inviteParty(f.player_id), { iconName: 'users', extra: { 'data-player': f.player_id } }),
    btn('remove-friend', t('social.remove'), () => { if (window.confirm(t('social.remove.confirm', { name: f.name }))) unfriend(f.player_id); }, { kind: 'btn-ghost btn-small', extra: { 'data-player': f.player_id } })),
  social.challengeFor === f.player_id ? challengeForm(f) : null);
}

function challengeForm(f) {
  const d = social.draft;
  if (!d) return null;
  const set = (key, value) => { d[key] = value; changed(); };
  return h('form', {
    class: 'challenge-form',
    'data-testid': 'challenge-form',
    onSubmit: (e) => { e.preventDefault(); sendChallenge(payloadFor(d)); },
  },
  h('p', { class: 'small' }, t('social.challenge.title', { name: f.name })),
  h('div', { class: 'challenge-fields' },
    choice(d, 'mode', t('create.mode'), modeLabel, set),
    choice(d, 'turn_seconds', t('create.timer'), (n) => t('seconds', { n }), set),
    setLength(d, set)),
  d.mode === 'ganda' ? h('label', { class: 'check' },
    h('input', {
      type: 'checkbox',
      checked: social.partnerToo,
      'data-testid': 'challenge-partner',
      onChange: (e) => { social.partnerToo = e.target.checked; changed(); },
    }), h('span', {}, t('social.challenge.partner', { name: f.name }))) : null,
  h('fieldset', { class: 'field' },
    h('legend', { class: 'field-label' }, t('social.challenge.seats')),
    h('div', { class: 'segmented' }, [false, true].map((open) => h('label', { class: `seg${social.openSeats === open ? ' on' : ''}` },
      h('input', {
        type: 'radio',
        name: 'challenge-seats',
        checked: social.openSeats === open,
        'data-testid': `challenge-seats-${open ? 'open' : 'bots'}`,
        onChange: () => { social.openSeats = open; changed(); },
      }), h('span', { class: 'seg-title' }, t(open ? 'social.challenge.open' : 'social.challenge.bots')))))),
  h('div', { class: 'social-actions' },
    h('button', { type: 'button', class: 'btn btn-ghost btn-small', onClick: closeChallenge }, t('social.cancel')),
    h('button', { type: 'submit', class: 'btn btn-gold btn-small', 'data-testid': 'challenge-send', disabled: social.busy }, t('social.challenge.send'))));
}

/** A select over one of the preset's choices (the room form's presets: GET /api/presets). */
function choice(d, key, label, optionLabel, set) {
  const id = `challenge-${key.replaceAll('_', '-')}`;
  const values = choicesOf(d.preset, key);
  return h('div', { class: 'field' },
    h('label', { for: id, class: 'field-label' }, label),
    h('select', {
      id,
      class: 'input',
      'data-testid': id,
      onChange: (e) => set(key, values.find((c) => String(c) === e.target.value)),
    }, values.map((c) => h('option', { value: String(c), selected: d[key] === c }, optionLabel(c)))));
}

/** The set's length as the preset's `when` says it matters: target points, or deals per set. */
function setLength(d, set) {
  const target = fieldOf(d.preset, 'target_points');
  const key = target && fieldShown(target, d) ? 'target_points' : 'deals_per_set';
  if (!fieldOf(d.preset, key)) return null;
  const range = rangeOf(d.preset, key);
  const id = `challenge-${key.replaceAll('_', '-')}`;
  return h('div', { class: 'field' },
    h('label', { for: id, class: 'field-label' }, t(key === 'target_points' ? 'create.target' : 'create.deals')),
    h('input', {
      id,
      class: 'input',
      type: 'number',
      inputmode: 'numeric',
      min: String(range[0]),
      max: String(range[1]),
      value: String(d[key]),
      'data-testid': id,
      onChange: (e) => set(key, Number(e.target.value)),
    }));
}

function partySection() {
  const mate = partner();
  const rows = [];
  if (mate) {
    rows.push(h('li', { class: 'social-row', 'data-testid': 'party-row', 'data-player': mate.player_id },
      h('div', { class: 'social-who' }, h('span', {}, t('social.party.with')), ' ', nameOf(mate)),
      h('div', { class: 'social-actions' },
        btn('leave-party', t('social.party.leave'), () => leaveParty(social.party.id), { kind: 'btn-ghost btn-small' }))));
  }
  for (const p of social.partyIncoming) {
    rows.push(h('li', { class: 'social-row', 'data-testid': 'party-invite-row', 'data-id': p.id },
      h('div', { class: 'social-who' }, nameOf(p.inviter), h('span', { class: 'muted small' }, t('social.party.invites_you'))),
      h('div', { class: 'social-actions' },
        btn('accept-party', t('social.accept'), () => answerParty(p.id, true), { kind: 'btn-primary btn-small', extra: { 'data-id': p.id } }),
        btn('decline-party', t('social.decline'), () => answerParty(p.id, false), { kind: 'btn-ghost btn-small', extra: { 'data-id': p.id } }))));
  }
  return section('party', t('social.party.title'), rows);
}

function blockedSection() {
  const rows = [...social.blocked].map((id) => h('li', { class: 'social-row', 'data-testid': 'blocked-row', 'data-player': id },
    h('div', { class: 'social-who' }, h('span', { class: 'muted' }, t('social.blocked_player'))),
    h('div', { class: 'social-actions' },
      btn('unblock-player', t('social.unblock'), () => unblock(id), { kind: 'btn-ghost btn-small', extra: { 'data-player': id } }))));
  return section('blocked-list', t('social.blocked'), rows);
}

// --- notifications -------------------------------------------------------------------------------

function noticesTab() {
  if (!social.notices.length) return h('p', { class: 'muted', 'data-testid': 'notices-empty' }, t('social.notices.empty'));
  return [
    h('ul', { class: 'social-list notices' }, social.notices.map(noticeRow)),
    social.notices.some((n) => !n.read && n.id !== null)
      ? h('button', { type: 'button', class: 'btn btn-ghost btn-small', 'data-testid': 'notices-read', onClick: markAllRead }, t('social.notices.read'))
      : null,
  ];
}

function noticeActions(n) {
  const p = n.payload || {};
  const go = (code) => btn('notice-table', t('social.to_table'), () => goTo(`/r/${code}`), { kind: 'btn-primary btn-small', extra: { 'data-id': code } });
  switch (n.kind) {
    case 'friend_request':
      return tieWith(p.player_id) === 'incoming' ? [
        btn('notice-accept', t('social.accept'), () => acceptFriend(p.player_id), { kind: 'btn-primary btn-small', extra: { 'data-player': p.player_id } }),
        btn('notice-decline', t('social.decline'), () => unfriend(p.player_id), { kind: 'btn-ghost btn-small', extra: { 'data-player': p.player_id } }),
      ] : null;
    case 'challenge': {
      const answered = social.answered.get(p.challenge_id);
      const expired = p.expires_at && Date.parse(p.expires_at) <= Date.now();
      const over = social.notices.some((x) => x.kind === 'challenge_expired' && x.payload && x.payload.challenge_id === p.challenge_id);
      if (answered) return h('span', { class: 'muted small' }, t(`social.answer.${answered}`));
      if (expired || over) return h('span', { class: 'muted small' }, t('social.expired'));
      return [
        btn('challenge-accept', t('social.accept'), () => answerChallenge(p.challenge_id, true), { kind: 'btn-gold btn-small', extra: { 'data-id': p.challenge_id } }),
        btn('challenge-decline', t('social.decline'), () => answerChallenge(p.challenge_id, false), { kind: 'btn-ghost btn-small', extra: { 'data-id': p.challenge_id } }),
      ];
    }
    case 'challenge_answered':
      return p.room ? go(p.room) : null;
    case 'party_invite':
      return social.partyIncoming.some((x) => x.id === p.party_id)
        ? btn('notice-party-accept', t('social.accept'), () => answerParty(p.party_id, true), { kind: 'btn-primary btn-small', extra: { 'data-id': p.party_id } })
        : null;
    case 'rematch':
    case 'your_turn':
      return p.table ? go(p.table) : null;
    default: {
      // A tournament's round, a club's event: to the tournament's page, and the club's.
      const tour = notificationLink(n);
      const club = notificationClubLink(n);
      return [
        tour ? btn('notice-tournament', t('club.notice.tournament'), () => goTo(tour), { kind: 'btn-primary btn-small', extra: { 'data-id': tour } }) : null,
        club ? btn('notice-club', t('club.notice.club'), () => goTo(club), { kind: 'btn-ghost btn-small', extra: { 'data-id': club } }) : null,
      ];
    }
  }
}

function noticeRow(n) {
  return h('li', {
    class: `social-row notice${n.read ? '' : ' unread'}`,
    'data-testid': 'notice',
    'data-kind': n.kind,
  },
  h('div', { class: 'social-who' },
    h('span', { class: 'notice-text', 'data-testid': 'notice-text' }, notificationText(n)),
    n.created_at ? h('span', { class: 'muted small' }, when(n.created_at)) : null),
  h('div', { class: 'social-actions' }, noticeActions(n)));
}

// --- elsewhere: a profile, a seat, the play-now card -------------------------------------------

/** On another player's profile: befriend (or the tie's state), block / unblock, and report. */
export function profileActions(playerId, name) {
  if (!loggedIn() || !playerId) return null;
  if (!social.loaded) reloadOnce();
  const tie = tieWith(playerId);
  const blocked = blocks(playerId);
  return h('div', { class: 'profile-social', 'data-testid': 'profile-social' },
    blocked ? null
      : tie === 'friends' ? btn('remove-friend', t('social.remove'), () => unfriend(playerId), { kind: 'btn-ghost btn-small', extra: { 'data-player': playerId } })
        : tie === 'outgoing' ? btn('cancel-request', t('social.cancel_request'), () => unfriend(playerId), { kind: 'btn-ghost btn-small', extra: { 'data-player': playerId } })
          : btn('add-friend', tie === 'incoming' ? t('social.accept') : t('social.add'), () => befriend(playerId), { kind: 'btn-primary btn-small', extra: { 'data-player': playerId } }),
    blocked
      ? btn('unblock-player', t('social.unblock'), () => unblock(playerId), { kind: 'btn-ghost btn-small', extra: { 'data-player': playerId } })
      : btn('block-player', t('social.block'), () => { if (window.confirm(t('social.block.confirm'))) block(playerId); }, { kind: 'btn-ghost btn-small', iconName: 'block', extra: { 'data-player': playerId } }),
    btn('report-player', t('report.button'), () => openReport({ player_id: playerId, name }), {
      kind: 'btn-ghost btn-small', iconName: 'flag', extra: { 'data-player': playerId, 'aria-label': t('report.seat', { name }) },
    }));
}

let reloading = false;
function reloadOnce() {
  if (reloading) return;
  reloading = true;
  reload().finally(() => { reloading = false; });
}

const seatMenu = { open: null }; // the player whose seat menu is open

/** A seat's menu at a table (another human's seat): befriend, block or unblock, report. */
export function seatMenuButton(playerId, name) {
  if (!loggedIn() || !playerId || playerId === myId()) return null;
  const open = seatMenu.open === playerId;
  const tie = tieWith(playerId);
  const blocked = blocks(playerId);
  const close = () => { seatMenu.open = null; changed(); };
  return h('span', { class: 'seat-menu-wrap' },
    h('button', {
      type: 'button',
      class: 'seat-menu-button',
      'data-testid': 'seat-menu-button',
      'data-player': playerId,
      'data-focus': `seat-menu-${playerId}`,
      'aria-haspopup': 'menu',
      'aria-expanded': String(open),
      'aria-label': t('social.seat_menu', { name }),
      onClick: (e) => { e.stopPropagation(); seatMenu.open = open ? null : playerId; changed(); },
    }, icon('more')),
    open ? h('div', { class: 'seat-menu', role: 'menu', 'data-testid': 'seat-menu', 'aria-label': t('social.seat_menu', { name }) },
      h('p', { class: 'seat-menu-title', 'aria-hidden': 'true' }, name),
      !blocked && tie === null ? h('button', { type: 'button', role: 'menuitem', class: 'acct-menu-item', 'data-testid': 'seat-menu-befriend', onClick: () => { close(); befriend(playerId); } }, t('social.add')) : null,
      blocked
        ? h('button', { type: 'button', role: 'menuitem', class: 'acct-menu-item', 'data-testid': 'seat-menu-unblock', onClick: () => { close(); unblock(playerId); } }, t('social.unblock'))
        : h('button', { type: 'button', role: 'menuitem', class: 'acct-menu-item', 'data-testid': 'seat-menu-block', onClick: () => { close(); block(playerId); } }, icon('block'), ' ', t('social.block_name', { name })),
      h('button', { type: 'button', role: 'menuitem', class: 'acct-menu-item', 'data-testid': 'seat-menu-report', onClick: () => { close(); openReport({ player_id: playerId, name }); } }, icon('flag'), ' ', t('report.seat', { name })),
      h('button', { type: 'button', role: 'menuitem', class: 'acct-menu-item', onClick: close }, t('social.cancel'))) : null);
}

/** "Play with my partner" on the play-now card, when the player has a party. */
export function partnerQuickButton(quickPlay, choice, busy) {
  const mate = partner();
  if (!mate || !choice) return null;
  return h('button', {
    type: 'button',
    class: 'btn btn-primary btn-block',
    'data-testid': 'quickplay-partner',
    'data-focus': 'quickplay-partner',
    disabled: busy,
    onClick: () => quickPlay({ ...choice, mode: 'ganda' }),
  }, icon('users'), ' ', t('social.play_with', { name: mate.name }));
}
