// Replaces irserve's compiled `dist/prebundled/*.js` (re-exports of zod, Fastify and pino) with
// esbuild bundles, after `tsc -b` in `npm run build`. A server start loaded some 260 files of
// these three libraries one by one (module resolution, 64 zod locales nothing uses); the bundles
// load the same code from a handful of files. Entries share chunks (Fastify requires pino), so
// each library is in the process once. The `.d.ts` files stay tsc's: types still come from the
// packages themselves.
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const source = join(root, 'packages/irserve/src/prebundled');
const target = join(root, 'packages/irserve/dist/prebundled');

// CommonJS dependencies call require(); an ES module has none unless it makes one.
const banner = [
  "import { createRequire as __irserveCreateRequire } from 'node:module';",
  'const require = __irserveCreateRequire(import.meta.url);',
].join('\n');

/**
 * zod's `locales` namespace (64 translations of its error messages, 340 kB) is imported by every
 * zod entry point; irserve's messages are English, so the bundle keeps `locales.en` only. The
 * module's path is relative to the repository: esbuild writes it into the bundle as a comment,
 * and a published file names no folder of the machine that built it.
 */
const englishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, ({ importer, resolveDir }) =>
      /[\\/]zod[\\/]/.test(importer)
        ? { path: relative(root, join(resolveDir, '../locales')), namespace: 'zod-locales' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, ({ path }) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: join(root, path),
      loader: 'js',
    }));
  },
};

async function entries() {
  const names = (await readdir(source)).filter((name) => name.endsWith('.ts'));
  return names.map((name) => join(source, name));
}

/** Bundles into a fresh folder beside the target, then swaps it in: a failed build changes nothing. */
async function prebundle() {
  const staging = `${target}.tmp-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await build({
    entryPoints: await entries(),
    outdir: staging,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunks/[name]-[hash]',
    banner: { js: banner },
    legalComments: 'eof',
    logLevel: 'warning',
    plugins: [englishOnly],
  });
  // Keep tsc's declarations (and drop its source maps, which describe the re-export files).
  await mkdir(target, { recursive: true });
  for (const name of await readdir(target)) {
    if (name.endsWith('.d.ts')) await rename(join(target, name), join(staging, name));
  }
  await rm(target, { recursive: true, force: true });
  await rename(staging, target);
}

await prebundle();
