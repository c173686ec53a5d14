// node --test: the name helpers (text.js) and the join field's code parsing (roomcode.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { firstGrapheme, initial, nameLength } from '../text.js';
import { codeFromText } from '../roomcode.js';

test('an avatar shows the first grapheme of a name, never half of one', () => {
  assert.equal(initial('budi'), 'B');
  assert.equal(initial('  sari '), 'S');
  assert.equal(initial('😀 Budi'), '😀');
  assert.equal(initial('👍🏽Ayu'), '👍🏽'); // emoji + skin tone: one grapheme, two code points
  assert.equal(initial('🇮🇩 Indo'), '🇮🇩'); // a flag: two regional indicators
  assert.equal(initial('👩‍👩‍👧 fam'), '👩‍👩‍👧'); // joined with ZWJ
  assert.equal(initial('e\u0301mile'), 'E\u0301'); // e + combining acute
  assert.equal(initial('ñoño'), 'Ñ');
  assert.equal(initial(''), '?');
  assert.equal(initial('   '), '?');
  assert.equal(initial(null), '?');
  assert.equal(firstGrapheme('😀x'), '😀');
  assert.equal(firstGrapheme(''), '');
});

test('a name is counted in code points after trimming, as the server counts it', () => {
  assert.equal(nameLength('Budi'), 4);
  assert.equal(nameLength('  Budi  '), 4);
  assert.equal(nameLength('🀄🀄'), 2); // 4 UTF-16 units, 2 code points
  assert.equal(nameLength('👍🏽'), 2); // one grapheme, two code points
  assert.equal(nameLength(''), 0);
});

test('the join field takes a code or a whole invite link', () => {
  assert.equal(codeFromText('K7QX2M'), 'K7QX2M');
  assert.equal(codeFromText(' k7qx2m '), 'K7QX2M');
  assert.equal(codeFromText('https://gaple.example/r/ABC123'), 'ABC123');
  assert.equal(codeFromText('http://127.0.0.1:8000/r/abc123/'), 'ABC123');
  assert.equal(codeFromText('https://gaple.example/r/ABC123?ref=wa#top'), 'ABC123');
  assert.equal(codeFromText('gaple.example/r/ABC123'), 'ABC123');
  assert.equal(codeFromText('/r/ABC123'), 'ABC123');
  assert.equal(codeFromText('  https://gaple.example/r/ABC123\n'), 'ABC123');
});

test('text that names no code is refused', () => {
  for (const bad of ['', '   ', 'AB', 'ABC-123', 'https://gaple.example/', 'https://gaple.example/r/',
    'https://gaple.example/r/AB C', 'https://gaple.example/replay/42', 'hello world', null]) {
    assert.equal(codeFromText(bad), null, String(bad));
  }
});
