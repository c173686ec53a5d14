// node --test: the create form's data helpers (presets.js) and normRoom (api.js) against the
// server's own catalogue, which the runner (tests/e2e/test_static_units.py) writes from
// app/presets.py and names in GAPLE_PRESETS_JSON: no copy of a default lives here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import * as presets from '../presets.js';

const path = process.env.GAPLE_PRESETS_JSON;
assert.ok(path, 'GAPLE_PRESETS_JSON names the catalogue file');
const catalogue = JSON.parse(readFileSync(path, 'utf8'));

// api.js reads localStorage through storage.js only when called; a stub is enough to import it.
globalThis.localStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {} };
const { normRoom } = await import('../api.js');
const { mergeInfo } = await import('../roominfo.js');

presets.setCatalogue(catalogue);

test('a new draft is exactly the preset defaults the server sent', () => {
  for (const entry of catalogue.presets) {
    assert.deepEqual(presets.draftFor(entry.preset), { ...entry.defaults, preset: entry.preset });
  }
  assert.equal(presets.defaultPreset(), catalogue.default_preset);
});

test('switching preset keeps shared choices that stay valid and resets the rest', () => {
  const [first, second] = catalogue.presets;
  const start = presets.draftFor(first.preset);
  const clocks = presets.choicesOf(first.preset, 'turn_seconds');
  start.turn_seconds = clocks[clocks.length - 1];
  start.target_points = 3;
  const next = presets.draftFor(second.preset, start);
  assert.equal(next.turn_seconds, start.turn_seconds);
  assert.equal(next.target_points, second.defaults.target_points); // its meaning depends on the preset
  for (const key of Object.keys(next)) {
    assert.ok(presets.fieldKeys(second.preset).includes(key), `${key} is a ${second.preset} setting`);
  }
});

test('a payload carries only its preset\'s keys', () => {
  for (const entry of catalogue.presets) {
    const draft = { ...presets.draftFor(entry.preset), joinBotsChosen: true, stray: 1 };
    const payload = presets.payloadFor(draft);
    assert.deepEqual(Object.keys(payload).sort(), presets.fieldKeys(entry.preset).filter((k) => k in draft).sort());
  }
});

test('a flag that does not apply is sent as false (its `when` is not met)', () => {
  for (const entry of catalogue.presets) {
    for (const field of entry.fields.filter((f) => f.type === 'bool' && f.when)) {
      const [key, allowed] = Object.entries(field.when)[0];
      const other = presets.choicesOf(entry.preset, key).find((c) => !allowed.includes(c));
      if (other === undefined) continue;
      const draft = { ...presets.draftFor(entry.preset), [key]: other, [field.key]: true };
      assert.equal(presets.fieldShown(field, draft), false);
      assert.equal(presets.payloadFor(draft)[field.key], false);
    }
  }
});

test('seat counts come from players or the preset', () => {
  for (const entry of catalogue.presets) {
    assert.equal(presets.seatCount({ preset: entry.preset }), entry.seats);
    for (const n of presets.choicesOf(entry.preset, 'players')) {
      assert.equal(presets.seatCount({ preset: entry.preset, players: n }), n);
    }
  }
});

test('normRoom adds no default of its own', () => {
  const room = normRoom({ code: 'abc234', status: 'open', settings: { preset: catalogue.default_preset } });
  assert.equal(room.code, 'ABC234');
  assert.deepEqual(room.settings, { preset: catalogue.default_preset });
  assert.equal(room.seats.length, presets.presetEntry(catalogue.default_preset).seats);
  const summary = normRoom({ code: 'X', status: 'playing', settings: { preset: 'pordi' }, seats_taken: 4, seats_free: 1 });
  assert.equal(summary.seatsFree, 1);
  const seats = normRoom({ code: 'Y', seats: [{ seat: 0, bot: 'heuristic', left_by: 'p1' }, { seat: 1 }] });
  assert.equal(seats.seats.length, 2);
  assert.equal(seats.seats[0].left_by, 'p1');
});

test('a quick-play room stays one when a socket frame (which leaves the flag out) follows', () => {
  const rest = normRoom({ code: 'Q1', status: 'open', quickplay: true, settings: { preset: 'pordi' } });
  const frame = normRoom({ code: 'Q1', status: 'open', host_id: 'p0', settings: { preset: 'pordi' }, seats: [] });
  assert.equal(mergeInfo(rest, frame).quickplay, true);
  assert.equal(normRoom({ code: 'R1', quickplay: false }).quickplay, false);
});

test('quick play offers the server\'s choices and default', () => {
  const quick = presets.quickplayChoices();
  assert.deepEqual(quick, catalogue.quickplay);
  assert.ok(quick.modes.includes(quick.default.mode));
  assert.ok(quick.turn_seconds.includes(quick.default.turn_seconds));
});

test('play now from a closed room keeps its kind of game when quick play offers it', () => {
  const quick = presets.quickplayChoices();
  const mode = quick.modes[quick.modes.length - 1];
  const clock = quick.turn_seconds[quick.turn_seconds.length - 1];
  assert.deepEqual(presets.quickplayLike({ preset: quick.presets[0], mode, turn_seconds: clock }),
    { preset: quick.presets[0], mode, turn_seconds: clock });
  // A setting quick play does not offer falls back to its default.
  assert.deepEqual(presets.quickplayLike({ preset: 'nope', mode: 'nope', turn_seconds: -1 }), quick.default);
  assert.deepEqual(presets.quickplayLike(null), quick.default);
});

test('the bot levels are the server\'s, each named in both languages', async () => {
  const { DICTIONARIES, LANGS } = await import('../i18n.js');
  const kinds = presets.botKinds();
  assert.deepEqual(kinds, catalogue.bots.kinds);
  assert.ok(kinds.length > 1);
  assert.ok(kinds.includes(presets.defaultBot()));
  for (const language of LANGS) {
    for (const kind of kinds) {
      assert.ok(DICTIONARIES[language][`bot.level.${kind}`], `${language}: bot.level.${kind}`);
    }
  }
  assert.deepEqual(presets.botKinds(null), []);
});

test('a tournament\'s table says its tournament and round; any other table none', () => {
  const frame = normRoom({ code: 'T1', status: 'playing', settings: { preset: 'pordi' }, seats: [],
    tournament: { id: 7, round: 2, name: 'Piala Desa' } });
  assert.deepEqual(frame.tournament, { id: 7, round: 2, name: 'Piala Desa' });
  assert.equal(normRoom({ code: 'T2', tournament: null }).tournament, null);
  assert.equal(normRoom({ code: 'T3', tournament: { id: 'x' } }).tournament, null, 'a malformed one is none');
});
