// node --test: toasts (store.js): the same message again is one toast, refreshed.

import { test, mock } from 'node:test';
import assert from 'node:assert/strict';

globalThis.localStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {} };
const { state, toast } = await import('../store.js');
const { t } = await import('../i18n.js');

test('a repeated message is one toast whose time starts again; others still stack', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    state.toasts = [];
    const slow = t('err.rate_limited');
    for (let n = 0; n < 8; n += 1) {
      toast(slow, 'error');
      mock.timers.tick(1000);
    }
    assert.deepEqual(state.toasts.map((x) => x.text), [slow]);
    toast('other', 'info');
    assert.deepEqual(state.toasts.map((x) => x.text), [slow, 'other']);
    mock.timers.tick(1000);
    toast(slow, 'error'); // refreshed: moved last, still one, its 4 s start again
    assert.deepEqual(state.toasts.map((x) => x.text), ['other', slow]);
    mock.timers.tick(3000);
    assert.deepEqual(state.toasts.map((x) => x.text), [slow]); // 'other' timed out
    mock.timers.tick(999);
    assert.deepEqual(state.toasts.map((x) => x.text), [slow]);
    mock.timers.tick(1);
    assert.deepEqual(state.toasts, []);
  } finally {
    mock.timers.reset();
  }
});
