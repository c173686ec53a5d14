// What an error from the server (a REST answer's or a socket's `error` code, docs/API.md and
// docs/PROTOCOL.md) says to the player, in their language. Logic modules toast it as well as
// views, so it lives outside views/.
//
// A refused input (`invalid`, HTTP 422) is said from its code and `field` alone: the server's
// message is English (pydantic's own words for a short password), so it is never shown.

import { t, has } from './i18n.js';

// The label the form shows for each input the server may refuse, and what it asks of it.
const FIELDS = {
  name: { label: 'name.label' },
  username: { label: 'acct.username', rule: 'err.invalid_username' },
  password: { label: 'acct.password', rule: 'acct.password.hint' },
  preset: { label: 'create.preset' },
  mode: { label: 'create.mode' },
  turn_seconds: { label: 'create.timer' },
  deals_per_set: { label: 'create.deals' },
  target_points: { label: 'create.target' },
  players: { label: 'klasik.players' },
  text: { label: 'chat.placeholder' },
  // A tournament's (views/tournaments.js names its own `name` tournament_name, and a room
  // setting's `settings.x` by x).
  tournament_name: { label: 'tournament_name.label' },
  format: { label: 'field.format' },
  rounds: { label: 'field.rounds' },
  starts_at: { label: 'field.starts_at' },
  min_entrants: { label: 'field.min_entrants' },
  max_entrants: { label: 'field.max_entrants' },
  partner_id: { label: 'field.partner_id' },
  // A club's (views/clubs.js names its own `name` club_name).
  club_name: { label: 'field.club_name' },
  description: { label: 'field.description' },
  club_id: { label: 'field.club_id' },
  best: { label: 'field.best' },
  successor: { label: 'club.leave.successor' },
};

/** The player's sentence for a refused input: by its field, never the server's English. */
export function invalidText(field) {
  const known = field ? FIELDS[field] : null;
  if (!known) return t('err.invalid');
  const label = t(known.label).replace(/…$/, '');
  return known.rule ? t('err.invalid.rule', { label, rule: t(known.rule) }) : t('err.invalid.field', { label });
}

export function errorText(code, message, field = null) {
  if (code === 'invalid' || code === 'http_422') return invalidText(field);
  if (code && has(`err.${code}`)) return t(`err.${code}`, { message: message || code });
  return t('err.generic', { message: message || code || '?' });
}
