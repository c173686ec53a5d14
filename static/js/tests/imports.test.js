// node --test: the client's import graph (every module under static/js, its tests aside) keeps
// its layers apart. No circle of imports: within a circle one module runs while the other's
// exports are not yet set, and which one depends on which was loaded first. And nothing outside
// views/ imports a view, main.js (which wires the views to the state) aside: the logic stays
// usable, and testable here, without the screens.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TESTS = dirname(fileURLToPath(import.meta.url));
const ENTRY = 'main.js';

// `import … from '…'` and `export … from '…'` (the clause may span lines, but holds only names,
// braces, commas and `*`, so `export const x = 'from …'` is not one), and a bare `import '…'`.
const FROM = /^(?:import|export)\s+[\w$*{},\s]*?\bfrom\s*(['"])([^'"\n]+)\1/gm;
const BARE = /^import\s*(['"])([^'"\n]+)\1/gm;
const importsOf = (text) => [...text.matchAll(FROM), ...text.matchAll(BARE)];

function sources(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path !== TESTS) out.push(...sources(path));
    } else if (entry.name.endsWith('.js')) {
      out.push(path);
    }
  }
  return out;
}

const moduleName = (path) => relative(ROOT, path).split(sep).join('/');

/** Each module ('game.js', 'views/table.js') -> the modules it imports. */
function importGraph() {
  const graph = new Map();
  for (const file of sources(ROOT)) {
    const specs = importsOf(readFileSync(file, 'utf8')).map((m) => m[2]);
    graph.set(moduleName(file), specs.map((spec) => moduleName(resolve(dirname(file), spec))));
  }
  return graph;
}

/** One circle of imports in `graph`, as [a, b, …, a], or null when there is none. */
function findCircle(graph) {
  const seen = new Map(); // module -> 'open' (on the current path) | 'done'
  const path = [];
  const visit = (node) => {
    seen.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) || []) {
      if (seen.get(next) === 'open') return [...path.slice(path.indexOf(next)), next];
      if (!seen.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    path.pop();
    seen.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    if (seen.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return null;
}

const isView = (name) => name.startsWith('views/');

/** Every "module -> view" import from outside views/, the entry point's aside. */
function viewImports(graph) {
  const out = [];
  for (const [from, targets] of graph) {
    if (isView(from) || from === ENTRY) continue;
    for (const to of targets) if (isView(to)) out.push(`${from} -> ${to}`);
  }
  return out;
}

test('the checkers find a circle and a view imported by logic in a hand-made graph', () => {
  const circle = new Map([['a.js', ['b.js']], ['b.js', ['c.js']], ['c.js', ['d.js', 'a.js']], ['d.js', []]]);
  assert.deepEqual(findCircle(circle), ['a.js', 'b.js', 'c.js', 'a.js']);
  assert.deepEqual(findCircle(new Map([['x.js', ['x.js']]])), ['x.js', 'x.js']);
  // Two paths to one module are no circle.
  const diamond = new Map([['a.js', ['b.js', 'c.js']], ['b.js', ['d.js']], ['c.js', ['d.js']], ['d.js', []]]);
  assert.equal(findCircle(diamond), null);

  const layered = new Map([
    [ENTRY, ['views/table.js', 'chat.js']],
    ['chat.js', ['store.js', 'views/common.js']],
    ['views/table.js', ['views/common.js', 'chat.js']],
    ['views/common.js', ['store.js']],
    ['store.js', []],
  ]);
  assert.deepEqual(viewImports(layered), ['chat.js -> views/common.js']);
});

test('the graph is read whole: every import names a module of static/js', () => {
  const graph = importGraph();
  assert.ok(graph.has(ENTRY) && graph.has('views/common.js'), [...graph.keys()].join(' '));
  // An import over several lines is read too.
  assert.ok(graph.get('session.js').includes('connection.js'), graph.get('session.js').join(' '));
  for (const [from, targets] of graph) {
    // No import statement slips past the patterns.
    const text = readFileSync(join(ROOT, from), 'utf8');
    const read = importsOf(text).filter((m) => m[0].startsWith('import')).length;
    assert.equal(read, (text.match(/^import\b/gm) || []).length, `${from}: an import the patterns miss`);
    for (const to of targets) assert.ok(graph.has(to), `${from} imports ${to}, which is not a module here`);
  }
});

test('no circle of imports', () => {
  const circle = findCircle(importGraph());
  assert.equal(circle, null, circle && `import circle: ${circle.join(' -> ')}`);
});

test(`nothing outside views/ imports a view, ${ENTRY} aside`, () => {
  assert.deepEqual(viewImports(importGraph()), []);
});
