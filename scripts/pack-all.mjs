#!/usr/bin/env node
/**
 * Packs every workspace package (the root package.json's `workspaces`) into an installable
 * tarball, after checking what each one ships: every `main`, `types`, `exports` and `bin` target
 * and every `files` entry is in the tarball; nothing from tests, fixtures, sources or build
 * caches is; no file names this machine's paths; and every dependency of one package on
 * another (dependencies, peer and optional) accepts the version packed beside it, so the
 * tarballs install together without asking the registry for an `@irserve` package.
 *
 *   npm run pack:all                                  # build, then pack into ./packs
 *   node scripts/pack-all.mjs --out /tmp/irserve --no-build
 *
 * Prints one line per tarball and the `npm install` command that installs them all; exits 1
 * with one line per problem (nothing is left in the folder then).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'];
/** Paths that never belong in a published package. */
const FORBIDDEN = [/(^|\/)(test|tests|fixtures|src|scripts|coverage)\//, /\.tsbuildinfo$/];

function options() {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: 'packs' },
      build: { type: 'boolean', default: true },
    },
    allowNegative: true,
  });
  return { out: resolve(values.out), build: values.build };
}

/** The workspace packages, each with its folder and manifest, in the root's order. */
function workspaces() {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return manifest.workspaces.map((folder) => ({
    folder,
    manifest: JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')),
  }));
}

/** A dependency on a sibling must accept the sibling's version as packed: `^x.y.z` or `x.y.z`. */
function rangeProblems(packages) {
  const versions = new Map(packages.map(({ manifest }) => [manifest.name, manifest.version]));
  const problems = [];
  for (const { manifest } of packages) {
    for (const field of DEPENDENCY_FIELDS) {
      for (const [name, range] of Object.entries(manifest[field] ?? {})) {
        const version = versions.get(name);
        if (version === undefined || range === `^${version}` || range === version) continue;
        problems.push(
          `${manifest.name}: ${field}.${name} is "${range}", but ${name} ${version} is packed (use "^${version}")`,
        );
      }
    }
  }
  return problems;
}

/** Every path a manifest points at: main, types, bin and export targets. */
function declaredPaths(manifest) {
  const paths = [manifest.main, manifest.types];
  const bins =
    typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
  const collect = (target) => {
    if (typeof target === 'string') paths.push(target);
    else if (target && typeof target === 'object') Object.values(target).forEach(collect);
  };
  collect(manifest.exports);
  return [...paths, ...bins].filter(Boolean).map((path) => path.replace(/^\.\//, ''));
}

/** The folders and files this machine's paths start with, as a build could embed them. */
function machinePaths() {
  const home = homedir();
  return [root, ...(home.length > 1 ? [home] : [])].map((path) => `${path}/`);
}

function contentProblems({ folder, manifest }, packed) {
  const name = manifest.name;
  const files = new Set(packed.files.map((file) => file.path));
  const has = (path) => files.has(path) || [...files].some((file) => file.startsWith(`${path}/`));
  const problems = [];
  for (const path of declaredPaths(manifest)) {
    if (!files.has(path)) problems.push(`${name}: ${path} (named in package.json) is not packed`);
  }
  for (const entry of (manifest.files ?? []).filter((file) => !file.startsWith('!'))) {
    if (!has(entry)) problems.push(`${name}: "files" entry ${entry} is missing (run the build?)`);
  }
  const machine = machinePaths();
  for (const path of files) {
    if (FORBIDDEN.some((pattern) => pattern.test(path))) {
      problems.push(`${name}: ${path} should not be published`);
      continue;
    }
    const text = readFileSync(join(root, folder, path), 'latin1');
    const found = machine.find((prefix) => text.includes(prefix));
    if (found) problems.push(`${name}: ${path} contains this machine's path ${found}`);
  }
  return problems;
}

/**
 * Runs `npm pack` once for every workspace; answers npm's JSON report per package (npm 11 prints
 * an array of reports, npm 12 an object of them keyed by package name).
 */
function pack(packages, out) {
  const args = ['pack', '--json', '--pack-destination', out];
  for (const { folder } of packages) args.push('-w', folder);
  const stdout = execFileSync('npm', args, {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const reports = JSON.parse(stdout);
  return Array.isArray(reports) ? reports : Object.values(reports);
}

function removeTarballs(out, reports) {
  for (const report of reports) rmSync(join(out, report.filename), { force: true });
}

function summary(out, reports) {
  const lines = reports.map(
    (report) =>
      `${report.name.padEnd(18)} ${report.filename.padEnd(30)} ${String(Math.round(report.size / 1024)).padStart(6)} kB packed, ${String(report.entryCount).padStart(4)} files`,
  );
  const tarballs = reports.map((report) => join(out, report.filename)).join(' ');
  return [
    ...lines,
    '',
    'Install them all in a project (see docs/install.md):',
    `  npm install ${tarballs}`,
  ];
}

function main() {
  const { out, build } = options();
  const packages = workspaces();
  const ranges = rangeProblems(packages);
  if (ranges.length > 0) fail(ranges);
  if (build) execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  mkdirSync(out, { recursive: true });
  const reports = pack(packages, out);
  const problems = packages.flatMap((pkg) =>
    contentProblems(
      pkg,
      reports.find((report) => report.name === pkg.manifest.name),
    ),
  );
  if (problems.length > 0) {
    removeTarballs(out, reports);
    fail(problems);
  }
  console.log(summary(out, reports).join('\n'));
}

function fail(problems) {
  console.error(
    `pack-all: ${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`,
  );
  process.exit(1);
}

main();
