import { CAPABILITY_METHOD, type Capability, type Engine } from '../engines/contract.js';
import { IrserveError, knownIrserveError } from '../errors.js';
import type { RoleIO } from '../registry/types.js';
import { checkResults } from './check-results.js';

type BatchMethod<R extends Capability> = (
  requests: RoleIO[R]['request'][],
) => Promise<RoleIO[R]['result'][]>;

/**
 * The engine's batch method for `role`, wrapped so that its results are checked and a thrown
 * error becomes ERR_ENGINE naming the service. Throws a TypeError naming the missing method when
 * the engine cannot serve the role (spec: registration raises a type error).
 */
export function engineBatchCall<R extends Capability>(
  engine: Engine,
  role: R,
  service: string,
): BatchMethod<R> {
  const methodName = CAPABILITY_METHOD[role];
  const method = (engine as Record<string, unknown>)[methodName];
  if (typeof method !== 'function') {
    const className = engine.constructor?.name ?? 'engine';
    throw new TypeError(
      `${className} cannot serve role "${role}" for service "${service}": it does not implement ${methodName}()`,
    );
  }
  return async (requests) => {
    let results: unknown;
    try {
      results = await (method as BatchMethod<R>).call(engine, requests);
    } catch (error) {
      const known = knownIrserveError(error);
      if (known) throw known;
      const message = error instanceof Error ? error.message : String(error);
      throw new IrserveError('ERR_ENGINE', `service "${service}" failed: ${message}`, {
        cause: error,
      });
    }
    return checkResults(role, service, requests, results);
  };
}

/**
 * Computes identical requests of one batch once (DESIGN section 4): the engine sees each
 * distinct key once, and every item gets the result of its key.
 */
export function dedupeBatch<Req, Res>(
  run: (items: Req[]) => Promise<Res[]>,
  key: (item: Req) => string,
) {
  return async (items: Req[]): Promise<Res[]> => {
    if (items.length < 2) return run(items);
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
    if (unique.length === items.length) return run(items);
    const results = await run(unique);
    return indexes.map((index) => results[index] as Res);
  };
}
