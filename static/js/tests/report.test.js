// node --test: what a report sends as its text: a chat line's report quotes the line first, and
// the whole stays within the server's limit (GET /api/presets -> reports.max_text).

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { lineQuote, reportText } from '../report.js';

test('a chat line is quoted with who said it', () => {
  assert.equal(lineQuote('Budi', 'kamu payah'), 'Budi: \u201ckamu payah\u201d');
});

test('the quote comes first, then what the reporter wrote, trimmed', () => {
  const quote = lineQuote('Budi', 'kamu payah');
  assert.equal(reportText(quote, '  kasar  ', 500), `${quote}\nkasar`);
  assert.equal(reportText(quote, '   ', 500), quote);
  assert.equal(reportText(null, ' curang ', 500), 'curang');
  assert.equal(reportText(null, '', 500), '');
});

test('the text never passes the limit, a long line and a long note together', () => {
  const quote = lineQuote('Budi', 'x'.repeat(200));
  const text = reportText(quote, 'y'.repeat(500), 500);
  assert.equal(text.length, 500);
  assert.ok(text.startsWith(quote));
});
