#!/usr/bin/env node
/**
 * Checks that imports point down the layers (docs/architecture.md): in irserve's core, a folder
 * of `src` imports only from its own layer and those listed before it; in every other package,
 * the folders of `src` import each other without a circle. Type imports count: a type that an
 * upper layer owns and a lower one needs belongs lower. `npm run cycles` runs it after dpdm
 * (which finds circles between files).
 *
 *   node scripts/check-layers.mjs            # exit 1 and one line per upward import
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * irserve's layers, bottom first. A name is a folder of `src` or a file at its top. A new
 * folder has to be placed here (the check refuses folders it does not know).
 */
const IRSERVE_LAYERS = [
  ['errors.ts', 'util', 'prebundled', 'auth', 'storage', 'cli-kit', 'models'],
  ['cache'],
  ['collections'],
  ['engines'],
  ['registry'],
  ['metrics'],
  ['processors'],
  ['core'],
  ['pipeline'],
  ['config'],
  ['transports'],
  ['federation'],
  ['plugins', 'eval'],
  ['app', 'app.ts'],
  ['experiment'],
  ['cli'],
  ['index.ts', 'plugin.ts', 'testing'],
];

/** Every `.ts` file under `dir`, declarations left out. */
function sourceFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** The relative imports of a file (static, type-only, re-exports and `import()`), resolved. */
function relativeImports(file) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts')));
}

/** `src/a/b.ts` → `a`; `src/app.ts` → `app.ts`; outside `src` → undefined. */
function unitOf(src, file) {
  const rel = relative(src, file);
  if (rel.startsWith('..')) return undefined;
  const [first, ...rest] = rel.split(sep);
  return rest.length === 0 ? first.replace(/\.js$/, '.ts') : first;
}

/** The folder-level import graph of one package: unit → units it imports, with an example. */
function unitGraph(src) {
  const graph = new Map();
  for (const file of sourceFiles(src)) {
    const from = unitOf(src, file);
    for (const target of relativeImports(file)) {
      const to = unitOf(src, target);
      if (to === undefined || to === from) continue;
      const edges = graph.get(from) ?? new Map();
      if (!edges.has(to)) edges.set(to, `${relative(root, file)} -> ${relative(root, target)}`);
      graph.set(from, edges);
    }
  }
  return graph;
}

/** Upward imports against a declared layer order, and units of `src` the order does not place. */
function layerViolations(src, graph, layers) {
  const rank = new Map(layers.flatMap((names, i) => names.map((name) => [name, i])));
  const units = new Set(sourceFiles(src).map((file) => unitOf(src, file)));
  const problems = [...units]
    .filter((unit) => !rank.has(unit))
    .map((unit) => `${unit}: not placed in a layer (scripts/check-layers.mjs)`);
  for (const [from, edges] of graph) {
    for (const [to, example] of edges) {
      if (!rank.has(to)) continue;
      if (rank.get(to) > rank.get(from))
        problems.push(`upward import ${from} -> ${to}: ${example}`);
    }
  }
  return problems;
}

/** Circles between folders (each reported once, by one of its edges). */
function folderCircles(graph) {
  const problems = [];
  const reaches = (from, to, seen = new Set()) => {
    if (from === to) return true;
    if (seen.has(from)) return false;
    seen.add(from);
    return [...(graph.get(from)?.keys() ?? [])].some((next) => reaches(next, to, seen));
  };
  const reported = new Set();
  for (const [from, edges] of graph) {
    for (const [to, example] of edges) {
      const pair = [from, to].sort().join(' ');
      if (reported.has(pair) || !reaches(to, from)) continue;
      reported.add(pair);
      problems.push(`folders ${from} and ${to} import each other: ${example}`);
    }
  }
  return problems;
}

const problems = [];
for (const pkg of readdirSync(join(root, 'packages'))) {
  const src = join(root, 'packages', pkg, 'src');
  let graph;
  try {
    graph = unitGraph(src);
  } catch (error) {
    if (error.code === 'ENOENT') continue;
    throw error;
  }
  problems.push(
    ...(pkg === 'irserve' ? layerViolations(src, graph, IRSERVE_LAYERS) : folderCircles(graph)),
  );
}
for (const problem of problems) console.error(problem);
if (problems.length > 0) {
  console.error(`${problems.length} problem(s) with the layers (docs/architecture.md)`);
  process.exit(1);
}
console.log('layers: every import points down');
