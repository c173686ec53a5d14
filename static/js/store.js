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
const toastTimers = new Map();

/** A short message in the corner; `kind` is "info" | "error" | "ok". The same message again while
 * it shows is one toast, refreshed (moved last, its time started again), never a pile. */
export function toast(text, kind = 'info', ms = 4000) {
  const same = state.toasts.find((x) => x.text === text && x.kind === kind);
  const item = same || { id: (toastId += 1), text, kind };
  state.toasts = [...state.toasts.filter((x) => x !== item).slice(-3), item];
  changed();
  clearTimeout(toastTimers.get(item.id));
  toastTimers.set(item.id, setTimeout(() => {
    toastTimers.delete(item.id);
    state.toasts = state.toasts.filter((x) => x.id !== item.id);
    changed();
  }, ms));
}

/** Say something to screen readers (a polite live region). */
export function announce(text) {
  const el = document.getElementById('announcer');
  if (!el) return;
  el.textContent = '';
  // A separate task so the same sentence twice is still read.
  setTimeout(() => { el.textContent = text; }, 30);
}
