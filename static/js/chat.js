// Table talk: the chat drawer, reaction bubbles on the seats, the unread badge, muted seats,
// and a flag on each other player's line that reports it (report.js quotes the line).
//
// Owns its own DOM (#chat-root, outside the page's render loop) so that typing survives the
// table's re-renders. The server relays what players send (docs/PROTOCOL.md, "Chat"); the
// reactions and quick phrases (both languages) come from GET /api/presets, never a copy here.
// Hooks: session.js calls open/close and hands over the chat frames with receive().

import { h, s as svg } from './dom.js';
import { state, subscribe } from './store.js';
import { t, lang, onLangChange } from './i18n.js';
import { seatLabel } from './seats.js';
import { loadMuted, saveMuted } from './storage.js';
import { openReport } from './report.js';
import { icon } from './icons.js';

const BUBBLE_MS = 3000;
const TALK = new Set(['chat', 'react', 'phrase', 'chat_history']);

let catalogue = null; // {max_chars, emoji, phrases: [{id, id_text, en_text}]}
let send = null;
let lines = []; // chat and phrase frames as the server sent them, oldest first
let unread = 0;
let isOpen = false;
let muted = new Set(loadMuted());
let ui = null;
let unsubscribe = null;

/** Whether a server frame is table talk (and so belongs here). */
export const isTalk = (msg) => TALK.has(msg.type);

export function open(sendFn) {
  close();
  send = sendFn;
  lines = [];
  unread = 0;
  isOpen = false;
  loadCatalogue();
  unsubscribe = subscribe(() => requestAnimationFrame(refresh));
  const offLang = onLangChange(() => { build(); refresh(); });
  const onResize = () => place();
  window.addEventListener('resize', onResize);
  const stop = unsubscribe;
  unsubscribe = () => { stop(); offLang(); window.removeEventListener('resize', onResize); };
  build();
  refresh();
}

export function close() {
  if (unsubscribe) unsubscribe();
  unsubscribe = null;
  send = null;
  if (ui) ui.root.remove();
  ui = null;
}

export function receive(msg) {
  if (msg.type === 'chat_history') {
    lines = Array.isArray(msg.lines) ? msg.lines.slice() : [];
    renderLines();
    return;
  }
  if (msg.type === 'react' || msg.type === 'phrase') bubble(msg);
  if (msg.type === 'react' && typeof msg.seat === 'number') return; // a seat's: a bubble only
  lines.push(msg);
  if (lines.length > 200) lines = lines.slice(-200);
  if (!isOpen && !isMuted(msg) && !isMine(msg)) unread += 1;
  renderLines();
  renderBadge();
}

// --- what the viewer sees ------------------------------------------------------------------

async function loadCatalogue() {
  if (catalogue) return;
  try {
    const response = await fetch('/api/presets');
    catalogue = (await response.json()).chat;
  } catch {
    catalogue = null; // the quick row stays empty; typing still works
  }
  if (ui) { build(); refresh(); }
}

function phraseText(id) {
  const phrase = catalogue && catalogue.phrases.find((p) => p.id === id);
  if (!phrase) return id;
  return lang() === 'id' ? phrase.id_text : phrase.en_text;
}

function playerAt(seat) {
  const info = state.room && state.room.info;
  const entry = info && info.seats[seat];
  return entry && entry.player_id ? entry.player_id : null;
}

function isMuted(msg) {
  if (typeof msg.seat !== 'number') return false;
  const player = playerAt(msg.seat);
  return Boolean(player && muted.has(player));
}

function isMine(msg) {
  const room = state.room;
  return Boolean(room && room.role === 'seat' && msg.seat === room.seat);
}

function senderName(msg) {
  if (typeof msg.seat === 'number') return msg.name || seatLabel(state.room, msg.seat);
  return `${msg.name || '?'} (${t('chat.spectator')})`;
}

function chatOn() {
  const info = state.room && state.room.info;
  return !(info && info.settings && info.settings.chat === false);
}

