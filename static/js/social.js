// The social graph on this page: friends (with their presence from /ws/me), requests, blocks,
// the Ganda party, challenges and the stored notifications (docs/API.md "Friends, blocks,
// notifications", "Challenges", "Parties"). No DOM: views/social.js draws this state, and the
// profile page, the seat menus and the play-now card read it. Every change is a REST call
// followed by a fresh read of what it touched: the page draws what the server says.

import { request } from './api.js';
import { onMe, notificationText } from './bell.js';
import { changed, toast } from './store.js';
import { loadPlayer } from './storage.js';
import { errorText } from './errors.js';
import { t } from './i18n.js';

const PLAYER_LINK = /\/p\/([A-Za-z0-9_-]{1,64})\/?(?:[?#].*)?$/;

export const social = {
  token: null, // whose lists these are
  open: null, // null | 'friends' | 'notices': the drawer's tab
  friends: [], // [{player_id, name, online, table, since}]
  incoming: [],
  outgoing: [],
  blocked: new Set(),
  party: null, // the accepted party, or null
  partyIncoming: [],
  partyOutgoing: [],
  notices: [], // newest first: stored ones, and live your_turn frames (id null)
  answered: new Map(), // challenge or party id -> 'accepted' | 'declined' (answered here)
  search: '',
  found: null, // the profile a search found
  searching: false,
  busy: false,
  challengeFor: null, // the friend whose challenge form is open
  draft: null, // that form's settings: {preset, mode, turn_seconds, deals_per_set, target_points, ...}
  openSeats: false, // false: bots take the seats nobody was invited to
  partnerToo: true, // Ganda: the friend is the challenger's partner
  loaded: false,
};

let navigateTo = (path) => window.location.assign(path);

/** main.js wires the router. The lists follow the /ws/me socket's news. */
export function initSocial({ navigate }) {
  navigateTo = navigate;
  onMe(onMessage);
  refreshIfPlayerChanged();
  window.addEventListener('storage', (e) => { if (e.key === 'gaple.player') refreshIfPlayerChanged(); });
}

function refreshIfPlayerChanged() {
  const player = loadPlayer();
  const token = (player && player.token) || null;
  if (token === social.token) return false;
  Object.assign(social, {
    token, friends: [], incoming: [], outgoing: [], blocked: new Set(), party: null, partyIncoming: [],
    partyOutgoing: [], notices: [], answered: new Map(), found: null, challengeFor: null, loaded: false,
  });
  if (token) reload();
  changed();
  return true;
}

/** Whether the player blocks ``playerId``. */
export const blocks = (playerId) => social.blocked.has(playerId);
/** The tie with ``playerId``: 'friends' | 'incoming' | 'outgoing' | null. */
export function tieWith(playerId) {
  if (social.friends.some((f) => f.player_id === playerId)) return 'friends';
  if (social.incoming.some((f) => f.player_id === playerId)) return 'incoming';
  if (social.outgoing.some((f) => f.player_id === playerId)) return 'outgoing';
  return null;
}
/** The partner of the player's accepted party: {player_id, name} or null. */
export function partner() {
  const party = social.party;
  if (!party) return null;
  const me = loadPlayer();
  const mine = me && me.player_id;
  return party.inviter.player_id === mine ? party.invitee : party.inviter;
}

/** Read everything again (after a change, on opening the drawer, on news from /ws/me). */
export async function reload() {
  if (!social.token) return;
  const token = social.token;
  try {
    const [ties, blocked, parties, inbox] = await Promise.all([
      request('GET', '/api/friends'),
      request('GET', '/api/blocks'),
      request('GET', '/api/parties/me'),
      request('GET', '/api/notifications'),
    ]);
    if (token !== social.token) return;
    social.friends = ties.friends || [];
    social.incoming = ties.incoming || [];
    social.outgoing = ties.outgoing || [];
    social.blocked = new Set((blocked.blocked || []).map((b) => b.player_id));
    social.party = parties.party || null;
    social.partyIncoming = parties.incoming || [];
    social.partyOutgoing = parties.outgoing || [];
    const live = social.notices.filter((n) => n.id === null);
    social.notices = [...live, ...(inbox.notifications || [])];
    social.loaded = true;
  } catch { /* the next news or opening reads again */ }
  changed();
}

function onMessage(msg) {
  if (msg.type === 'welcome_me') {
    // (Re)connected, perhaps as a player this tab just made: read the lists as they are now.
    if (!refreshIfPlayerChanged()) reload();
  } else if (msg.type === 'presence') {
    const friend = social.friends.find((f) => f.player_id === msg.player_id);
    if (friend) {
      friend.online = msg.online;
      friend.table = msg.table;
      changed();
    }
  } else if (msg.type === 'notification') {
    if (msg.id === null) {
      social.notices = [{ ...msg, read: false }, ...social.notices].slice(0, 100);
      changed();
    } else {
      reload(); // a request, an answer, an invitation: the lists changed too
    }
    const p = msg.payload || {};
    if (msg.kind === 'challenge_answered' && p.room) {
      // Everyone accepted the player's challenge: the table is waiting for them. A player at
      // another table stays there, told (the notification has the way to it).
      if (onATable()) {
        toast(notificationText(msg), 'info', 6000);
      } else {
        social.open = null;
        navigateTo(`/r/${p.room}`);
      }
    }
  }
}

function onATable() {
  return /^\/r\//.test(window.location.pathname);
}

export function openDrawer(tab = 'friends') {
  social.open = tab;
  if (social.token) reload();
  changed();
}

export function closeDrawer() {
  social.open = null;
  social.challengeFor = null;
  changed();
}

async function act(call, done = null) {
  if (social.busy) return null;
  social.busy = true;
  changed();
  try {
    const answer = await call();
    if (done) toast(done, 'ok', 2500);
    return answer;
  } catch (err) {
    toast(errorText(err.code, err.message, err.field), 'error');
    return null;
  } finally {
    social.busy = false;
    await reload();
  }
}

const enc = encodeURIComponent;

export const befriend = (id) => act(() => request('POST', `/api/friends/${enc(id)}`), t('social.request_sent'));
export const unfriend = (id) => act(() => request('DELETE', `/api/friends/${enc(id)}`));
export const acceptFriend = (id) => act(() => request('POST', `/api/friends/${enc(id)}`), t('social.now_friends'));
export const block = (id) => act(() => request('POST', `/api/blocks/${enc(id)}`), t('social.blocked_done'));
export const unblock = (id) => act(() => request('DELETE', `/api/blocks/${enc(id)}`), t('social.unblocked_done'));
export const inviteParty = (id) => act(() => request('POST', '/api/parties', { with: id }), t('social.party_sent'));
export const leaveParty = (partyId) => act(() => request('DELETE', `/api/parties/${enc(partyId)}`));

export async function answerParty(partyId, accept) {
  const done = await act(
    () => request('POST', `/api/parties/${enc(partyId)}/${accept ? 'accept' : 'decline'}`),
    accept ? t('social.party_joined') : null,
  );
  if (done !== null) social.answered.set(partyId, accept ? 'accepted' : 'declined');
}

/** An invitee answers a challenge; the last acceptance makes the table: go to it. */
export async function answerChallenge(challengeId, accept) {
  const view = await act(() => request('POST', `/api/challenges/${enc(challengeId)}/${accept ? 'accept' : 'decline'}`));
  if (!view) return;
  social.answered.set(challengeId, accept ? 'accepted' : 'declined');
  if (view.room) {
    closeDrawer();
    navigateTo(`/r/${view.room}`);
  } else if (accept) {
    toast(t('social.challenge_waiting'), 'info', 3000);
  }
  changed();
}

export function openChallenge(friendId, draft) {
  social.challengeFor = friendId;
  social.draft = draft;
  social.openSeats = false;
  social.partnerToo = true;
  changed();
}

export function closeChallenge() {
  social.challengeFor = null;
  changed();
}

/** Send the open challenge form: the friend, these settings, bots or open seats. */
export async function sendChallenge(settings) {
  const to = social.challengeFor;
  if (!to) return;
  const body = { to: [to], settings, open_seats: social.openSeats };
  if (settings.mode === 'ganda' && social.partnerToo) body.partner = to;
  const made = await act(() => request('POST', '/api/challenges', body), t('social.challenge_sent'));
  if (made) social.challengeFor = null;
  changed();
}

/** The player a typed username or a pasted player link names (its profile), or null. */
export async function findPlayer() {
  const text = String(social.search || '').trim();
  if (!text || social.searching) return;
  social.searching = true;
  social.found = null;
  changed();
  const link = PLAYER_LINK.exec(text);
  const path = link
    ? `/api/players/${enc(link[1])}`
    : `/api/players/by-username/${enc(text.replace(/^@/, ''))}`;
  try {
    social.found = await request('GET', path, undefined, { auth: false });
  } catch (err) {
    toast(err.status === 404 ? t('social.search.none') : errorText(err.code, err.message, err.field), 'error');
  } finally {
    social.searching = false;
    changed();
  }
}

/** Mark every stored notification read (the bell's count goes to 0 with it). */
export async function markAllRead() {
  if (!social.notices.some((n) => !n.read && n.id !== null)) return;
  try {
    await request('POST', '/api/notifications/read', { all: true });
    for (const n of social.notices) n.read = true;
  } catch { /* counted again on the next read */ }
  changed();
}

export function goTo(path) {
  closeDrawer();
  navigateTo(path);
}
