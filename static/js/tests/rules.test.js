// node --test: the rules page's strings exist in both languages, and its drawings are real
// positions: every line joins, and the tile that ends each example is the ending it names.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import * as strings from '../i18n_rules.js';

globalThis.localStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {} };
const { LINES } = await import('../views/rules.js');

test('every rules string is in Indonesian and in English, with the same placeholders', () => {
  assert.deepEqual(Object.keys(strings.id).sort(), Object.keys(strings.en).sort());
  const holes = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  for (const key of Object.keys(strings.id)) {
    assert.deepEqual(holes(strings.id[key]), holes(strings.en[key]), key);
  }
});

const has = (tile, n) => tile[0] === n || tile[1] === n;
// How many tiles bearing n lie on the line: n is used up when all seven do.
const onLine = (line, n) => line.filter((tile) => has(tile, n)).length;

test('each drawn line joins, with no tile twice', () => {
  for (const [kind, line] of Object.entries(LINES)) {
    for (let i = 1; i < line.length; i += 1) assert.equal(line[i - 1][1], line[i][0], `${kind} at ${i}`);
    const keys = line.map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`);
    assert.equal(new Set(keys).size, keys.length, kind);
  }
});

test('the last tile of each example is the ending it is drawn for', () => {
  const before = (line) => [line[0][0], line[line.length - 2][1]]; // the open ends before it
  const last = (line) => line[line.length - 1];
  {
    const [a, b] = before(LINES.biasa);
    const t = last(LINES.biasa);
    assert.ok(a !== b && has(t, b) && !has(t, a) && t[0] !== t[1], 'biasa: one end, no balak');
  }
  {
    const [a, b] = before(LINES.balak);
    const t = last(LINES.balak);
    assert.ok(a !== b && t[0] === t[1] && t[0] === b);
  }
  for (const kind of ['ceki', 'ceki_habis', 'ceki_one']) {
    const [a, b] = before(LINES[kind]);
    const t = last(LINES[kind]);
    assert.ok(a !== b && has(t, a) && has(t, b), kind);
  }
  for (const kind of ['ceki_balak', 'ceki_palang']) {
    const [a, b] = before(LINES[kind]);
    const t = last(LINES[kind]);
    assert.ok(a === b && t[0] === a && t[1] === a, kind);
  }
  assert.ok(onLine(LINES.ceki_palang, 5) === 7, 'Palang: every 5 is on the board');
  assert.ok(onLine(LINES.ceki_balak, 4) < 7, 'Ceki Balak: some 4 is still held');
  // Kandang: both ends the same number, all seven of it on the line.
  const line = LINES.kandang;
  const [a, b] = [line[0][0], line[line.length - 1][1]];
  assert.equal(a, b);
  assert.equal(onLine(line, a), 7);
});

test('the Klasik "difference" result says what the rules page (and the engine) score', async () => {
  const main = await import('../i18n.js');
  for (const lang of ['id', 'en']) {
    // The rules page: "**Selisih** (bawaan): <how each seat scores>. <the target>".
    const rule = strings[lang]['rules.klasik.score.difference'].split('): ')[1].split('. ')[0];
    const explain = main.DICTIONARIES[lang]['klasik.scoring.difference.explain'].split(';')[0];
    assert.equal(explain.toLowerCase(), rule.toLowerCase(), lang);
  }
});
