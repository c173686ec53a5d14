// Pieces shared by every screen: the top bar, the connection banner, toasts, labels.

import { bellButton } from '../bell.js';
import { icon } from '../icons.js';
import { h } from '../dom.js';
import { t, toggleLang, lang } from '../i18n.js';
import { tileSvg } from '../tiles.js';
import { enter } from '../anim.js';
import { seatCount } from '../presets.js';
import { accountBar } from './account.js';
import { tournamentPath } from '../tournament.js';

export function modeLabel(mode) {
  return mode === 'ganda' ? t('mode.ganda') : t('mode.tunggal');
}

const dealsText = (n) => (n === 1 ? t('tables.deals.one') : t('tables.deals', { n }));

export function lengthLabel(settings) {
  if (settings.preset === 'klasik') {
    const players = t('klasik.players.n', { n: seatCount(settings) });
    const length = settings.scoring === 'penalty'
      ? dealsText(settings.deals_per_set)
      : t('tables.target', { n: settings.target_points });
    const stuck = settings.stuck || (settings.discard === false ? 'pass' : 'discard');
    return `${t(`stuck.${stuck}`)} · ${players} · ${length}`;
  }
  return settings.mode === 'ganda'
    ? t('tables.target', { n: settings.target_points })
    : dealsText(settings.deals_per_set);
}

export function langToggle() {
  return h('button', {
    type: 'button',
    class: 'lang-toggle',
    'data-testid': 'lang-toggle',
    'data-lang': lang(),
    'data-focus': 'lang-toggle',
    'aria-label': t('lang.toggle.aria'),
    title: t('lang.toggle.aria'),
    onClick: () => toggleLang(),
  }, h('span', { class: 'lang-current', 'aria-hidden': 'true' }, lang().toUpperCase()),
  h('span', { class: 'lang-arrow', 'aria-hidden': 'true' }, '→'),
  h('span', { 'aria-hidden': 'true' }, t('lang.toggle')));
}

/** The top bar; ``extra``: controls main.js adds before the bell (the friends button). */
export function topbar(state, navigate, extra = []) {
  const room = state.room;
  return [
    h('a', {
      class: 'brand',
      href: '/',
      'data-testid': 'lobby-link',
      'data-focus': 'brand',
      onClick: (e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate('/');
      },
    }, h('span', { class: 'brand-mark', 'aria-hidden': 'true' }, brandMark()), h('span', { class: 'brand-name' }, t('app.name'))),
    room ? h('span', { class: 'topbar-code', 'aria-label': `${t('room.code')} ${room.code}` }, room.code) : null,
    h('span', { class: 'topbar-spacer' }),
    ...extra,
    h('a', {
      class: `topbar-link${state.route.name === 'tournaments' ? ' active' : ''}`,
      href: '/turnamen',
      'data-testid': 'tournaments-link',
      'data-focus': 'tournaments-link',
      'aria-label': t('nav.tournaments'),
      title: t('nav.tournaments'),
      onClick: (e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate('/turnamen');
      },
    }, icon('trophy'), h('span', { class: 'topbar-link-text' }, t('nav.tournaments'))),
    bellButton(),
    accountBar(),
    langToggle(),
  ];
}

function brandMark() {
  return tileSvg(6, 6, { orientation: 'v', className: 'brand-tile' });
}

/** The connection banner: shown while the table's socket is down. */
export function connectionBanner(room, actions) {
  if (!room) return null;
  const conn = room.conn || {};
  let text = null;
  let button = null;
  if (room.halted === 'replaced') {
    text = t('conn.replaced');
    button = h('button', { type: 'button', class: 'btn btn-small', onClick: actions.retryNow, 'data-focus': 'banner-btn' }, t('conn.reconnect'));
  } else if (room.halted === 'removed' || room.halted === 'banned') {
    text = t(`conn.${room.halted}`);
  } else if (room.halted === 'room_closed' || room.halted === 'not_found' || room.notFound) {
    // The closed-room or not-found page says it; the socket stays down.
    return null;
  } else if (conn.state === 'retrying') {
    const secs = conn.retryAt ? Math.max(0, Math.ceil((conn.retryAt - Date.now()) / 1000)) : 0;
    text = secs > 0 ? t('conn.lost', { s: secs }) : t('conn.reconnecting');
    if (typeof navigator !== 'undefined' && navigator.onLine === false) text = `${t('conn.offline')} ${text}`;
    button = h('button', { type: 'button', class: 'btn btn-small', onClick: actions.retryNow, 'data-focus': 'banner-btn' }, t('conn.retry'));
  } else if (conn.state === 'connecting' && conn.everOpen) {
    text = t('conn.reconnecting');
  } else {
    return null;
  }
  return h('div', {
    class: 'conn-banner',
    role: 'status',
    'data-testid': 'connection-banner',
    'data-state': room.halted || conn.state,
  }, h('span', { class: 'conn-dot', 'aria-hidden': 'true' }), h('span', { 'data-retry-text': '' }, text), button);
}

export function toasts(list) {
  return list.map((item) => {
    const a = enter(`toast:${item.id}`, 'anim-rise', 250);
    return h('div', {
      class: `toast toast-${item.kind} ${a.class}`,
      style: a.style,
    'data-testid': 'toast',
      role: item.kind === 'error' ? 'alert' : 'status',
    }, item.text);
  });
}

/**
 * Whether a seat's player is connected, as this page can tell: the server's presence, except for
 * your own seat, which is off while this page's own socket is down (or the browser is offline) —
 * a page that lost its socket hears no presence message saying so. undefined: not known yet.
 */
export function seatConnected(room, seat, me) {
  if (me !== null && me !== undefined && seat === me) {
    const conn = room.conn || {};
    const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
    if (room.halted || offline || (conn.state && conn.state !== 'open')) return false;
  }
  return room.presence[seat];
}

/** A link to a tournament table's tournament page (an in-app navigation). */
export function tournamentLink(tournament, testid, className, text) {
  const path = tournamentPath(tournament.id);
  return h('a', {
    href: path,
    class: className,
    'data-testid': testid,
    'data-tournament': tournament.id,
    'data-round': tournament.round,
    onClick: (e) => {
      if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
      e.preventDefault();
      window.history.pushState({}, '', path);
      window.dispatchEvent(new PopStateEvent('popstate'));
    },
  }, icon('trophy'), ' ', text);
}