function build() {
  const draft = ui ? ui.input.value : '';
  if (ui) ui.root.remove();
  const input = h('input', {
    class: 'chat-input',
    'data-testid': 'chat-input',
    type: 'text',
    maxlength: (catalogue && catalogue.max_chars) || 200,
    enterkeyhint: 'send',
    autocomplete: 'off',
    'aria-label': t('chat.placeholder'),
    placeholder: t('chat.placeholder'),
  });
  const form = h('form', { class: 'chat-form', onSubmit: (e) => { e.preventDefault(); sendText(input); } },
    input,
    h('button', { class: 'btn btn-primary chat-send', type: 'submit', 'data-testid': 'chat-send' }, t('chat.send')));
  const quick = h('div', { class: 'chat-quick', 'data-testid': 'chat-quick' },
    h('div', { class: 'chat-emoji', role: 'group', 'aria-label': t('chat.reactions') },
      ((catalogue && catalogue.emoji) || []).map((emoji) => h('button', {
        class: 'chat-emoji-btn', type: 'button', 'data-testid': 'react', 'data-emoji': emoji,
        'aria-label': t('chat.react', { emoji }),
        onClick: () => talk({ type: 'react', emoji }),
      }, emoji))),
    h('div', { class: 'chat-phrases', role: 'group', 'aria-label': t('chat.phrases') },
      ((catalogue && catalogue.phrases) || []).map((p) => h('button', {
        class: 'chat-phrase-btn', type: 'button', 'data-testid': 'phrase', 'data-phrase': p.id,
        onClick: () => talk({ type: 'phrase', id: p.id }),
      }, phraseText(p.id)))));
  const list = h('ol', { class: 'chat-lines', 'data-testid': 'chat-lines', role: 'log', 'aria-label': t('chat.title') });
  const mutes = h('div', { class: 'chat-mutes', role: 'group', 'aria-label': t('chat.mute') });
  const muteRow = h('div', { class: 'chat-mute-row' }, h('span', { class: 'chat-mute-label', 'aria-hidden': 'true' }, t('chat.mute')), mutes);
  const note = h('p', { class: 'chat-note', 'data-testid': 'chat-note', hidden: true });
  const drawer = h('aside', {
    class: 'chat-drawer', id: 'chat-drawer', 'data-testid': 'chat-drawer', hidden: true, 'aria-label': t('chat.title'),
    onKeydown: (e) => { if (e.key === 'Escape') toggle(false); },
  },
  h('div', { class: 'chat-head' },
    h('h2', { class: 'chat-title' }, t('chat.title')),
    h('button', { class: 'chat-close', type: 'button', 'data-testid': 'chat-close', 'aria-label': t('chat.close'), onClick: () => toggle(false) }, '✕')),
  muteRow, list, note, quick, form);
  const badge = h('span', { class: 'chat-badge', 'data-testid': 'chat-badge', hidden: true });
  const button = h('button', {
    class: 'chat-toggle', type: 'button', 'data-testid': 'chat-toggle',
    'aria-controls': 'chat-drawer', 'aria-expanded': 'false', 'aria-label': t('chat.open'),
    onClick: () => toggle(!isOpen),
  }, bubbleIcon(), badge);
  const bubbles = h('div', { class: 'chat-bubbles', 'aria-hidden': 'true' });
  const root = h('div', { id: 'chat-root', class: 'chat-root', hidden: true }, bubbles, button, drawer);
  document.body.appendChild(root);
  ui = { root, drawer, button, badge, list, mutes, muteRow, note, input, form, bubbles };
  input.value = draft; // what was being typed survives a language switch
  if (isOpen) toggle(true, false);
}

function refresh() {
  if (!ui) return;
  const room = state.room;
  ui.root.hidden = !(room && room.welcomed);
  if (ui.root.hidden) return;
  const off = !chatOn();
  const anonymous = !(state.player && state.player.token);
  ui.input.disabled = off || anonymous;
  ui.note.hidden = !(off || anonymous);
  ui.note.textContent = anonymous ? t('chat.anonymous') : t('chat.off');
  renderMutes();
  renderLines();
  renderBadge();
  place();
}

function renderBadge() {
  if (!ui) return;
  ui.badge.hidden = unread === 0;
  ui.badge.textContent = unread > 9 ? '9+' : String(unread);
  ui.button.setAttribute('aria-label', unread ? t('chat.open_unread', { n: unread }) : t('chat.open'));
}

function renderMutes() {
  const room = state.room;
  const info = room && room.info;
  const chips = [];
  for (const entry of (info && info.seats) || []) {
    if (!entry.player_id || (room.role === 'seat' && entry.seat === room.seat)) continue;
    const on = muted.has(entry.player_id);
    chips.push(h('button', {
      class: `chat-mute${on ? ' on' : ''}`, type: 'button', 'data-testid': 'chat-mute', 'data-seat': entry.seat,
      'aria-pressed': String(on),
      title: on ? t('chat.unmute_seat', { name: seatLabel(room, entry.seat) }) : t('chat.mute_seat', { name: seatLabel(room, entry.seat) }),
      onClick: () => toggleMute(entry.player_id),
    }, seatLabel(room, entry.seat)));
  }
  ui.mutes.replaceChildren(...chips);
  ui.muteRow.hidden = chips.length === 0;
}

/**
 * Who a line may be reported about: the player at its seat, if that seat is still theirs (the
 * name matches) and is not the viewer's, for a viewer with a token (POST /api/reports is bearer).
 * A spectator's line names no player: it is not offered.
 */
