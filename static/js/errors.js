// What an error from the server (a REST answer's or a socket's `error` code, docs/API.md and
// docs/PROTOCOL.md) says to the player, in their language. Logic modules toast it as well as
// views, so it lives outside views/.

import { t, has } from './i18n.js';

export function errorText(code, message) {
  if (code && has(`err.${code}`)) return t(`err.${code}`, { message: message || code });
  if (code === 'invalid' || code === 'http_422') return t('err.invalid', { message: message || '' });
  return t('err.generic', { message: message || code || '?' });
}
