// node --test: the Tournaments page's feed (tournament_live.js) with a fake WebSocket and fake
// timers: every frame's view is handed on with its frame; while no socket is open the view is
// read over REST; a dropped socket is reopened with backoff; refusals in a row end the retries
// (REST alone); stop() ends everything. Also the page's strings: the tournament refusals and
// fields, and the bell's tournament_round, in both languages (i18n_tournaments.js).

import { test, mock } from 'node:test';
import assert from 'node:assert/strict';

globalThis.localStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {} };
globalThis.document ??= { documentElement: {}, visibilityState: 'visible' };
globalThis.window ??= { location: { protocol: 'http:', host: 'gaple.test' } };

const sockets = [];
class FakeSocket {
  constructor(url) {
    this.url = url;
    this.closed = false;
    sockets.push(this);
  }
  open() { this.onopen && this.onopen(); }
  frame(obj) { this.onmessage && this.onmessage({ data: JSON.stringify(obj) }); }
  drop() { this.closed = true; this.onclose && this.onclose({ code: 1006 }); }
  close() { this.closed = true; this.onclose && this.onclose({ code: 1000 }); }
}
globalThis.WebSocket = FakeSocket;

const { follow } = await import('../tournament_live.js');
const { errorText } = await import('../errors.js');
const { setLang, t, DICTIONARIES } = await import('../i18n.js');
const { notificationText, notificationLink } = await import('../bell.js');

const VIEW = { id: 7, name: 'Piala', entrants: [], rounds: [], standings: [] };

function harness() {
  const seen = [];
  const statuses = [];
  let fetched = 0;
  const stop = follow(7, {
    onView: (view, frame) => seen.push([view, frame]),
    onStatus: (s) => statuses.push(s),
    fetchView: async () => { fetched += 1; return { ...VIEW, fetched }; },
  });
  return { seen, statuses, stop, fetched: () => fetched };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

test('frames hand on their view with the frame; a frame without a view is dropped', () => {
  sockets.length = 0;
  mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  try {
    const h = harness();
    assert.equal(sockets.length, 1);
    assert.equal(sockets[0].url, 'ws://gaple.test/ws/tournaments/7');
    sockets[0].open();
    sockets[0].frame({ type: 'tournament', tournament: VIEW });
    const started = { type: 'round_started', round: 1, tables: [], tournament: { ...VIEW, status: 'running' } };
    sockets[0].frame(started);
    sockets[0].frame({ type: 'round_started', round: 2 }); // no view: nothing to draw
    assert.equal(h.seen.length, 2);
    assert.equal(h.seen[1][0].status, 'running');
    assert.deepEqual(h.seen[1][1], started);
    assert.deepEqual(h.statuses, ['live', 'live']);
    h.stop();
    assert.ok(sockets[0].closed);
  } finally {
    mock.timers.reset();
  }
});

test('a dropped socket: REST polls meanwhile, the socket is reopened with backoff', async () => {
  sockets.length = 0;
  mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  try {
    const h = harness();
    sockets[0].open();
    sockets[0].drop();
    assert.deepEqual(h.statuses, ['polling']);
    mock.timers.tick(5000); // the poll
    await flush();
    assert.ok(h.fetched() >= 1);
    assert.equal(h.seen.at(-1)[1], null, 'a REST view comes without a frame');
    mock.timers.tick(60_000); // any backoff has passed
    assert.ok(sockets.length >= 2, 'a new socket after the backoff');
    const last = sockets.at(-1);
    last.open();
    last.frame({ type: 'tournament', tournament: VIEW });
    const polled = h.fetched();
    mock.timers.tick(20_000);
    await flush();
    assert.equal(h.fetched(), polled, 'no REST while the socket is live');
    h.stop();
  } finally {
    mock.timers.reset();
  }
});

test('a server that refuses the socket every time: REST alone after six refusals', async () => {
  sockets.length = 0;
  mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  try {
    const h = harness();
    for (let n = 0; n < 10; n += 1) {
      const last = sockets.at(-1);
      if (!last.closed) last.drop();
      mock.timers.tick(60_000);
    }
    assert.equal(sockets.length, 6);
    await flush();
    assert.ok(h.fetched() > 0, 'the page is still read over REST');
    h.stop();
    const count = h.fetched();
    mock.timers.tick(60_000);
    await flush();
    assert.equal(h.fetched(), count, 'stopped: no more reads');
  } finally {
    mock.timers.reset();
  }
});

test('the page\'s strings exist in both languages, refusals and fields said in the page\'s words', () => {
  const tourKeys = (d) => Object.keys(d).filter((k) => k.startsWith('tour.')).sort();
  assert.deepEqual(tourKeys(DICTIONARIES.id), tourKeys(DICTIONARIES.en));
  const codes = ['account_required', 'tournament_not_found', 'entry_not_found', 'tournament_closed',
    'tournament_full', 'already_entered', 'partner_entered', 'tournament_over', 'not_partner',
    'not_entered', 'not_organizer', 'too_few_entrants', 'tournament_started'];
  const fields = ['tournament_name', 'format', 'rounds', 'starts_at', 'min_entrants', 'max_entrants', 'partner_id'];
  for (const lang of ['id', 'en']) {
    setLang(lang);
    const generic = errorText('something_else', 'x');
    const said = codes.map((code) => errorText(code, 'english words'));
    assert.ok(said.every((s) => s !== generic && !s.includes('english words')), `${lang}: ${said}`);
    assert.equal(new Set(said).size, codes.length);
    const invalid = fields.map((f) => errorText('invalid', 'pydantic words', f));
    assert.equal(new Set(invalid).size, fields.length, `${lang}: one sentence per field`);
    assert.ok(invalid.every((s) => !s.includes('pydantic') && !s.includes('{')));
    assert.notEqual(errorText('invalid', '', 'tournament_name'), errorText('invalid', '', 'name'),
      'the tournament\'s name is not the player\'s');
  }
});

test('the bell says a tournament round and leads to the tournament', () => {
  const msg = { kind: 'tournament_round', payload: { tournament_id: 7, tournament: 'Piala Desa', round: 2, table: 'K7QX2M' } };
  setLang('en');
  assert.equal(notificationText(msg), 'Round 2 of Piala Desa started: your table is K7QX2M.');
  setLang('id');
  assert.equal(notificationText(msg), 'Ronde 2 turnamen Piala Desa dimulai: mejamu K7QX2M.');
  assert.equal(notificationLink(msg), '/turnamen/7');
  assert.equal(notificationLink({ kind: 'friend_request', payload: { player_id: 'x' } }), null);
  assert.ok(t('bell.tournament_round') !== 'bell.tournament_round');
});
