// Provably fair deals (docs/FAIRNESS.md, shuffle sha256-v1), checked on this device: a finished
// deal's revealed secret against the commitment shown when the deal opened, and the secret's
// shuffle against the tiles the deal revealed. The pure part (everything above `fairMark`) runs
// under node --test too; it needs only WebCrypto (globalThis.crypto.subtle).

import { h } from './dom.js';
import { t, lang } from './i18n.js';
import { changed } from './store.js';

const HEX64 = /^[0-9a-f]{64}$/;
const TILES = [];
for (let a = 0; a <= 6; a += 1) for (let b = a; b <= 6; b += 1) TILES.push(`${a}-${b}`);
const RANK = new Map(TILES.map((name, i) => [name, i]));
const canonical = (list) => [...list].sort((x, y) => RANK.get(x) - RANK.get(y));
const isBalak = (name) => name[0] === name[2];
const ascii = new TextEncoder();

/** Whether `text` is a well-formed secret or commitment: 64 lowercase hex characters. */
export function isHex64(text) {
  return typeof text === 'string' && HEX64.test(text);
}

async function sha256(text) {
  return new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', ascii.encode(text)));
}

/** SHA-256 of the text's ASCII characters, as 64 lowercase hex characters. */
export async function sha256Hex(text) {
  return Array.from(await sha256(text), (b) => b.toString(16).padStart(2, '0')).join('');
}

// The first 8 bytes of SHA-256(message), big-endian unsigned, modulo n (BigInt: 64 bits).
async function draw(message, n) {
  const bytes = await sha256(message);
  let x = 0n;
  for (let i = 0; i < 8; i += 1) x = (x << 8n) | BigInt(bytes[i]);
  return Number(x % BigInt(n));
}

/** Shuffle `k` of `secret`: the 28 tiles, position 0 first (FAIRNESS.md §2). */
export async function shuffle(secret, k) {
  const order = TILES.slice();
  for (let i = 27; i >= 1; i -= 1) {
    const j = await draw(`${secret}:${k}:${i}`, i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** The random seat, 0..players-1 (FAIRNESS.md §4). */
export function randomSeat(secret, players) {
  return draw(`${secret}:seat`, players);
}

/**
 * What `secret` deals (FAIRNESS.md §3) under `dealing`, as the server publishes it with the deal:
 * {players, hand_size, start_tile, redeal_min_balak}. Hands in canonical order.
 */
export async function deal(secret, dealing) {
  const { players: p, hand_size: n, start_tile: start, redeal_min_balak: limit } = dealing;
  for (let k = 0; k < 1000; k += 1) {
    const order = await shuffle(secret, k);
    const hands = [];
    for (let s = 0; s < p; s += 1) hands.push(order.slice(s * n, s * n + n));
    if (limit > 0 && hands.some((hand) => hand.filter(isBalak).length >= limit)) continue;
    const rest = order.slice(p * n);
    return {
      k,
      hands: hands.map(canonical),
      start: start ? rest.shift() : null,
      setAside: rest,
      firstSeat: await randomSeat(secret, p),
    };
  }
  throw new Error('no shuffle without a redeal');
}

const subset = (part, whole) => part.every((x) => whole.includes(x));

/**
 * Check a finished deal. `shown`: what this client was told — {commitment (at the opening),
 * dealing, secret (at the end), start, dealtHand (its own hand as dealt, or null), seat,
 * dealtHands (every seat's hand as dealt, where the page knows them: a replay), result:
 * {hands, discards, setAside} (the deal_ended reveal)}. Returns {ok, reason}.
 */
export async function verifyDeal(shown) {
  const { commitment, dealing, secret, result } = shown;
  if (!isHex64(secret) || !isHex64(commitment)) return { ok: false, reason: 'malformed' };
  if (await sha256Hex(secret) !== commitment) return { ok: false, reason: 'commitment' };
  const dealt = await deal(secret, dealing);
  if (dealt.k !== dealing.k) return { ok: false, reason: 'redeals' };
  if (shown.start && canonical([shown.start.split('-').sort().join('-')])[0] !== dealt.start) {
    return { ok: false, reason: 'start' };
  }
  if (shown.dealtHand && shown.seat !== null && shown.seat !== undefined
    && canonical(shown.dealtHand).join() !== dealt.hands[shown.seat].join()) {
    return { ok: false, reason: 'hands' };
  }
  if (shown.dealtHands && (shown.dealtHands.length !== dealing.players
    || shown.dealtHands.some((hand, s) => canonical(hand).join() !== dealt.hands[s].join()))) {
    return { ok: false, reason: 'hands' };
  }
  // What each seat still held or laid face down was dealt to it (a drawn tile: off the set-aside).
  for (let s = 0; s < dealing.players; s += 1) {
    const owned = [...dealt.hands[s], ...dealt.setAside];
    const revealed = [...((result.hands || [])[s] || []), ...((result.discards || [])[s] || [])];
    const mine = revealed.filter((x) => !dealt.setAside.includes(x));
    if (!subset(revealed, owned) || !subset(mine, dealt.hands[s])) return { ok: false, reason: 'hands' };
  }
  if (!subset(result.setAside || [], dealt.setAside)) return { ok: false, reason: 'set_aside' };
  return { ok: true, reason: null };
}

// --- the mark on the deal result -----------------------------------------------------------------

const checks = new Map(); // `${commitment}:${secret}` -> 'pending' | {ok, reason}

/** "✓ shuffle verified" for a finished fair deal (null for a seeded one, or one in play). */
export function fairMark(view, seat = view && view.viewer) {
  const res = view && view.lastResult;
  if (!res) return null;
  return fairMarkFor({
    commitment: view.commitment,
    dealing: view.dealing,
    secret: view.secret,
    start: view.start,
    dealtHand: view.dealtHand,
    seat,
    result: res,
  });
}

/** The same mark for what `verifyDeal` checks (`shown`); null unless it is a fair deal's. */
export function fairMarkFor(shown) {
  if (!shown.commitment || !shown.dealing || !shown.secret) return null;
  const key = `${shown.commitment}:${shown.secret}`;
  if (!checks.has(key)) {
    checks.set(key, 'pending');
    verifyDeal(shown).catch(() => ({ ok: false, reason: 'error' })).then((done) => {
      checks.set(key, done);
      changed();
    });
  }
  const done = checks.get(key);
  const state = done === 'pending' ? 'pending' : done.ok ? 'ok' : 'fail';
  return h('p', { class: `fair-mark fair-${state} small`, 'data-testid': 'fair-mark', 'data-fair': state, role: 'status' },
    t(`fair.${state}`), ' ',
    h('a', { href: `/static/fairness.html#${lang()}`, target: '_blank', rel: 'noopener', 'data-testid': 'fair-link' }, t('fair.what')));
}
