// node --test: the client's fair-deal check (fairness.js) against the Python engine's deals of
// the same secrets, which the runner (tests/e2e/test_static_units.py) computes with
// engine/fairness.py and names in GAPLE_FAIRNESS_JSON: no dealt tile is copied here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

// fairness.js's mark reads the language through storage.js; a stub is enough to import it.
globalThis.localStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {} };
const fair = await import('../fairness.js');

const path = process.env.GAPLE_FAIRNESS_JSON;
assert.ok(path, 'GAPLE_FAIRNESS_JSON names the engine-dealt vectors');
const vectors = JSON.parse(readFileSync(path, 'utf8'));

// What a finished deal reveals: every tile each seat was dealt still in hand (no move played),
// the set-aside tiles, the start tile as drawn (low number on the left).
function shownOf(v, seat = 0) {
  return {
    commitment: v.commitment,
    dealing: v.dealing,
    secret: v.secret,
    start: v.start,
    dealtHand: v.hands[seat],
    seat,
    result: { hands: v.hands, discards: v.hands.map(() => []), setAside: v.set_aside },
  };
}

test('the commitment is SHA-256 of the secret text', async () => {
  for (const v of vectors) assert.equal(await fair.sha256Hex(v.secret), v.commitment);
});

test('the shuffle, redeals, hands, start tile, set-aside and seat are the engine\'s', async () => {
  assert.ok(vectors.some((v) => v.k > 0), 'some vector redeals');
  for (const v of vectors) {
    assert.deepEqual(await fair.shuffle(v.secret, v.k), v.order);
    const dealt = await fair.deal(v.secret, v.dealing);
    assert.equal(dealt.k, v.k);
    assert.deepEqual(dealt.hands, v.hands);
    assert.equal(dealt.start, v.start);
    assert.deepEqual(dealt.setAside, v.set_aside);
    assert.equal(dealt.firstSeat, v.first_seat);
  }
});

test('a revealed deal verifies against its commitment', async () => {
  for (const v of vectors) assert.deepEqual(await fair.verifyDeal(shownOf(v, v.hands.length - 1)), { ok: true, reason: null });
});

test('a secret that is not the one committed to fails', async () => {
  const [a, b] = vectors;
  assert.deepEqual(await fair.verifyDeal({ ...shownOf(a), secret: b.secret }), { ok: false, reason: 'commitment' });
  const flipped = a.commitment.replace(/^./, (c) => (c === '0' ? '1' : '0'));
  assert.equal((await fair.verifyDeal({ ...shownOf(a), commitment: flipped })).reason, 'commitment');
});

test('malformed secrets are refused, never normalised', async () => {
  const v = vectors[0];
  for (const secret of [v.secret.toUpperCase(), `0x${v.secret.slice(2)}`, v.secret.slice(1), ` ${v.secret.slice(1)}`, null]) {
    assert.deepEqual(await fair.verifyDeal({ ...shownOf(v), secret }), { ok: false, reason: 'malformed' });
  }
});

test('tiles that the secret did not deal fail the check', async () => {
  const v = vectors.find((x) => x.dealing.start_tile && !x.k);
  const shown = shownOf(v);
  const swapped = v.hands.map((h) => h.slice());
  [swapped[0][0], swapped[1][0]] = [swapped[1][0], swapped[0][0]];
  assert.equal((await fair.verifyDeal({ ...shown, dealtHand: null, result: { ...shown.result, hands: swapped } })).reason, 'hands');
  assert.equal((await fair.verifyDeal({ ...shown, dealtHand: swapped[0] })).reason, 'hands');
  assert.equal((await fair.verifyDeal({ ...shown, dealing: { ...v.dealing, k: v.k + 1 } })).reason, 'redeals');
  const other = vectors.find((x) => x.start && x.start !== v.start);
  assert.equal((await fair.verifyDeal({ ...shown, start: other.start })).reason, 'start');
});

test('a replay checks every hand as dealt', async () => {
  for (const v of vectors) {
    const shown = { ...shownOf(v), dealtHand: null, seat: null, dealtHands: v.hands };
    assert.deepEqual(await fair.verifyDeal(shown), { ok: true, reason: null });
    // Hands as dealt in another order of tiles are the same hands.
    const reversed = v.hands.map((h) => h.slice().reverse());
    assert.deepEqual(await fair.verifyDeal({ ...shown, dealtHands: reversed }), { ok: true, reason: null });
  }
  const v = vectors.find((x) => x.hands.length >= 2);
  const swapped = v.hands.map((h) => h.slice());
  [swapped[0][0], swapped[1][0]] = [swapped[1][0], swapped[0][0]];
  const shown = { ...shownOf(v), dealtHand: null, seat: null };
  assert.equal((await fair.verifyDeal({ ...shown, dealtHands: swapped })).reason, 'hands');
  assert.equal((await fair.verifyDeal({ ...shown, dealtHands: v.hands.slice(1) })).reason, 'hands');
});
