/**
 * zod, as every irserve module and every engine plugin gets it at run time.
 *
 * From source (tests, `tsx`) this is zod itself. `npm run build` replaces the compiled file with
 * one prebundled ES module (`scripts/prebundle.mjs`, esbuild): loading zod's 95 modules, 64 of
 * them locales nothing here uses, cost a server start 70-120 ms; the bundle loads in a fraction
 * of that. Plugins take `z` from `irserve/plugin` so that there is one zod in the process.
 * Type-only imports may name `zod` directly: they leave nothing at run time.
 */
export { z } from 'zod';
