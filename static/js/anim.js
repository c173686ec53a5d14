// Entrance animations that survive re-rendering.
//
// The page is re-rendered from state whenever something changes, which creates new elements; a
// plain CSS animation would restart each time. enter(key) remembers when `key` first appeared and
// returns props that resume the animation where it was (a negative animation-delay), or no
// animation once it has finished.

const firstSeen = new Map();

export function enter(key, className, durationMs = 400) {
  const now = performance.now();
  if (!firstSeen.has(key)) {
    firstSeen.set(key, now);
    if (firstSeen.size > 400) {
      for (const [k, at] of firstSeen) {
        if (now - at > 60000) firstSeen.delete(k);
      }
    }
  }
  const elapsed = now - firstSeen.get(key);
  if (elapsed >= durationMs) return { class: '', style: null };
  return { class: className, style: { animationDelay: `-${Math.round(elapsed)}ms` } };
}

/** The same for something whose start time is known (e.g. a tile placed at `at`). */
export function since(at, className, durationMs = 400) {
  const elapsed = performance.now() - at;
  if (elapsed >= durationMs || elapsed < 0) return { class: '', style: null };
  return { class: className, style: { animationDelay: `-${Math.round(elapsed)}ms` } };
}
