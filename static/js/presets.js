// The server's presets (GET /api/presets): every default, choice list and seat count the client
// shows comes from here, so the create form, the room settings and play-now never drift from
// the server. Nothing below knows a number of its own.
//
// Shape (docs/API.md): {default_preset, presets: [{preset, defaults, seats, fields: [{key, type
// ("choice" | "int" | "bool"), choices, min, max, default, when, default_if_private}]}],
// bots: {kinds, default}, quickplay: {presets, modes, turn_seconds, default}}.

let catalogue = null;

/** Remember the catalogue (from api.getPresets) for the synchronous helpers below. */
export function setCatalogue(data) {
  catalogue = data && Array.isArray(data.presets) && data.presets.length ? data : null;
  return catalogue;
}

export function getCatalogue() {
  return catalogue;
}

/** The preset names the server offers, in its order. */
export function presetNames(cat = catalogue) {
  return cat ? cat.presets.map((p) => p.preset) : [];
}

export function presetEntry(preset, cat = catalogue) {
  if (!cat) return null;
  return cat.presets.find((p) => p.preset === preset) || null;
}

export function defaultPreset(cat = catalogue) {
  if (!cat) return null;
  return presetEntry(cat.default_preset, cat) ? cat.default_preset : cat.presets[0].preset;
}

/** One field of a preset's form ({key, type, choices, min, max, default, when}), or null. */
export function fieldOf(preset, key, cat = catalogue) {
  const entry = presetEntry(preset, cat);
  return (entry && entry.fields.find((f) => f.key === key)) || null;
}

/** The keys a preset's settings may carry (preset itself included). */
export function fieldKeys(preset, cat = catalogue) {
  const entry = presetEntry(preset, cat);
  return entry ? ['preset', ...entry.fields.map((f) => f.key)] : ['preset'];
}

/** The choices of a "choice" field, e.g. the turn clocks; [] when the preset has no such field. */
export function choicesOf(preset, key, cat = catalogue) {
  const field = fieldOf(preset, key, cat);
  return field && Array.isArray(field.choices) ? field.choices : [];
}

/** [min, max] of an "int" field. */
export function rangeOf(preset, key, cat = catalogue) {
  const field = fieldOf(preset, key, cat);
  return field ? [field.min, field.max] : [null, null];
}

/** Whether a field matters under the draft's other settings (its `when`, e.g. target under Ganda). */
export function fieldShown(field, draft) {
  if (!field) return false;
  const when = field.when || {};
  return Object.entries(when).every(([key, allowed]) => Array.isArray(allowed) && allowed.includes(draft[key]));
}

/**
 * A fresh draft for `preset`: the server's defaults. Settings the two presets share and the user
 * already chose (mode, clock, length, public) are kept when they are valid for the new preset.
 */
export function draftFor(preset, current = null, cat = catalogue) {
  const entry = presetEntry(preset, cat);
  if (!entry) return current ? { ...current } : {};
  const draft = { ...entry.defaults, preset };
  if (current) {
    const keepable = ['mode', 'turn_seconds', 'deals_per_set', 'public', 'allow_join_bots'];
    for (const key of keepable) {
      const field = fieldOf(preset, key, cat);
      if (!field || current[key] === undefined || current[key] === null) continue;
      if (field.type === 'choice' && !field.choices.includes(current[key])) continue;
      draft[key] = current[key];
    }
  }
  return draft;
}

/** `allow_join_bots` follows `public` unless the host set it: its default for a private room. */
export function joinBotsDefault(preset, isPublic, cat = catalogue) {
  const field = fieldOf(preset, 'allow_join_bots', cat);
  if (!field) return null;
  if (!isPublic && 'default_if_private' in field) return field.default_if_private;
  return field.default;
}

/** The settings to send for a draft: only the keys the draft's preset has (no Klasik key in PORDI). */
export function payloadFor(draft, cat = catalogue) {
  const keys = fieldKeys(draft.preset, cat);
  const out = {};
  for (const key of keys) {
    if (draft[key] === undefined || draft[key] === null) continue;
    const field = fieldOf(draft.preset, key, cat);
    // A field that does not matter under the other settings (7 tiles at 5 players) goes as false
    // when it is a flag, so that the engine is not asked for a combination nobody chose.
    if (field && field.type === 'bool' && field.when && !fieldShown(field, draft)) {
      out[key] = false;
      continue;
    }
    out[key] = draft[key];
  }
  return out;
}

/** How many seats a room with these settings has: its players, else its preset's seat count. */
export function seatCount(settings, cat = catalogue) {
  if (settings && typeof settings.players === 'number') return settings.players;
  const entry = presetEntry(settings && settings.preset, cat);
  return entry && typeof entry.seats === 'number' ? entry.seats : null;
}

/** Play now: {presets, modes, turn_seconds, default: {preset, mode, turn_seconds}} or null. */
export function quickplayChoices(cat = catalogue) {
  return cat && cat.quickplay ? cat.quickplay : null;
}

/** The bot levels a host may pick per seat, in the server's order (e.g. easy, normal, hard). */
export function botKinds(cat = catalogue) {
  return cat && cat.bots && Array.isArray(cat.bots.kinds) ? cat.bots.kinds : [];
}

/** The bot the host seats when they do not choose. */
export function defaultBot(cat = catalogue) {
  return (cat && cat.bots && cat.bots.default) || null;
}

/**
 * Play now from a room that is over or full: the same kind of game (preset, mode, clock) when
 * quick play offers it, else quick play's default.
 */
export function quickplayLike(settings, cat = catalogue) {
  const quick = quickplayChoices(cat);
  if (!quick) return null;
  const pick = (key, list) => (settings && list.includes(settings[key]) ? settings[key] : quick.default[key]);
  return {
    preset: pick('preset', quick.presets),
    mode: pick('mode', quick.modes),
    turn_seconds: pick('turn_seconds', quick.turn_seconds),
  };
}

/** The longest player name the server accepts (code points, after trimming), or null. */
export function nameMaxLength(cat = catalogue) {
  return cat && cat.names && typeof cat.names.max_length === 'number' ? cat.names.max_length : null;
}
