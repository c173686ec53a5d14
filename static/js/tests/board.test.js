// node --test: the line's layout on the felt (board.js) — the open ends' markers wherever the
// line has turned, and where the end choice's buttons go — for the lines of whole deals the
// engine played (GAPLE_DEALS_JSON, written by tests/e2e/test_static_units.py), in a phone's
// board and a desktop's.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { choiceSpots, placeLine } from '../board.js';
import { normView } from '../game.js';

const deals = JSON.parse(readFileSync(process.env.GAPLE_DEALS_JSON, 'utf8'));
const BOARDS = { phone: [374, 300], desktop: [1000, 290] };
const SIZE = { w: 50, h: 46 };

const lines = [];
for (const deal of deals) {
  deal.steps.forEach((step) => {
    const view = normView(step.views.None);
    if (view.line.length >= 2) lines.push({ line: view.line, anchor: step.opening, where: `${deal.preset} ${deal.seed}` });
  });
}

const overlaps = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
const rectOf = (p) => ({ x0: p.x - SIZE.w / 2, y0: p.y - SIZE.h / 2, x1: p.x + SIZE.w / 2, y1: p.y + SIZE.h / 2 });
const dist = (a, b) => Math.hypot(a.x - b.x, a.y - b.y);

test('each end\'s marker lies just past the last tile at that end, inside the board', () => {
  for (const [name, [w, h]] of Object.entries(BOARDS)) {
    for (const { line, anchor, where } of lines) {
      const { positions, box, lay } = placeLine(line, anchor, w, h);
      const byIndex = new Map(lay.items.map((it, i) => [it.index, box.tiles[i]]));
      for (const [end, index] of [['left', 0], ['right', line.length - 1]]) {
        const p = positions[end];
        assert.ok(p.x >= 0 && p.x <= w && p.y >= 0 && p.y <= h, `${name} ${where} ${end}`);
        // Its tile is the nearest one: the marker is drawn at the end it names.
        const tile = byIndex.get(index);
        const centre = (b) => ({ x: (b.x0 + b.x1) / 2, y: (b.y0 + b.y1) / 2 });
        const nearest = Math.min(...box.tiles.map((b) => dist(centre(b), p)));
        assert.ok(dist(centre(tile), p) <= nearest + 1e-6, `${name} ${where} ${end}`);
      }
    }
  }
});

test('the end choice sits at its own end, hiding no tile, no marker and not the other button', () => {
  let turned = 0;
  let beside = 0;
  for (const [name, [w, h]] of Object.entries(BOARDS)) {
    for (const { line, anchor, where } of lines) {
      const { positions, box, lay } = placeLine(line, anchor, w, h);
      // A line that has turned a corner: the right end no longer grows to the right (or the left
      // end to the left), so "left" and "right" are not where the ends are on screen.
      if (lay.ends.right.dir < 0 || lay.ends.left.dir > 0) turned += 1;
      const spots = choiceSpots(positions, box, SIZE);
      for (const end of ['left', 'right']) {
        const other = end === 'left' ? 'right' : 'left';
        const spot = spots[end];
        const r = rectOf(spot);
        const at = `${name} ${where} ${end}`;
        assert.ok(r.x0 >= 0 && r.y0 >= 0 && r.x1 <= w && r.y1 <= h, `${at}: inside the board`);
        assert.ok(dist(spot, positions[end]) < dist(spot, positions[other]), `${at}: at its own end`);
        assert.ok(!overlaps(r, rectOf(spots[other])), `${at}: apart from the other button`);
        if (spot.onMarker) continue; // no room beside it: it stands on its marker, showing its number
        beside += 1;
        for (const tile of box.tiles) assert.ok(!overlaps(r, tile), `${at}: hides a tile`);
        for (const p of Object.values(positions)) {
          assert.ok(!overlaps(r, { x0: p.x - p.r, y0: p.y - p.r, x1: p.x + p.r, y1: p.y + p.r }), `${at}: hides a marker`);
        }
      }
    }
  }
  assert.ok(turned > 20, `${turned} lines had turned`);
  assert.ok(beside > lines.length, `${beside} buttons beside their ends`);
});

test('with no room beside an end, the button stands on the end itself, inside the board', () => {
  const positions = { left: { x: 4, y: 4, dir: -1, r: 12 }, right: { x: 116, y: 116, dir: 1, r: 12 } };
  const box = { width: 120, height: 120, tiles: [{ x0: 0, y0: 0, x1: 120, y1: 120 }] };
  const spots = choiceSpots(positions, box, SIZE);
  assert.deepEqual(spots.left, { x: 25, y: 23, onMarker: true });
  assert.deepEqual(spots.right, { x: 95, y: 97, onMarker: true });
});
