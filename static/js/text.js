// Player names as a reader sees them. Pure (no DOM), so node can check them.
//
// A "character" on screen is a grapheme: 👍🏽, 🇮🇩 or é written as e + ◌́ are one each, though
// they are several code points (and more UTF-16 units). The avatar shows the first grapheme.
// The server's name limit counts code points after trimming (Python's len()), so the name
// field counts the same way to say when a name is too long.

const segmenter = typeof Intl !== 'undefined' && typeof Intl.Segmenter === 'function'
  ? new Intl.Segmenter(undefined, { granularity: 'grapheme' })
  : null;

/** The first grapheme of a text ('' for an empty one). */
export function firstGrapheme(text) {
  const clean = String(text ?? '');
  if (!clean) return '';
  if (segmenter) {
    for (const part of segmenter.segment(clean)) return part.segment;
  }
  return [...clean][0]; // no Segmenter: at least never half of a surrogate pair
}

/** What an avatar shows for a name: its first grapheme, upper-cased; "?" for no name. */
export function initial(name) {
  const first = firstGrapheme(String(name ?? '').trim());
  return first ? first.toLocaleUpperCase() : '?';
}

/** A name's length as the server counts it: code points, after trimming. */
export function nameLength(name) {
  return [...String(name ?? '').trim()].length;
}