function reportable(msg) {
  if (typeof msg.seat !== 'number' || isMine(msg) || !(state.player && state.player.token)) return null;
  const player = playerAt(msg.seat);
  const name = seatLabel(state.room, msg.seat);
  return player && msg.name === name ? { player_id: player, name } : null;
}

function lineText(msg) {
  return msg.type === 'chat' ? msg.text : msg.type === 'phrase' ? phraseText(msg.id) : msg.emoji;
}

function renderLines() {
  if (!ui) return;
  const shown = lines.filter((msg) => !isMuted(msg));
  const items = shown.map((msg) => {
    const who = reportable(msg);
    const said = lineText(msg);
    return h('li', {
      class: `chat-line${isMine(msg) ? ' mine' : ''}${typeof msg.seat === 'number' ? ` seat-line seat-${msg.seat}` : ' spectator-line'}`,
      'data-testid': 'chat-line',
      'data-kind': msg.type,
    },
    h('b', { class: 'chat-name' }, senderName(msg)), ' ',
    h('span', { class: 'chat-text' }, said),
    who ? h('button', {
      class: 'chat-line-report', type: 'button', 'data-testid': 'chat-line-report', 'data-seat': msg.seat,
      title: t('report.line_button', { name: who.name }), 'aria-label': t('report.line_button', { name: who.name }),
      onClick: () => openReport(who, { line: said }),
    }, icon('flag')) : null);
  });
  if (!items.length) items.push(h('li', { class: 'chat-empty' }, t('chat.empty')));
  const atEnd = ui.list.scrollTop + ui.list.clientHeight >= ui.list.scrollHeight - 24;
  ui.list.replaceChildren(...items);
  if (atEnd || isOpen) ui.list.scrollTop = ui.list.scrollHeight;
}

/** Keep the drawer between the top bar and the hand, whatever size the table takes. */
function place() {
  if (!ui) return;
  const hand = document.querySelector('.hand-area');
  const bar = document.getElementById('topbar');
  const bottom = hand ? Math.max(0, window.innerHeight - hand.getBoundingClientRect().top) : 0;
  const top = bar ? Math.max(0, bar.getBoundingClientRect().bottom) : 0;
  ui.root.style.setProperty('--chat-bottom', `${Math.round(bottom)}px`);
  ui.root.style.setProperty('--chat-top', `${Math.round(top)}px`);
}

function toggle(next, focus = true) {
  isOpen = next;
  if (!ui) return;
  ui.drawer.hidden = !next;
  ui.button.setAttribute('aria-expanded', String(next));
  ui.root.classList.toggle('open', next);
  if (next) {
    unread = 0;
    renderBadge();
    renderLines();
    ui.list.scrollTop = ui.list.scrollHeight;
    if (focus && !ui.input.disabled && window.matchMedia('(pointer: fine)').matches) ui.input.focus();
  } else if (focus) {
    ui.button.focus();
  }
}

function toggleMute(player) {
  if (muted.has(player)) muted.delete(player);
  else muted.add(player);
  saveMuted([...muted]);
  refresh();
}

function talk(message) {
  if (send) send(message);
}

function sendText(input) {
  const text = input.value.trim();
  if (!text || !send) return;
  if (send({ type: 'chat', text }) !== false) input.value = '';
}

function bubble(msg) {
  if (!ui || typeof msg.seat !== 'number' || isMuted(msg)) return;
  const seat = document.querySelector(`.seat-panel[data-seat="${msg.seat}"]`);
  if (!seat) return;
  const rect = seat.getBoundingClientRect();
  const el = h('div', {
    class: `chat-bubble${msg.type === 'react' ? ' emoji' : ''}`,
    'data-testid': 'reaction-bubble',
    'data-seat': msg.seat,
    style: { left: `${Math.round(rect.left + rect.width / 2)}px`, top: `${Math.round(rect.top + 4)}px` },
  }, msg.type === 'react' ? msg.emoji : phraseText(msg.id));
  for (const old of ui.bubbles.querySelectorAll(`[data-seat="${msg.seat}"]`)) old.remove();
  ui.bubbles.appendChild(el);
  setTimeout(() => el.remove(), BUBBLE_MS);
}

function bubbleIcon() {
  // A speech bubble as inline SVG: emoji fonts differ between phones (icons.js does the same).
  return svg('svg', { class: 'chat-icon', viewBox: '0 0 24 24', width: 24, height: 24, fill: 'none',
    stroke: 'currentColor', 'stroke-width': 2, 'stroke-linecap': 'round', 'stroke-linejoin': 'round',
    'aria-hidden': 'true', focusable: 'false' },
  svg('path', { d: 'M21 12a8 8 0 0 1-11.6 7.1L4 20.5l1.5-4.6A8 8 0 1 1 21 12z' }),
  svg('path', { d: 'M8.5 12h.01M12 12h.01M15.5 12h.01' }));
}
