// The player's account in the top bar: "Simpan akun / Save my account" (a guest claims its
// identity: username + password), "Masuk / Log in" (another device: the token it returns replaces
// the stored one), and the profile menu (my profile, leaderboard, rename, log out). The calls and
// their errors are docs/API.md's "Accounts, sessions, profiles, ratings".

import { h, s } from '../dom.js';
import { t } from '../i18n.js';
import { state, changed, toast } from '../store.js';
import { request } from '../api.js';
import { loadPlayer, savePlayer } from '../storage.js';
import { initial } from '../text.js';
import { errorText } from '../errors.js';

// Which player this browser knows has an account, and its username (GET me is not asked at boot).
const ACCOUNT_KEY = 'gaple.account';

const acct = {
  open: null, // null | 'menu' | 'claim' | 'login' | 'rename'
  busy: false,
  error: null, // {field, text}
  username: '',
  password: '',
  name: '',
};

let navigateTo = (path) => window.location.assign(path);
let afterIdentityChange = () => {};

/** main.js passes its router, and what to do when this browser becomes another player. */
export function initAccount({ navigate, identityChanged }) {
  navigateTo = navigate;
  afterIdentityChange = identityChanged;
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && acct.open) close();
  });
}

function readAccount() {
  try {
    const data = JSON.parse(window.localStorage.getItem(ACCOUNT_KEY) || 'null');
    return data && typeof data.player_id === 'string' && typeof data.username === 'string' ? data : null;
  } catch {
    return null;
  }
}

function writeAccount(value) {
  try {
    if (value) window.localStorage.setItem(ACCOUNT_KEY, JSON.stringify(value));
    else window.localStorage.removeItem(ACCOUNT_KEY);
  } catch { /* storage unavailable: the account is still saved on the server */ }
}

/** The username of the player this browser plays as, or null (a guest, or nobody yet). */
export function myUsername() {
  const player = state.player;
  const saved = readAccount();
  return player && player.player_id && saved && saved.player_id === player.player_id ? saved.username : null;
}

export function myPlayerId() {
  return (state.player && state.player.token && state.player.player_id) || null;
}

function openDialog(kind) {
  acct.open = kind;
  acct.error = null;
  acct.password = '';
  if (kind === 'rename') acct.name = (state.player && state.player.name) || '';
  if (kind === 'claim' || kind === 'login') acct.username = myUsername() || '';
  changed();
  // The first field takes focus once drawn.
  queueMicrotask(() => queueMicrotask(() => {
    const first = document.querySelector('[data-testid="account-dialog"] input');
    if (first) first.focus();
  }));
}

function close() {
  acct.open = null;
  acct.error = null;
  acct.password = '';
  changed();
}

function fail(err) {
  acct.error = { field: err.field || null, text: errorText(err.code, err.message, err.field) };
}

async function submit(e) {
  e.preventDefault();
  if (acct.busy) return;
  const kind = acct.open;
  acct.busy = true;
  acct.error = null;
  changed();
  try {
    if (kind === 'claim') await claim();
    else if (kind === 'login') await logIn();
    else if (kind === 'rename') await rename();
    acct.open = null;
    acct.password = '';
  } catch (err) {
    fail(err);
  } finally {
    acct.busy = false;
    changed();
  }
}

async function claim() {
  const me = await request('POST', '/api/accounts', { username: acct.username, password: acct.password });
  writeAccount({ player_id: me.player_id, username: me.username });
  toast(t('acct.saved', { username: me.username }), 'ok', 5000);
}

async function logIn() {
  const me = await request('POST', '/api/sessions', { username: acct.username, password: acct.password }, { auth: false });
  // This browser now plays as that player: the new token replaces the guest's.
  savePlayer({ name: me.name, token: me.token, player_id: me.player_id });
  writeAccount({ player_id: me.player_id, username: me.username });
  state.player = loadPlayer();
  state.drafts.name = me.name;
  state.drafts.editingName = false;
  toast(t('acct.welcome', { name: me.name }), 'ok', 4000);
  afterIdentityChange();
}

