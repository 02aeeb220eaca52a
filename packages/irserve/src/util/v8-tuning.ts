import { setFlagsFromString } from 'node:v8';

/** The V8 flag `tuneV8ForServing` sets. */
const NO_PRETENURING = '--no-allocation-site-pretenuring';

/** Values of IRSERVE_V8_PRETENURING that keep V8's default. */
const KEEP = new Set(['on', '1', 'true', 'yes']);

/**
 * Turns off V8's allocation-site pretenuring for this process (the `irserve` command calls this
 * before it builds the app; a program embedding irserve may call it too), unless the process was
 * started with a choice of its own (`--allocation-site-pretenuring` or its `--no-` form on the
 * command line) or `IRSERVE_V8_PRETENURING=on` (or 1, true, yes). Returns whether the flag was set.
 *
 * Why: with requests in flight side by side, V8 sees many of a request's objects (score maps,
 * response headers, payloads) still alive at a young-generation collection and starts
 * allocating them in the old generation, where they pile up until a full collection. Measured
 * on a pipeline `{a%100, b%100}RRF%100` at 8 in flight (bench/README.md, "Back-end engines"):
 * time in garbage collection halved, and CPU per request fell by a quarter in process and by a
 * tenth for a server over HTTP (`bench/v8-pretenuring.mjs`). The long-lived data irserve keeps
 * (indexes, offset maps, vectors) is in typed arrays outside the V8 heap, so nothing is copied
 * the more for it; index builds measured the same.
 *
 * @example
 * tuneV8ForServing(process.env, process.execArgv); // before createApp
 */
export function tuneV8ForServing(env: NodeJS.ProcessEnv, execArgv: readonly string[]): boolean {
  if (KEEP.has((env.IRSERVE_V8_PRETENURING ?? '').trim().toLowerCase())) return false;
  if (execArgv.some((arg) => /^--(no-)?allocation[-_]site[-_]pretenuring/.test(arg))) return false;
  setFlagsFromString(NO_PRETENURING);
  return true;
}
