// The line of tiles on the felt, laid out as a snake that always fits its box.
//
// The opening tile (the "anchor") stays in the middle row; the right arm runs right, turns down at
// the edge and comes back; the left arm runs left, turns up and comes back. Doubles lie crosswise.
// layoutLine() is pure geometry in tile units (a tile is 50 x 100); renderBoard() picks the row
// width that gives the biggest tiles for the box, and draws one SVG.

import { h, s, replaceKeepingFocus } from './dom.js';
import { tileFace, SHORT, LONG } from './tiles.js';
import { since } from './anim.js';

const GAP = 3;
const PITCH = 132; // distance between rows: a crosswise double (100) plus air
const MARKER_R = 20;
const PAD = 14;

/**
 * @param {number[][]} line tiles [l, r] from the left end to the right end, as drawn
 * @param {number} anchor index of the opening tile in `line`
 * @param {number} halfW half the width of a row, in tile units (the corner column lies beyond it)
 */
export function layoutLine(line, anchor, halfW) {
  const items = [];
  const ends = {};
  if (!line.length) return { items, ends, bbox: { minX: -60, maxX: 60, minY: -60, maxY: 60 } };
  const a = Math.min(Math.max(anchor, 0), line.length - 1);
  const [l, r] = line[a];
  const anchorDouble = l === r;
  items.push({
    index: a, top: l, bottom: r, x: 0, y: 0,
    rot: anchorDouble ? 0 : -90,
    w: anchorDouble ? SHORT : LONG, h: anchorDouble ? LONG : SHORT,
  });
  const startX = (anchorDouble ? SHORT : LONG) / 2 + GAP;
  const right = [];
  for (let i = a + 1; i < line.length; i += 1) right.push({ index: i, inner: line[i][0], outer: line[i][1] });
  const left = [];
  for (let i = a - 1; i >= 0; i -= 1) left.push({ index: i, inner: line[i][1], outer: line[i][0] });
  ends.right = walkArm(right, startX, 1, halfW, items);
  ends.left = walkArm(left, -startX, -1, halfW, items);

  const bbox = { minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity };
  for (const it of items) grow(bbox, it.x - it.w / 2, it.y - it.h / 2, it.x + it.w / 2, it.y + it.h / 2);
  for (const e of [ends.left, ends.right]) {
    grow(bbox, e.x - MARKER_R, e.y - MARKER_R, e.x + MARKER_R, e.y + MARKER_R);
  }
  return { items, ends, bbox };
}

function grow(b, x0, y0, x1, y1) {
  b.minX = Math.min(b.minX, x0);
  b.minY = Math.min(b.minY, y0);
  b.maxX = Math.max(b.maxX, x1);
  b.maxY = Math.max(b.maxY, y1);
}

// side +1: the right arm (turns downwards); -1: the left arm (turns upwards).
function walkArm(tiles, startX, side, halfW, items) {
  let x = startX;
  let row = 0;
  let dir = side;
  const vdir = side;
  for (const t of tiles) {
    const dbl = t.inner === t.outer;
    const len = dbl ? SHORT : LONG;
    const fits = dir > 0 ? x + len <= halfW : x - len >= -halfW;
    if (!fits) {
      // The corner: the tile stands upright just past the row's end, between the two rows.
      const cx = x + dir * (SHORT / 2);
      const cy = row * PITCH + vdir * (PITCH / 2);
      items.push({
        index: t.index, top: t.inner, bottom: t.outer, x: cx, y: cy,
        rot: vdir > 0 ? 0 : 180, w: SHORT, h: LONG,
      });
      row += vdir;
      dir = -dir;
      x = cx + dir * (SHORT / 2 + GAP);
      continue;
    }
    items.push({
      index: t.index, top: t.inner, bottom: t.outer,
      x: x + (dir * len) / 2, y: row * PITCH,
      rot: dbl ? 0 : dir > 0 ? -90 : 90,
      w: dbl ? SHORT : LONG, h: dbl ? LONG : SHORT,
    });
    x += dir * (len + GAP);
  }
  return { x: x + dir * (MARKER_R + 2), y: row * PITCH, dir };
}

