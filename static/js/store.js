// The client's state and a batched "something changed" signal. Views read `state`; actions
// mutate it and call changed(); one render follows per microtask.

import { loadPlayer } from './storage.js';

export const state = {
  route: { name: 'lobby' },
  player: loadPlayer(),
  drafts: {
    name: '',
    editingName: false,
    code: '',
    // The create form's draft: null until GET /api/presets brings the server's defaults.
    create: null,
    // Play now: {preset, mode, turn_seconds}, from the presets' quick-play default.
    quick: null,
  },
  // The server's presets (presets.js): 'loading' | 'ready' | 'error'.
  presets: 'loading',
  // `next`: the cursor of the lobby's next page; `extra`: rooms from the pages after the first.
  lobby: { rooms: null, next: null, extra: [], more: false, error: false, busy: false, createError: null, quickBusy: false },
  room: null,
  toasts: [],
};

const subscribers = new Set();
let scheduled = false;

export function subscribe(fn) {
  subscribers.add(fn);
  return () => subscribers.delete(fn);
}

export function changed() {
  if (scheduled) return;
  scheduled = true;
  queueMicrotask(() => {
    scheduled = false;
    for (const fn of subscribers) fn();
  });
}

let toastId = 0;

/** A short message in the corner; `kind` is "info" | "error" | "ok". */
export function toast(text, kind = 'info', ms = 4000) {
  toastId += 1;
  const item = { id: toastId, text, kind };
  state.toasts = [...state.toasts.slice(-3), item];
  changed();
  setTimeout(() => {
    state.toasts = state.toasts.filter((x) => x.id !== item.id);
    changed();
  }, ms);
}

/** Say something to screen readers (a polite live region). */
export function announce(text) {
  const el = document.getElementById('announcer');
  if (!el) return;
  el.textContent = '';
  // A separate task so the same sentence twice is still read.
  setTimeout(() => { el.textContent = text; }, 30);
}