async function rename() {
  const me = await request('PATCH', '/api/players/me', { name: acct.name });
  const saved = loadPlayer();
  savePlayer({ ...saved, name: me.name });
  state.player = loadPlayer();
  state.drafts.name = me.name;
  toast(t('acct.renamed'), 'ok', 2500);
}

async function logOut() {
  if (!window.confirm(t('acct.logout.confirm'))) return;
  acct.open = null;
  try {
    await request('DELETE', '/api/sessions/current');
  } catch (err) {
    // 401: the token already stopped working; anything else keeps this device logged in.
    if (err.status !== 401) {
      toast(errorText(err.code, err.message, err.field), 'error');
      changed();
      return;
    }
  }
  savePlayer(null);
  writeAccount(null);
  state.player = null;
  state.drafts.name = '';
  toast(t('acct.logged_out'), 'ok', 3000);
  afterIdentityChange();
  navigateTo('/');
}

function go(path) {
  acct.open = null;
  navigateTo(path);
}

function personIcon() {
  return s('svg', { viewBox: '0 0 24 24', width: '18', height: '18', fill: 'none', stroke: 'currentColor', 'stroke-width': '2', 'stroke-linecap': 'round', 'aria-hidden': 'true', focusable: 'false' },
    s('circle', { cx: '12', cy: '8', r: '4' }), s('path', { d: 'M4 21c0-4 3.6-7 8-7s8 3 8 7' }));
}

// --- the top bar -------------------------------------------------------------------------------

/** The account's controls in the top bar. */
export function accountBar() {
  const player = state.player;
  const username = myUsername();
  const known = Boolean(myPlayerId());
  // A guest who has played may save the account; any guest may log in to one (another
  // device's): both stand on the bar, so neither hides in the menu. An account needs neither.
  const save = known && !username
    ? h('button', {
      type: 'button',
      class: 'btn btn-small acct-cta acct-save',
      'data-testid': 'save-account-button',
      'data-focus': 'acct-save',
      onClick: () => openDialog('claim'),
    }, t('acct.save'))
    : null;
  const login = !username
    ? h('button', {
      type: 'button',
      class: 'btn btn-small acct-cta acct-login',
      'data-testid': 'login-button',
      'data-focus': 'acct-login',
      onClick: () => openDialog('login'),
    }, t('acct.login'))
    : null;
  const name = player && player.name;
  const menuButton = h('button', {
    type: 'button',
    class: `acct-menu-button${acct.open === 'menu' ? ' open' : ''}`,
    'data-testid': 'account-menu-button',
    'data-focus': 'acct-menu',
    'data-account': username ? 'account' : known ? 'guest' : 'none',
    'aria-haspopup': 'menu',
    'aria-expanded': String(acct.open === 'menu'),
    'aria-label': name ? `${t('acct.menu')}: ${name}` : t('acct.menu'),
    onClick: () => {
      acct.open = acct.open === 'menu' ? null : 'menu';
      changed();
    },
  },
  h('span', { class: 'acct-avatar', 'aria-hidden': 'true' }, name ? initial(name) : personIcon()),
  name ? h('span', { class: 'topbar-player', 'data-testid': 'player-name' }, name) : null,
  h('span', { class: 'acct-caret', 'aria-hidden': 'true' }, '▾'));
  return [save, login, menuButton];
}

// --- the menu and dialogs (drawn above the page, outside the top bar) --------------------------

/** The open menu or dialog, or nothing. */
export function accountLayer() {
  if (!acct.open) return null;
  if (acct.open === 'menu') return menu();
  return dialog(acct.open);
}

function menuItem(testid, text, onClick, extra = {}) {
  return h('button', { type: 'button', role: 'menuitem', class: 'acct-menu-item', 'data-testid': testid, 'data-focus': testid, onClick, ...extra }, text);
}

