// Dominoes drawn in SVG: an ivory face, a divider with a brass pin, and real pips.
// A tile is drawn upright in local units (50 wide, 100 tall, centred on 0,0) with value `top` in
// the upper half; callers rotate it into place. Paint servers (#tile-face, #tile-pip) are
// defined once in index.html.

import { s } from './dom.js';

export const SHORT = 50;
export const LONG = 100;

// Pip centres inside a 50x50 half, upright.
const P = { lo: 13, mid: 25, hi: 37 };
const PIPS = {
  0: [],
  1: [[P.mid, P.mid]],
  2: [[P.hi, P.lo], [P.lo, P.hi]],
  3: [[P.hi, P.lo], [P.mid, P.mid], [P.lo, P.hi]],
  4: [[P.lo, P.lo], [P.hi, P.lo], [P.lo, P.hi], [P.hi, P.hi]],
  5: [[P.lo, P.lo], [P.hi, P.lo], [P.mid, P.mid], [P.lo, P.hi], [P.hi, P.hi]],
  6: [[P.lo, 12], [P.lo, 25], [P.lo, 38], [P.hi, 12], [P.hi, 25], [P.hi, 38]],
};

function half(value, offsetY) {
  return (PIPS[value] || []).map(([x, y]) =>
    s('circle', { class: 'pip', cx: x - 25, cy: y + offsetY, r: 5.4 }));
}

/** The face of an upright tile (top value above), as an SVG <g> centred on 0,0. */
export function tileFace(top, bottom, extraClass = '') {
  return s('g', { class: `domino ${extraClass}`.trim() },
    s('rect', { class: 'domino-shadow', x: -24, y: -47, width: 50, height: 100, rx: 8 }),
    s('rect', { class: 'domino-body', x: -25, y: -50, width: 50, height: 100, rx: 8 }),
    s('rect', { class: 'domino-rim', x: -22.5, y: -47.5, width: 45, height: 95, rx: 6 }),
    s('line', { class: 'domino-divider', x1: -17, y1: 0, x2: 17, y2: 0 }),
    s('circle', { class: 'domino-pin', cx: 0, cy: 0, r: 2.6 }),
    half(top, -50),
    half(bottom, 0));
}

/** A face-down tile, upright, centred on 0,0. */
export function tileBack() {
  return s('g', { class: 'domino domino-back' },
    s('rect', { class: 'domino-body back', x: -25, y: -50, width: 50, height: 100, rx: 8 }),
    s('rect', { class: 'domino-rim back', x: -19, y: -44, width: 38, height: 88, rx: 5 }));
}

/**
 * A standalone SVG of one tile (hand, results). `orientation` "v" draws a above b; "h" draws a
 * left of b. Decorative: the surrounding control carries the accessible name.
 */
export function tileSvg(a, b, { orientation = 'v', className = '' } = {}) {
  const vertical = orientation === 'v';
  const viewBox = vertical ? '-26 -51 52 102' : '-51 -26 102 52';
  return s('svg', {
    class: `tile-svg ${vertical ? 'tile-v' : 'tile-h'} ${className}`.trim(),
    viewBox,
    'aria-hidden': 'true',
    focusable: 'false',
  }, vertical ? tileFace(a, b) : s('g', { transform: 'rotate(-90)' }, tileFace(a, b)));
}

export function tileBackSvg(className = '') {
  return s('svg', {
    class: `tile-svg tile-v ${className}`.trim(),
    viewBox: '-26 -51 52 102',
    'aria-hidden': 'true',
    focusable: 'false',
  }, tileBack());
}
