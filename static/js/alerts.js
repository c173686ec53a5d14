// Telling a player that it is their turn, even when they look away: a short chime (WebAudio,
// tones made here, no sound files), a buzz on phones, and, while the tab is hidden, a title and
// a favicon that say so. In the last seconds of their own clock a tick grows louder each second.
//
// It only reads the state the server's snapshots and events built (store.js); nothing here
// decides whose turn it is. The clock is the server's (`remaining_ms`, game.js remainingMs).

import { state, subscribe, changed } from './store.js';
import { remainingMs } from './game.js';
import { t } from './i18n.js';
import { h } from './dom.js';
import { icon } from './icons.js';
import { loadSoundOn, saveSoundOn } from './storage.js';

/** Each sound as tones: start offset and length in seconds, peak gain 0..1. */
export const TONES = {
  turn: [
    { freq: 660, wave: 'sine', at: 0, dur: 0.14, gain: 0.35 },
    { freq: 880, wave: 'sine', at: 0.16, dur: 0.22, gain: 0.35 },
  ],
  tick: [{ freq: 1320, wave: 'square', at: 0, dur: 0.05, gain: 0.12 }],
};
export const TICK_FROM_S = 5;
export const VIBRATE_PATTERN = [90, 60, 90];

/** A key for the viewer's current turn (new for each turn), or null when it is not theirs. */
export function turnKey(room) {
  const game = room && room.game;
  const view = game && game.view;
  if (!view || room.role !== 'seat' || typeof room.seat !== 'number') return null;
  if (view.phase !== 'playing' || view.turn !== room.seat) return null;
  // Each turn has its own deadline, so two turns in a row (everyone else passed) are two alerts,
  // and the snapshot after a reconnect (same deadline) is not a new one.
  const clock = game.clock;
  const deadline = clock && clock.seat === room.seat && clock.deadline !== null ? clock.deadline : 'none';
  return `${game.set}:${view.dealNumber}:${deadline}`;
}

/** The second to tick for with `ms` left on the viewer's clock (5 … 1), or null. */
export function tickSecond(ms) {
  if (typeof ms !== 'number' || ms <= 0) return null;
  const s = Math.ceil(ms / 1000);
  return s <= TICK_FROM_S ? s : null;
}

/** The tick for second `s`: louder as the time runs out (1 is the loudest). */
export function tickTones(s) {
  const louder = 1 + (TICK_FROM_S - s) * 0.5;
  return TONES.tick.map((tone) => ({ ...tone, gain: Math.min(0.5, tone.gain * louder) }));
}

/** The tab's title: the page's own, or "Your turn! · …" while the player is wanted elsewhere. */
export function alertTitle(base, alerting) {
  return alerting ? t('alert.title', { title: base }) : base;
}

// The favicon with a red dot: the same tile as index.html's, so only the dot changes.
const ALERT_DOT = "%3Ccircle cx='24' cy='8' r='7.5' fill='%23e53935' stroke='%23fff' stroke-width='1.5'/%3E";

let audio = null;
let soundOn = true;
let current = null; // turnKey of the turn being alerted
let lastTick = null;
let tickTimer = null;
let ours = null; // {title, base}: the title set here and the page's own under it
let plainIcon = null;

function audioContext() {
  if (audio) return audio;
  const Ctor = window.AudioContext || window.webkitAudioContext;
  if (!Ctor) return null;
  try {
    audio = new Ctor();
  } catch {
    audio = null;
  }
  return audio;
}

/** Schedule `tones` on the WebAudio clock; a page the browser keeps silent just stays silent. */
function play(tones) {
  if (!soundOn) return;
  const ctx = audioContext();
  if (!ctx) return;
  if (ctx.state === 'suspended') ctx.resume().catch(() => {});
  const t0 = ctx.currentTime + 0.02;
  for (const tone of tones) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = tone.wave;
    osc.frequency.value = tone.freq;
    const start = t0 + tone.at;
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(tone.gain, start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + tone.dur);
    osc.connect(gain).connect(ctx.destination);
    osc.start(start);
    osc.stop(start + tone.dur + 0.02);
  }
}

function buzz() {
  // Phones only: a desktop browser has no motor, and vibrating needs a tap on the page first.
  const phone = window.matchMedia && window.matchMedia('(pointer: coarse)').matches;
  if (!soundOn || !phone || typeof navigator.vibrate !== 'function') return;
  try {
    navigator.vibrate(VIBRATE_PATTERN);
  } catch { /* not allowed yet */ }
}

function iconLink() {
  return document.querySelector('link[rel="icon"]');
}

/** Title and favicon: "your turn" while it is and the tab is hidden, else the page's own. */
function applyTab() {
  const alerting = current !== null && document.visibilityState === 'hidden';
  // A render sets the page's own title; under ours lies the one it set last.
  const base = ours && document.title === ours.title ? ours.base : document.title;
  const title = alertTitle(base, alerting);
  if (document.title !== title) document.title = title;
  ours = alerting ? { title, base } : null;
  const link = iconLink();
  if (!link) return;
  if (plainIcon === null) plainIcon = link.getAttribute('href');
  const href = alerting ? plainIcon.replace('%3C/svg%3E', `${ALERT_DOT}%3C/svg%3E`) : plainIcon;
  if (link.getAttribute('href') !== href) link.setAttribute('href', href);
}

function tickNow() {
  const room = state.room;
  if (current === null || !room || turnKey(room) !== current) return;
  const clock = room.game.clock;
  if (!clock || clock.seat !== room.seat) return;
  const s = tickSecond(remainingMs(room.game, performance.now()));
  if (s !== null && s !== lastTick) {
    lastTick = s;
    play(tickTones(s));
  }
}

/** After every change of state: a new turn of the viewer's starts the alert. */
function update() {
  const key = turnKey(state.room);
  if (key !== current) {
    current = key;
    lastTick = null;
    clearInterval(tickTimer);
    tickTimer = null;
    if (key !== null) {
      play(TONES.turn);
      buzz();
      tickTimer = setInterval(tickNow, 200);
    }
  }
  applyTab();
}

export function setSound(on) {
  soundOn = Boolean(on);
  saveSoundOn(soundOn);
  if (soundOn) audioContext(); // a tap on the toggle is the gesture that lets audio start
  changed();
}

/** The mute toggle (the table's info bar). */
export function soundToggle() {
  const on = soundOn;
  return h('button', {
    type: 'button',
    class: `btn btn-ghost btn-small sound-toggle${on ? '' : ' off'}`,
    'data-testid': 'sound-toggle',
    'data-sound': on ? 'on' : 'off',
    'data-focus': 'sound-toggle',
    'aria-pressed': String(on),
    'aria-label': t('sound.toggle'),
    title: on ? t('sound.on') : t('sound.off'),
    onClick: () => setSound(!on),
  }, icon(on ? 'sound' : 'muted'));
}

/** Once, at boot, after the page's own render subscribed (the title is decorated after it). */
export function initAlerts() {
  soundOn = loadSoundOn();
  // Browsers start audio only after a gesture: the first tap or key on the page unlocks it.
  const unlock = () => {
    const ctx = soundOn ? audioContext() : null;
    if (ctx && ctx.state === 'suspended') ctx.resume().catch(() => {});
  };
  window.addEventListener('pointerdown', unlock, { capture: true, once: true });
  window.addEventListener('keydown', unlock, { capture: true, once: true });
  document.addEventListener('visibilitychange', applyTab);
  subscribe(update);
}
