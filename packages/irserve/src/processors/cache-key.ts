import { createHash } from 'node:crypto';
import type { Role } from '../engines/contract.js';
import type { RoleIO } from '../registry/types.js';

/** Hashes the JSON of `parts`; Uint8Array parts are hashed by content. */
export function hashKey(parts: readonly unknown[]): string {
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify(parts, (_key, value: unknown) =>
      value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value,
    ),
  );
  return hash.digest('base64url').slice(0, 32);
}

/**
 * Builds the cache key function of a service (DESIGN section 4): `(service, query, limit,
 * subset)` for search, the passages for score, plus the values of `extraFields`.
 * Keys look like `<service>:<hash>` so services sharing one store never collide.
 */
export function cacheKeyFunction<R extends Role>(
  role: R,
  service: string,
  extraFields: readonly string[],
): (request: RoleIO[R]['request']) => string {
  const extras = (request: Record<string, unknown>) =>
    extraFields.map((field) => request[field] ?? null);
  switch (role) {
    case 'search':
      return (request) => {
        const r = request as RoleIO['search']['request'];
        return `${service}:${hashKey([r.query, r.limit, r.subset ?? null, ...extras(r)])}`;
      };
    case 'score':
      return (request) => {
        const r = request as RoleIO['score']['request'];
        return `${service}:${hashKey([r.query, r.passages, ...extras(r)])}`;
      };
    case 'decompose_query':
      return (request) => {
        const r = request as RoleIO['decompose_query']['request'];
        return `${service}:${hashKey([r.query, r.limit ?? null, ...extras(r)])}`;
      };
    case 'fuse':
      return (request) => {
        const r = request as RoleIO['fuse']['request'];
        return `${service}:${hashKey([r.query, r.rankings, ...extras(r)])}`;
      };
  }
  throw new TypeError(`unknown role ${String(role)}`);
}
