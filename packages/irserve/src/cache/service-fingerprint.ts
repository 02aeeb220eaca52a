import { createHash } from 'node:crypto';
import { canonical } from '../util/canonical.js';

/** What determines a service's answers. */
export interface FingerprintInput {
  /** The engine class name. */
  engine: string;
  /** The service's engine config. */
  config: Record<string, unknown>;
  /**
   * What the engine opened (`cacheIdentity()`): an index's checksum, a model's files; undefined
   * for an engine whose config says it all.
   */
  identity: string | undefined;
}

/**
 * 16 hex digits of a SHA-256 over the engine, its config (keys in any order) and what it
 * opened: equal on replicas of one configuration, different when any of them changes.
 *
 * @example serviceFingerprint({ engine: 'BM25', config: { k1: 0.9 }, identity: 'ab12...' })
 */
export function serviceFingerprint(input: FingerprintInput): string {
  const json = JSON.stringify(canonical([input.engine, input.config, input.identity ?? null]));
  return createHash('sha256').update(json).digest('hex').slice(0, 16);
}

/**
 * The fingerprint of a set of services (what a pipeline's answers depend on), from each
 * service's name and fingerprint, in any order.
 *
 * @example combinedFingerprint([['bm25', 'ab12...'], ['dense', 'cd34...']])
 */
export function combinedFingerprint(services: readonly (readonly [string, string])[]): string {
  const lines = services.map(([name, fingerprint]) => `${name} ${fingerprint}\n`).sort();
  return createHash('sha256').update(lines.join('')).digest('hex').slice(0, 16);
}
