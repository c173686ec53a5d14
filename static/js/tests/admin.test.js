// node --test: the admin page's route, and its strings (i18n_admin.js) in both languages with
// the same placeholders.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import * as strings from '../i18n_admin.js';
import { adminRoute } from '../views/admin.js';

test('every admin string exists in both languages, with the same placeholders', () => {
  assert.deepEqual(Object.keys(strings.id).sort(), Object.keys(strings.en).sort());
  for (const [key, text] of Object.entries(strings.en)) {
    const vars = (s) => (s.match(/\{\w+\}/g) || []).sort();
    assert.deepEqual(vars(strings.id[key]), vars(text), key);
  }
});

test('/admin is the admin page; nothing else is', () => {
  assert.deepEqual(adminRoute('/admin'), { name: 'admin' });
  assert.deepEqual(adminRoute('/admin/'), { name: 'admin' });
  assert.equal(adminRoute('/administrator'), null);
  assert.equal(adminRoute('/r/ADMIN'), null);
});
