// Motion at the table, driven by the server's events (never by a tap): a placed tile travels from
// its player's seat to its place on the line, a new deal's tiles fly into the hand, and a Domi,
// Ceki or Kandang is celebrated over the result. The page is re-rendered from state on every
// change, so each motion remembers when it started and is resumed on the new elements with a
// negative delay (as anim.js does for CSS entrances). Under `prefers-reduced-motion` nothing moves.

import { tileKey } from './game.js';
import { t } from './i18n.js';

export const TRAVEL_MS = 420;
export const DEAL_MS = 320;
export const DEAL_STAGGER_MS = 55;
export const CELEBRATE_MS = 2200;
const STALE_MS = 3000;
const CONFETTI = 18;

// Placements still travelling, by tile (bots may place several within one travel's time).
const travels = new Map(); // key -> {seat, fromHand, at}
let deal = null; // {at}: the deal that flies into the hand

export function reducedMotion() {
  return Boolean(window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches);
}

/**
 * Which celebration a `deal_ended` event earns: "domi" (a seat went out), "ceki" (PORDI's Ceki
 * kinds) or "kandang" (the board locked); null for anything else.
 */
export function celebrationOf(ev) {
  if (!ev || typeof ev !== 'object') return null;
  const result = typeof ev.result === 'string' ? ev.result : '';
  if (result.startsWith('ceki')) return 'ceki';
  if (ev.end === 'kandang' || result === 'kandang') return 'kandang';
  if (ev.end === 'domi') return 'domi';
  return null;
}

/** The FLIP offset: where `from` (a point on screen) lies in the tile's own coordinates. */
export function localOffset(matrix, from) {
  // The inverse of [a c e; b d f] applied to the point.
  const { a, b, c, d, e, f } = matrix;
  const det = a * d - b * c;
  if (!det) return { x: 0, y: 0 };
  const x = from.x - e;
  const y = from.y - f;
  return { x: (d * x - c * y) / det, y: (a * y - b * x) / det };
}

/** An event was applied (session.js): remember what should move. `me`: the viewer's seat. */
export function onEvent(ev, me) {
  if (!ev || reducedMotion()) return;
  const now = performance.now();
  if (ev.kind === 'played' && typeof ev.seat === 'number') {
    // It starts when first drawn (`at`), so a slow render cuts nothing short.
    travels.set(tileKey(ev.tile), { seat: ev.seat, fromHand: ev.seat === me, queued: now, at: null });
  } else if (ev.kind === 'deal_started') {
    deal = { at: null }; // starts when the hand is first drawn
    travels.clear();
  } else if (ev.kind === 'deal_ended') {
    const kind = celebrationOf(ev);
    if (kind) celebrate(kind, ev);
  }
}

function centre(el) {
  const r = el.getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
}

function running(el, id) {
  return el.getAnimations().some((a) => a.id === id);
}

function animate(el, id, keyframes, options) {
  if (running(el, id)) return;
  el.animate(keyframes, { id, fill: 'backwards', ...options });
}

/** Each placed tile, from its seat (or the viewer's hand) to where the line has it now. */
function resumeTravel(root, now) {
  if (!travels.size) return;
  const tiles = root.querySelectorAll('[data-testid="line-tile"]');
  for (const tile of tiles) {
    const key = tileKey(tile.getAttribute('data-tile'));
    const travel = travels.get(key);
    if (!travel) continue;
    if (travel.at === null) travel.at = now;
    const elapsed = now - travel.at;
    if (elapsed >= TRAVEL_MS) {
      travels.delete(key);
      continue;
    }
    const inner = tile.querySelector('.tile-in');
    const source = (travel.fromHand && root.querySelector('[data-testid="hand"]'))
      || root.querySelector(`[data-testid="seat-panel"][data-seat="${travel.seat}"]`);
    const matrix = tile.getScreenCTM();
    if (!inner || !source || !matrix) continue;
    const off = localOffset(matrix, centre(source));
    animate(inner, 'travel', [
      { transform: `translate(${off.x}px, ${off.y}px) scale(0.7)`, opacity: 0.85 },
      { transform: 'none', opacity: 1 },
    ], { duration: TRAVEL_MS, delay: -elapsed, easing: 'cubic-bezier(0.25, 0.8, 0.3, 1)' });
  }
  // A tile that never showed up on the line (a resync replaced it) is dropped in time.
  for (const [key, travel] of travels) if (now - travel.queued >= STALE_MS) travels.delete(key);
}

/** A new deal: the hand's tiles fly in from the middle of the felt, one after the other. */
function resumeDeal(root, now) {
  if (deal === null) return;
  const tiles = [...root.querySelectorAll('[data-testid="hand-tile"]')];
  if (tiles.length && deal.at === null) deal.at = now;
  const elapsed = deal.at === null ? 0 : now - deal.at;
  if (elapsed >= DEAL_MS + DEAL_STAGGER_MS * Math.max(tiles.length, 7)) {
    deal = null;
    return;
  }
  const board = root.querySelector('[data-testid="board"]');
  const from = board ? centre(board) : null;
  tiles.forEach((el, i) => {
    const at = centre(el);
    const dx = from ? from.x - at.x : 0;
    const dy = from ? from.y - at.y : -60;
    animate(el, 'deal', [
      { transform: `translate(${dx}px, ${dy}px) scale(0.4) rotate(-8deg)`, opacity: 0 },
      { transform: 'none', opacity: 1 },
    ], { duration: DEAL_MS, delay: i * DEAL_STAGGER_MS - elapsed, easing: 'cubic-bezier(0.2, 0.8, 0.3, 1)' });
  });
}

/** After every render of the table and every redraw of its board. */
export function afterRender() {
  const root = document;
  if (reducedMotion()) {
    travels.clear();
    deal = null;
    return;
  }
  const now = performance.now();
  resumeTravel(root, now);
  resumeDeal(root, now);
}

/** Domi, Ceki, Kandang: a burst over the felt, outside the re-rendered page, gone by itself. */
function celebrate(kind, ev) {
  const old = document.querySelector('[data-testid="celebration"]');
  if (old) old.remove();
  const layer = document.createElement('div');
  layer.className = `celebration celebrate-${kind}`;
  layer.setAttribute('data-testid', 'celebration');
  layer.setAttribute('data-kind', kind);
  layer.setAttribute('aria-hidden', 'true'); // the live region announces the result
  const label = document.createElement('div');
  label.className = 'celebration-label';
  label.textContent = t(`result.${ev.result || kind}`);
  layer.append(label);
  for (let i = 0; i < CONFETTI; i += 1) {
    const bit = document.createElement('span');
    bit.className = `confetti c${i % 4}`;
    const angle = (i / CONFETTI) * Math.PI * 2;
    bit.style.setProperty('--dx', `${Math.round(Math.cos(angle) * (120 + (i % 3) * 40))}px`);
    bit.style.setProperty('--dy', `${Math.round(Math.sin(angle) * (90 + (i % 4) * 30))}px`);
    bit.style.setProperty('--spin', `${(i % 2 ? 1 : -1) * (180 + i * 20)}deg`);
    layer.append(bit);
  }
  document.body.append(layer);
  setTimeout(() => layer.remove(), CELEBRATE_MS);
}
