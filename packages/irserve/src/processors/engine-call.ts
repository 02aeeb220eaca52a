import { BATCH_ABORT } from '../engines/batch-abort.js';
import { CAPABILITY_METHOD, type Capability, type Engine } from '../engines/contract.js';
import { IrserveError, knownIrserveError } from '../errors.js';
import type { RoleIO } from '../registry/types.js';
import type { BatchContext } from './batcher.js';
import { checkResults } from './check-results.js';
import { AbortScope, type Abortable } from '../util/abort-scope.js';
import type { ItemFailure } from './item-failure.js';

type BatchMethod<R extends Capability> = (
  requests: RoleIO[R]['request'][],
  options?: { signal?: AbortSignal },
) => Promise<RoleIO[R]['result'][]>;

/** A checked engine batch call: one result, or one ItemFailure, per request. */
export type CheckedBatchCall<R extends Capability> = (
  requests: RoleIO[R]['request'][],
  context?: Partial<BatchContext>,
) => Promise<(RoleIO[R]['result'] | ItemFailure)[]>;

/**
 * The engine's batch method for `role`, wrapped so that its results are checked item by item
 * (unless `checked` is false: irserve's own rules whose results are valid by construction) and
 * a thrown error becomes ERR_ENGINE naming the service; `keysOf` receives the keys of the score
 * maps the check read (see `checkResults`). The engine receives
 * `{ signal }` as its second argument (engines that ignore it keep working). The call settles
 * when the engine's does, so that whoever runs it (the batcher) knows how many engine calls
 * are really running: a caller that must not wait past the signal races it (`raceAbort`).
 * Throws a TypeError naming the missing method when the engine cannot serve the role.
 *
 * @example
 * const call = engineBatchCall(engine, 'search', 'bm25');
 * const [scores] = await call([{ query: 'q', limit: 10 }], { signal });
 */
export function engineBatchCall<R extends Capability>(
  engine: Engine,
  role: R,
  service: string,
  checked = true,
  keysOf?: WeakMap<object, readonly string[]>,
): CheckedBatchCall<R> {
  const methodName = CAPABILITY_METHOD[role];
  const method = (engine as Record<string, unknown>)[methodName];
  if (typeof method !== 'function') {
    const className = engine.constructor?.name ?? 'engine';
    throw new TypeError(
      `${className} cannot serve role "${role}" for service "${service}": it does not implement ${methodName}()`,
    );
  }
  return async (requests, context) => {
    const signal = context?.signal;
    let results: unknown;
    try {
      const call = (method as BatchMethod<R>).call(
        engine,
        requests,
        signal ? batchOptions(signal) : undefined,
      );
      results = await call;
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error;
      const known = knownIrserveError(error);
      if (known) throw known;
      const message = error instanceof Error ? error.message : String(error);
      throw new IrserveError('ERR_ENGINE', `service "${service}" failed: ${message}`, {
        cause: error,
      });
    }
    if (!checked) return results as RoleIO[R]['result'][];
    return checkResults(role, service, requests, results, keysOf);
  };
}

/**
 * An engine's `{ signal }`. A scope's AbortSignal is made only if the engine reads it: most
 * engines never do, and making one costs about 6-9 µs (see AbortScope). The getter is an own
 * property of a literal (about 1 µs to make, where a class's would take 0.05) so that an engine
 * that passes its options on as `{ ...options }` passes the signal too. `BATCH_ABORT` holds the
 * scope itself, for engines that listen without an AbortSignal (`onBatchAbort`).
 */
function batchOptions(signal: Abortable): { signal?: AbortSignal; [BATCH_ABORT]?: Abortable } {
  if (!(signal instanceof AbortScope)) return { signal };
  return {
    [BATCH_ABORT]: signal,
    get signal() {
      return signal.signal;
    },
  };
}

/**
 * Computes identical requests of one batch once (DESIGN section 4): the engine sees each
 * distinct key once, and every item gets the result of its key.
 *
 * @example
 * const run = dedupeBatch(call, (request) => request.query);
 */
export function dedupeBatch<Req, Res, C>(
  run: (items: Req[], context: C) => Promise<readonly Res[]>,
  key: (item: Req) => string,
) {
  return async (items: Req[], context: C): Promise<readonly Res[]> => {
    if (items.length < 2) return run(items, context);
    const slot = new Map<string, number>();
    const unique: Req[] = [];
    const indexes = items.map((item) => {
      const k = key(item);
      let index = slot.get(k);
      if (index === undefined) {
        index = unique.length;
        slot.set(k, index);
        unique.push(item);
      }
      return index;
    });
    if (unique.length === items.length) return run(items, context);
    const results = await run(unique, context);
    return indexes.map((index) => results[index] as Res);
  };
}
