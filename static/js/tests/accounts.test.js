// node --test: the rating chart's geometry and sign (chart.js), and the accounts strings
// (i18n_accounts.js) present in both languages.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ratingSeries, chartGeometry, signed } from '../chart.js';
import * as strings from '../i18n_accounts.js';

test('the series starts at the first change\'s before and follows every after', () => {
  const history = [
    { before: 1500, after: 1514, change: 14 },
    { before: 1514, after: 1505, change: -9 },
    { before: 1505, after: 1530, change: 25 },
  ];
  assert.deepEqual(ratingSeries(history), [1500, 1514, 1505, 1530]);
  assert.deepEqual(ratingSeries([]), []);
  assert.deepEqual(ratingSeries(undefined), []);
});

test('the chart spans the box: the lowest value at the bottom, the highest at the top', () => {
  const { points, min, max } = chartGeometry([1500, 1530, 1510], 100, 50, 5);
  assert.equal(min, 1500);
  assert.equal(max, 1530);
  assert.deepEqual(points, [[5, 45], [50, 5], [95, 31.7]]);
});

test('a flat or single-value series sits in the middle', () => {
  assert.deepEqual(chartGeometry([1500, 1500], 100, 40, 4).points, [[4, 20], [96, 20]]);
  assert.deepEqual(chartGeometry([1500], 100, 40, 4).points, [[50, 20]]);
  assert.deepEqual(chartGeometry([], 100, 40).points, []);
});

test('changes are signed with a real minus sign', () => {
  assert.equal(signed(14), '+14');
  assert.equal(signed(-9), '\u22129');
  assert.equal(signed(0), '0');
});

test('every accounts string exists in both languages', () => {
  assert.deepEqual(Object.keys(strings.id).sort(), Object.keys(strings.en).sort());
  for (const [key, text] of Object.entries(strings.en)) {
    const vars = (s) => (s.match(/\{\w+\}/g) || []).sort();
    assert.deepEqual(vars(strings.id[key]), vars(text), key);
  }
});
