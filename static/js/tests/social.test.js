// node --test: every notification kind the server has (app/rooms/protocol.py NotificationKind,
// handed over by tests/e2e/test_static_units.py) and every refusal of the social calls is said
// in words in both languages (bell.js notificationText, errors.js), and every club refusal.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

globalThis.localStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {} };
globalThis.document ??= { documentElement: {} };
const { notificationText } = await import('../bell.js');
const { errorText } = await import('../errors.js');
const { setLang, t } = await import('../i18n.js');

const given = JSON.parse(readFileSync(process.env.GAPLE_SOCIAL_JSON, 'utf8'));
const PAYLOAD = {
  player_id: 'p1', name: 'Ayu', table: 'ABC234', room: 'ABC234', mode: 'ganda', reason: 'spam',
  challenge_id: 'c1', party_id: 'x1', answer: 'accepted', expires_at: '2026-12-11T10:02:00Z',
};

test('every notification kind has its sentence in both languages', () => {
  assert.ok(given.kinds.includes('your_turn') && given.kinds.includes('challenge_expired'));
  for (const lang of ['id', 'en']) {
    setLang(lang);
    for (const kind of given.kinds) {
      const text = notificationText({ kind, payload: PAYLOAD });
      assert.ok(!text.startsWith('bell.') && !text.includes('{'), `${lang} ${kind}: ${text}`);
    }
    const answered = ['accepted', 'declined'].map((answer) => notificationText({
      kind: 'challenge_answered', payload: { ...PAYLOAD, answer, room: null },
    }));
    assert.notEqual(answered[0], answered[1], `${lang}: an acceptance is not a decline`);
  }
  setLang('en');
  assert.equal(notificationText({ kind: 'challenge', payload: PAYLOAD }), 'Ayu challenges you to Ganda.');
  assert.equal(notificationText({ kind: 'rematch', payload: PAYLOAD }), 'Ayu wants a rematch at table ABC234.');
});

test('every refusal of the social calls is said in both languages', () => {
  for (const lang of ['id', 'en']) {
    setLang(lang);
    for (const code of given.codes) {
      const text = errorText(code, 'the server\'s English', null);
      assert.notEqual(text, t('err.generic', { message: 'the server\'s English' }), `${lang} ${code}`);
    }
  }
});