/** The row width (and the scale it allows) that draws the line biggest inside width x height px. */
export function bestLayout(line, anchor, width, height, maxScale) {
  let best = null;
  for (let halfW = 150; halfW <= 1500; halfW += 25) {
    const lay = layoutLine(line, anchor, halfW);
    const bw = lay.bbox.maxX - lay.bbox.minX + 2 * PAD;
    const bh = lay.bbox.maxY - lay.bbox.minY + 2 * PAD;
    const scale = Math.min(width / bw, height / bh, maxScale);
    if (!best || scale > best.scale + 1e-4 || (Math.abs(scale - best.scale) <= 1e-4 && halfW > best.halfW)) {
      best = { ...lay, scale, halfW };
    }
  }
  return best;
}

/**
 * The line laid out in a board of width x height px: the layout, the SVG's viewBox, the open
 * ends' markers in px ({left, right}: {x, y, dir, r}; null for an empty line) and the box
 * ({width, height, tiles: each tile's box in px}). Pure.
 */
export function placeLine(line, anchor, width, height) {
  // Tiles never grow past a comfortable size on a big screen. (The height term allows a single
  // row of full-size tiles in a box ~340 px high: on a 1366x768 desktop the board is ~290 px high,
  // and `height * 1.8 / 900` held its tiles at the phone's size, half the hand's.)
  const maxScale = Math.min(1, Math.max(0.6, Math.min(width / 900, height / 340)));
  const lay = bestLayout(line, anchor, width, height, maxScale);
  const cx = (lay.bbox.minX + lay.bbox.maxX) / 2;
  const cy = (lay.bbox.minY + lay.bbox.maxY) / 2;
  const vbW = width / lay.scale;
  const vbH = height / lay.scale;
  const vbX = cx - vbW / 2;
  const vbY = cy - vbH / 2;
  const toPx = (p) => ({
    x: (p.x - vbX) * lay.scale, y: (p.y - vbY) * lay.scale, dir: p.dir, r: MARKER_R * lay.scale,
  });
  const positions = line.length ? { left: toPx(lay.ends.left), right: toPx(lay.ends.right) } : null;
  // The tiles' boxes on screen, for placing buttons over the board without hiding a tile.
  const tiles = lay.items.map((it) => {
    const c = toPx(it);
    const hw = (it.w / 2) * lay.scale;
    const hh = (it.h / 2) * lay.scale;
    return { x0: c.x - hw, y0: c.y - hh, x1: c.x + hw, y1: c.y + hh };
  });
  return { lay, view: { vbX, vbY, vbW, vbH }, positions, box: { width, height, tiles } };
}

/**
 * Draw the line into `container` (which must be in the document, sized by CSS).
 * opts: line, anchor, fresh ({index, at}), startIndex (Klasik's face-up start tile), labels: {tile(a,b), region, ends(l,r)},
 * overlay(positions, box) -> nodes drawn over the board (the end choice): positions are the open
 * ends' markers in px ({left, right}: {x, y, dir, r}), box the board's size and its tiles' boxes
 * (for choiceSpots). Returns the positions.
 */
