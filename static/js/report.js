// Reporting a player to the moderators (POST /api/reports, docs/API.md "Fair play: reports"):
// a small dialog with the categories the server serves (GET /api/presets -> reports) and a text.
// The reported player is never told; a report made at a table names its set on the server
// (left out, POST /api/reports takes the latest set the two shared). It opens from a seat's menu
// at the table, a profile and a chat line (docs/CLIENT.md "Reporting a player"); a chat line's
// report quotes the line at the head of the text the moderators read.

import { h } from './dom.js';
import { t } from './i18n.js';
import { toast } from './store.js';
import { request } from './api.js';
import { errorText } from './errors.js';

let dialog = null;

async function choices() {
  try {
    const response = await fetch('/api/presets');
    return (await response.json()).reports;
  } catch {
    return null;
  }
}

function closeDialog() {
  if (dialog) dialog.remove();
  dialog = null;
}

/** The words a chat line's report starts with: who said it and what, quoted as said. */
export function lineQuote(name, said) {
  return `${name}: \u201c${said}\u201d`;
}

/** The text sent: the quoted line (if one) and what the reporter wrote, within ``max``. */
export function reportText(quote, written, max) {
  const own = String(written || '').trim();
  const text = quote ? (own ? `${quote}\n${own}` : quote) : own;
  return text.slice(0, max);
}

/**
 * Open the report dialog for ``player`` ({player_id, name}); ``line`` (a chat line's text, as
 * the reporter saw it) is quoted in the report.
 */
export async function openReport(player, { line = null } = {}) {
  closeDialog();
  const found = await choices();
  if (!found) {
    toast(t('report.unavailable'), 'error');
    return;
  }
  const select = h('select', { id: 'report-category', 'data-testid': 'report-category' },
    found.categories.map((c) => h('option', { value: c }, t(`admin.category.${c}`))));
  const quote = line ? lineQuote(player.name, line) : null;
  // The quote and a line break come first: what is left of the limit is the reporter's.
  const room = quote ? Math.max(0, found.max_text - quote.length - 1) : found.max_text;
  const text = h('textarea', { id: 'report-text', 'data-testid': 'report-text', maxlength: room, rows: 3 });
  const send = async (e) => {
    e.preventDefault();
    try {
      await request('POST', '/api/reports', { player_id: player.player_id, category: select.value, text: reportText(quote, text.value, found.max_text) });
      toast(t('report.sent', { name: player.name }), 'ok');
      closeDialog();
    } catch (err) {
      toast(errorText(err.code, err.message, err.field), 'error');
    }
  };
  dialog = h('div', { class: 'report-backdrop', 'data-testid': 'report-dialog', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'report-title' },
    h('form', { class: 'card report-form', onSubmit: send },
      h('h2', { id: 'report-title' }, t('report.title', { name: player.name })),
      h('p', { class: 'muted small' }, t('report.private')),
      quote ? h('blockquote', { class: 'report-line', 'data-testid': 'report-line' },
        h('span', { class: 'muted small' }, t('report.line')), ' ', quote) : null,
      h('label', { for: 'report-category' }, t('report.category')), select,
      h('label', { for: 'report-text' }, t('report.text')), text,
      h('div', { class: 'report-actions' },
        h('button', { type: 'submit', class: 'btn btn-primary btn-small', 'data-testid': 'report-send' }, t('report.send')),
        h('button', { type: 'button', class: 'btn btn-ghost btn-small', onClick: closeDialog }, t('report.cancel')))));
  document.body.append(dialog);
  select.focus();
}
