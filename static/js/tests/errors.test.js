// node --test: a refused input (422 `invalid`) is said from its code and field, in the page's
// language, never in the server's English words (errors.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';

globalThis.localStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {} };
globalThis.document ??= { documentElement: {} };
const { errorText } = await import('../errors.js');
const { setLang } = await import('../i18n.js');

const PYDANTIC = 'Value should have at least 8 items after validation, not 5';

test('every field a form sends has its own sentence in both languages', () => {
  const fields = ['name', 'username', 'password', 'preset', 'mode', 'turn_seconds', 'deals_per_set',
    'target_points', 'players', 'text', null, 'something_new'];
  for (const lang of ['id', 'en']) {
    setLang(lang);
    const said = fields.map((field) => errorText('invalid', PYDANTIC, field));
    for (const text of said) {
      assert.ok(!text.includes(PYDANTIC) && !text.includes('{'), `${lang}: ${text}`);
    }
    assert.equal(new Set(said.slice(0, 10)).size, 10, `${lang}: one sentence per field`);
  }
  setLang('en');
  assert.equal(errorText('invalid', PYDANTIC, 'password'), 'Password: At least 8 characters');
  assert.equal(errorText('http_422', PYDANTIC, null), 'Some input was not accepted. Check the form.');
  setLang('id');
  assert.equal(errorText('invalid', PYDANTIC, 'deals_per_set'), 'Isian „Deal per set” tidak diterima. Periksa lagi.');
});