export function renderBoard(container, opts) {
  const width = Math.max(container.clientWidth, 120);
  const height = Math.max(container.clientHeight, 120);
  const line = opts.line || [];
  const { lay, view: { vbX, vbY, vbW, vbH }, positions, box } = placeLine(line, opts.anchor || 0, width, height);

  const tiles = lay.items
    .slice()
    .sort((p, q) => p.index - q.index)
    .map((it) => {
      const [l, r] = line[it.index];
      const a = opts.fresh && opts.fresh.index === it.index ? since(opts.fresh.at, 'anim-place', 320) : null;
      const isStart = opts.startIndex === it.index;
      return s('g', {
        class: `line-tile${isStart ? ' start-tile' : ''}`,
        'data-testid': 'line-tile',
        'data-tile': `${l}-${r}`,
        'data-index': it.index,
        'data-start': isStart ? 'true' : null,
        transform: `translate(${it.x} ${it.y}) rotate(${it.rot})`,
        role: 'img',
        'aria-label': opts.labels.tile(l, r),
      }, s('g', { class: `tile-in ${a ? a.class : ''}`.trim(), style: a && a.style }, tileFace(it.top, it.bottom)));
    });

  const markers = [];
  if (line.length && opts.ends) {
    for (const side of ['left', 'right']) {
      const e = lay.ends[side];
      const value = side === 'left' ? opts.ends[0] : opts.ends[1];
      markers.push(s('g', {
        class: `end-marker end-${side}`,
        'data-testid': 'open-end',
        'data-end': side,
        'data-value': value,
        // Where the line grows at this end on screen: an arm that turned a corner runs back.
        'data-grows': e.dir > 0 ? 'right' : 'left',
        transform: `translate(${e.x} ${e.y})`,
        'aria-hidden': 'true',
      },
      s('circle', { r: MARKER_R - 2 }),
      s('text', { 'text-anchor': 'middle', 'dominant-baseline': 'central', y: 1 }, String(value))));
    }
  }

  const svg = s('svg', {
    class: 'board-svg',
    viewBox: `${vbX} ${vbY} ${vbW} ${vbH}`,
    width: '100%',
    height: '100%',
    preserveAspectRatio: 'xMidYMid meet',
    'aria-hidden': line.length ? null : 'true',
    role: line.length ? 'list' : null,
    'aria-label': opts.labels.region,
  }, tiles.map((g) => wrapListItem(g)), markers);

  const overlay = h('div', { class: 'board-overlay' }, opts.overlay ? opts.overlay(positions, box) : null);
  // Redrawn on every resize: a focused button over the board (the end choice) keeps the focus.
  replaceKeepingFocus(container, svg, overlay);
  return positions;
}

function wrapListItem(g) {
  return s('g', { role: 'listitem' }, g);
}

const overlaps = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

/**
 * Where to put a button of `size` ({w, h} px) for each open end: next to the end's marker,
 * beyond it where the line would grow, else above or below it (or both) — wherever it stays inside the
 * board and hides neither a tile, nor a marker, nor the other end's button. With no such place it
 * sits on its own marker (the button then shows the end's number itself). Pure.
 *
 * @param positions {left, right}: the markers' centres {x, y, dir, r} in px (renderBoard's)
 * @param box {width, height, tiles: [{x0, y0, x1, y1}]}
 * @returns {left, right}: {x, y, onMarker} centres in px
 */
export function choiceSpots(positions, box, size, gap = 4) {
  const rect = (p) => ({ x0: p.x - size.w / 2, y0: p.y - size.h / 2, x1: p.x + size.w / 2, y1: p.y + size.h / 2 });
  const markers = ['left', 'right'].map((end) => {
    const e = positions[end];
    return { x0: e.x - e.r, y0: e.y - e.r, x1: e.x + e.r, y1: e.y + e.r };
  });
  const taken = [];
  const spots = {};
  for (const end of ['left', 'right']) {
    const e = positions[end];
    const dir = e.dir || (end === 'left' ? -1 : 1);
    const ahead = e.x + dir * (e.r + gap + size.w / 2);
    const up = e.y - (e.r + gap + size.h / 2);
    const down = e.y + (e.r + gap + size.h / 2);
    const candidates = [
      { x: ahead, y: e.y }, { x: e.x, y: up }, { x: e.x, y: down }, { x: ahead, y: up }, { x: ahead, y: down },
    ];
    const fits = (p) => {
      const r = rect(p);
      if (r.x0 < 0 || r.y0 < 0 || r.x1 > box.width || r.y1 > box.height) return false;
      return ![...box.tiles, ...markers, ...taken].some((o) => overlaps(r, o));
    };
    const found = candidates.find(fits);
    const spot = found
      ? { x: found.x, y: found.y, onMarker: false }
      : {
        x: Math.min(Math.max(e.x, size.w / 2), box.width - size.w / 2),
        y: Math.min(Math.max(e.y, size.h / 2), box.height - size.h / 2),
        onMarker: true,
      };
    taken.push(rect(spot));
    spots[end] = spot;
  }
  return spots;
}
