// A room code from what a player types or pastes into the join field: the code itself
// ("k7qx2m", " K7QX2M ") or a whole invite link ("https://host/r/K7QX2M", "host/r/K7QX2M/",
// with a query or a fragment). Pure (no DOM), so node can check it.

// Loose on purpose: the server says whether a room with that code exists.
const CODE_RE = /^[A-Za-z0-9]{3,12}$/;
const LINK_RE = /(?:^|\/)r\/([^/?#\s]*)\/?(?:[?#].*)?$/;

/** The code (upper case) that `text` names, or null when it names none. */
export function codeFromText(text) {
  let code = String(text ?? '').trim();
  const link = LINK_RE.exec(code);
  if (link) code = link[1];
  return CODE_RE.test(code) ? code.toUpperCase() : null;
}
