// The set result's rating changes ("+14 / −9"): GET /api/rooms/{code}/sets/{n}/ratings, asked once
// per set when its result is shown (the server stores them with the move that ended the set).

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { changed } from '../store.js';
import { request } from '../api.js';
import { signed } from '../chart.js';
import { seatLabel } from '../seats.js';

const cache = new Map(); // "CODE:n" -> {status: loading|ready|error, data}

function ratingsOf(code, number) {
  const key = `${code}:${number}`;
  let entry = cache.get(key);
  if (!entry) {
    entry = { status: 'loading', data: null };
    cache.set(key, entry);
    request('GET', `/api/rooms/${encodeURIComponent(code)}/sets/${number}/ratings`, undefined, { auth: false })
      .then((data) => Object.assign(entry, { status: 'ready', data }))
      .catch(() => Object.assign(entry, { status: 'error' }))
      .finally(changed);
  }
  return entry;
}

/** Each player's rating change for a rated set that has ended; nothing for an unrated one. */
export function ratingChanges(ctx) {
  const code = ctx.room && ctx.room.code;
  const number = ctx.game && ctx.game.set;
  if (!code || typeof number !== 'number') return null;
  const entry = ratingsOf(code, number);
  const data = entry.data;
  if (entry.status !== 'ready' || !data.rated || !data.ended) return null;
  const rows = [...data.players].sort((a, b) => a.seat - b.seat).filter((p) => p.change !== null);
  if (!rows.length) return null;
  return h('div', { class: 'rating-changes', 'data-testid': 'rating-changes' },
    h('p', { class: 'muted small' }, t('ratings.title')),
    h('ul', {}, rows.map((p) => {
      const name = seatLabel(ctx.room, p.seat) || p.name;
      return h('li', {
        class: `rating-change-row${p.seat === ctx.me ? ' mine' : ''}`,
        'data-testid': 'rating-change',
        'data-seat': p.seat,
        'data-player': p.player_id,
        'data-change': p.change,
        'aria-label': t('ratings.change.aria', { name, before: p.before, after: p.after, change: signed(p.change) }),
      },
      h('span', { class: 'rc-name' }, name),
      h('span', { class: 'rc-after' }, String(p.after)),
      h('strong', { class: `rc-change ${p.change > 0 ? 'up' : p.change < 0 ? 'down' : ''}` }, signed(p.change)));
    })));
}
