// Pure geometry for the profile's rating chart (no DOM: checked with node).

/**
 * The ratings a player went through, oldest first, from a profile mode's `history` (its changes,
 * oldest first: before → after). A chart starts at the first change's `before`.
 */
export function ratingSeries(history) {
  if (!Array.isArray(history) || !history.length) return [];
  return [history[0].before, ...history.map((x) => x.after)];
}

/**
 * Points of a line chart of `values` in a width × height box with `pad` inside each edge: x evenly
 * spaced, y scaled between the lowest and highest value (a flat series sits in the middle).
 * Returns {points: [[x, y]...], min, max}.
 */
export function chartGeometry(values, width, height, pad = 4) {
  if (!values.length) return { points: [], min: null, max: null };
  const min = Math.min(...values);
  const max = Math.max(...values);
  const span = max - min;
  const innerW = width - 2 * pad;
  const innerH = height - 2 * pad;
  const step = values.length > 1 ? innerW / (values.length - 1) : 0;
  const points = values.map((v, i) => {
    const x = values.length > 1 ? pad + i * step : width / 2;
    const y = span === 0 ? height / 2 : pad + (1 - (v - min) / span) * innerH;
    return [Math.round(x * 10) / 10, Math.round(y * 10) / 10];
  });
  return { points, min, max };
}

/** "+14", "−9" (a real minus sign), "0". */
export function signed(n) {
  if (n > 0) return `+${n}`;
  if (n < 0) return `\u2212${-n}`;
  return '0';
}
