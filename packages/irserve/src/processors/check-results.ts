import type { Capability } from '../engines/contract.js';
import { IrserveError } from '../errors.js';
import type { RoleIO } from '../registry/types.js';
import { ItemFailure } from './item-failure.js';

function engineError(service: string, message: string): IrserveError {
  return new IrserveError('ERR_ENGINE', `service "${service}" ${message}`);
}

/** Checks a score map; returns its keys (in `Object.keys` order), read once here. */
function checkScoreMap(service: string, value: unknown, index: number): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw engineError(
      service,
      `returned ${describe(value)} for request ${index}; expected an object of document id to score`,
    );
  }
  // Keys and lookups rather than Object.entries (no pair array per document), and rather than
  // for...in with an own-property test (slower on the dictionary-mode maps engines build).
  const scores = value as Record<string, unknown>;
  const ids = Object.keys(scores);
  for (const id of ids) {
    const score = scores[id];
    if (typeof score !== 'number' || Number.isNaN(score)) {
      throw engineError(
        service,
        `returned a non-numeric score for document "${id}" in request ${index}`,
      );
    }
  }
  return ids;
}

function checkNumberList(service: string, value: unknown, index: number, expected: number): void {
  if (!Array.isArray(value))
    throw engineError(
      service,
      `returned ${describe(value)} for request ${index}; expected an array of scores`,
    );
  if (value.length !== expected) {
    throw engineError(
      service,
      `returned ${value.length} scores for ${expected} passages in request ${index}`,
    );
  }
  for (const score of value) {
    if (typeof score !== 'number' || Number.isNaN(score))
      throw engineError(service, `returned a non-numeric score in request ${index}`);
  }
}

function checkStringList(service: string, value: unknown, index: number): void {
  if (!Array.isArray(value) || value.some((query) => typeof query !== 'string')) {
    throw engineError(
      service,
      `returned ${describe(value)} for request ${index}; expected an array of strings`,
    );
  }
}

function checkVector(service: string, value: unknown, index: number): void {
  if (!(value instanceof Float32Array) || value.length === 0)
    throw engineError(
      service,
      `returned ${describe(value)} for request ${index}; expected a non-empty Float32Array`,
    );
  for (const x of value) {
    if (!Number.isFinite(x))
      throw engineError(service, `returned a vector with a non-finite value for request ${index}`);
  }
}

function checkSparseVector(service: string, value: unknown, index: number): void {
  const { indices, values } = (value ?? {}) as { indices?: unknown; values?: unknown };
  const numbers = (list: unknown): list is number[] =>
    Array.isArray(list) && list.every((x) => typeof x === 'number' && Number.isFinite(x));
  if (!numbers(indices) || !numbers(values) || indices.length !== values.length)
    throw engineError(
      service,
      `returned ${describe(value)} for request ${index}; expected {indices, values}: two number lists of one length`,
    );
  if (indices.some((i) => !Number.isInteger(i) || i < 0))
    throw engineError(
      service,
      `returned a sparse index that is not a non-negative integer for request ${index}`,
    );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  return `a value of type ${typeof value}`;
}

/**
 * Throws ERR_ENGINE when `value` is not a valid result of `role` for `request`; returns the keys
 * of a score map (search, fuse), else undefined.
 */
function checkOne(
  role: Capability,
  service: string,
  request: unknown,
  value: unknown,
  index: number,
): string[] | undefined {
  switch (role) {
    case 'search':
    case 'fuse':
      return checkScoreMap(service, value, index);
    case 'score':
      checkNumberList(
        service,
        value,
        index,
        (request as RoleIO['score']['request']).passages.length,
      );
      break;
    case 'decompose_query':
      checkStringList(service, value, index);
      break;
    case 'embed':
      checkVector(service, value, index);
      break;
    case 'embed_sparse':
      checkSparseVector(service, value, index);
      break;
  }
  return undefined;
}

/**
 * Checks an engine's batch result: one result per request, each of the role's shape. A result
 * of the wrong shape becomes an ItemFailure (ERR_ENGINE) for that item alone; a batch result
 * that is not an array of the right length fails the whole batch (never a silent empty answer).
 * Given `keysOf`, the keys of each valid score map are recorded there (read once: whoever uses
 * the map next need not read them again).
 *
 * @example
 * checkResults('search', 'bm25', [{ query: 'q', limit: 1 }], [{ d1: 1 }]); // [{ d1: 1 }]
 */
export function checkResults<R extends Capability>(
  role: R,
  service: string,
  requests: readonly RoleIO[R]['request'][],
  results: unknown,
  keysOf?: WeakMap<object, readonly string[]>,
): (RoleIO[R]['result'] | ItemFailure)[] {
  if (!Array.isArray(results))
    throw engineError(
      service,
      `returned ${describe(results)} from its batch method; expected an array`,
    );
  if (results.length !== requests.length) {
    throw engineError(
      service,
      `returned ${results.length} results for a batch of ${requests.length} requests`,
    );
  }
  return results.map((value: unknown, index) => {
    try {
      const keys = checkOne(role, service, requests[index], value, index);
      if (keys !== undefined) keysOf?.set(value as object, keys);
      return value as RoleIO[R]['result'];
    } catch (error) {
      return new ItemFailure(error);
    }
  });
}