function menu() {
  const id = myPlayerId();
  const username = myUsername();
  const player = state.player;
  const items = [
    player && player.name ? h('div', { class: 'acct-menu-head' },
      h('strong', {}, player.name),
      h('span', { class: 'muted small', 'data-testid': 'menu-username' }, username ? `@${username}` : t('acct.guest'))) : null,
    id ? menuItem('menu-profile', t('acct.profile'), () => go(`/p/${id}`)) : null,
    menuItem('menu-leaderboard', t('acct.leaderboard'), () => go('/leaderboard')),
    id && !username ? menuItem('menu-save-account', t('acct.save'), () => openDialog('claim')) : null,
    !username ? menuItem('menu-login', t('acct.login'), () => openDialog('login')) : null,
    id ? menuItem('menu-rename', t('acct.rename'), () => openDialog('rename')) : null,
    username ? menuItem('menu-logout', t('acct.logout'), logOut) : null,
  ];
  return h('div', { class: 'acct-layer', onClick: (e) => { if (e.target === e.currentTarget) close(); } },
    h('div', { class: 'acct-menu', role: 'menu', 'data-testid': 'account-menu', 'aria-label': t('acct.menu') }, items));
}

function field({ key, label, type = 'text', hint = null, autocomplete, value, onInput }) {
  const error = acct.error && acct.error.field === key ? acct.error : null;
  const inputId = `acct-${key}`;
  return h('div', { class: 'field acct-field' },
    h('label', { for: inputId, class: 'field-label' }, label),
    h('input', {
      id: inputId,
      class: 'input',
      type,
      value,
      autocomplete,
      autocapitalize: 'none',
      spellcheck: 'false',
      'data-testid': `account-${key}`,
      'data-focus': `account-${key}`,
      'aria-invalid': error ? 'true' : null,
      'aria-describedby': hint || error ? `${inputId}-note` : null,
      onInput: (e) => onInput(e.target.value),
    }),
    error
      ? h('p', { class: 'field-error', id: `${inputId}-note`, 'data-testid': 'account-error', 'data-field': key, role: 'alert' }, error.text)
      : hint ? h('p', { class: 'muted small', id: `${inputId}-note` }, hint) : null);
}

function dialog(kind) {
  const fields = [];
  if (kind === 'claim' || kind === 'login') {
    fields.push(field({
      key: 'username',
      label: t('acct.username'),
      hint: kind === 'claim' ? t('acct.username.hint') : null,
      autocomplete: 'username',
      value: acct.username,
      onInput: (v) => { acct.username = v; },
    }));
    fields.push(field({
      key: 'password',
      label: t('acct.password'),
      type: 'password',
      hint: kind === 'claim' ? t('acct.password.hint') : null,
      autocomplete: kind === 'claim' ? 'new-password' : 'current-password',
      value: acct.password,
      onInput: (v) => { acct.password = v; },
    }));
  } else {
    fields.push(field({ key: 'name', label: t('acct.name'), autocomplete: 'nickname', value: acct.name, onInput: (v) => { acct.name = v; } }));
  }
  const general = acct.error && !['username', 'password', 'name'].includes(acct.error.field) ? acct.error : null;
  return h('div', { class: 'acct-layer acct-modal-layer', onClick: (e) => { if (e.target === e.currentTarget) close(); } },
    h('form', {
      class: 'card acct-dialog',
      role: 'dialog',
      'aria-modal': 'true',
      'aria-labelledby': 'acct-dialog-title',
      'data-testid': 'account-dialog',
      'data-kind': kind,
      onSubmit: submit,
    },
    h('h2', { id: 'acct-dialog-title' }, t(`acct.${kind === 'claim' ? 'save' : kind}.title`)),
    kind !== 'rename' ? h('p', { class: 'muted' }, t(`acct.${kind === 'claim' ? 'save' : kind}.explain`)) : null,
    fields,
    general ? h('p', { class: 'field-error', 'data-testid': 'account-error', 'data-field': '', role: 'alert' }, general.text) : null,
    h('div', { class: 'acct-actions' },
      h('button', { type: 'button', class: 'btn btn-ghost', 'data-testid': 'account-cancel', 'data-focus': 'account-cancel', onClick: close }, t('acct.cancel')),
      h('button', {
        type: 'submit',
        class: 'btn btn-primary',
        'data-testid': 'account-submit',
        'data-focus': 'account-submit',
        disabled: acct.busy,
      }, acct.busy ? t('acct.busy') : t(`acct.${kind === 'claim' ? 'save' : kind}.submit`)))));
}
