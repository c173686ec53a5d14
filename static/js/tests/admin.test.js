// node --test: the admin page's route, and its strings (i18n_admin.js) in both languages with
// the same placeholders.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import * as strings from '../i18n_admin.js';
import { adminRoute, socketsText } from '../views/admin.js';
import { setLang } from '../i18n.js';

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

globalThis.localStorage ??= { getItem: () => null, setItem: () => {}, removeItem: () => {} };
globalThis.document ??= { documentElement: {} };

test('a table card counts its sockets in the right form, in both languages', () => {
  setLang('en');
  assert.equal(socketsText({ seat_sockets: 1, spectators: 0 }), '1 player connected, 0 watching');
  assert.equal(socketsText({ seat_sockets: 3, spectators: 1 }), '3 players connected, 1 watching');
  setLang('id');
  assert.equal(socketsText({ seat_sockets: 1, spectators: 2 }), '1 pemain tersambung, 2 penonton');
});
