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
    create: {
      preset: 'pordi',
      mode: 'tunggal',
      turn_seconds: 15,
      deals_per_set: 7,
      target_points: 7,
      public: true,
    },
  },
  lobby: { rooms: null, error: false, busy: false, createError: null },
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
