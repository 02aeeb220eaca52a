import { createHash } from 'node:crypto';
import type { Capability } from '../engines/contract.js';
import type { RoleIO } from '../registry/types.js';

/** Longest key JSON kept as it is; longer ones are hashed so keys stay small in the store. */
const MAX_PLAIN_KEY = 200;

/**
 * The key of `parts`: their JSON when short (hashing costs more than the lookup it serves),
 * else a SHA-256 of it. The two never collide: JSON of an array starts with `[`, base64url
 * never does. Uint8Array parts are keyed by content.
 */
export function hashKey(parts: readonly unknown[]): string {
  // A replacer function takes JSON.stringify off its fast path: use it only when bytes are
  // present. (Bytes nested deeper, in extra fields, still key by content, as `{"0":..}`.)
  const json = parts.some((part) => holdsBytes(part))
    ? JSON.stringify(parts, (_key, value: unknown) =>
        value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value,
      )
    : JSON.stringify(parts);
  if (json.length <= MAX_PLAIN_KEY) return json;
  return createHash('sha256').update(json).digest('base64url').slice(0, 32);
}

/** Whether `part` is bytes or an array holding bytes within two levels (bytes passages). */
function holdsBytes(part: unknown, depth = 2): boolean {
  if (part instanceof Uint8Array) return true;
  return depth > 0 && Array.isArray(part) && part.some((item) => holdsBytes(item, depth - 1));
}

/**
 * `hashKey([query, limit, subset ?? null])` written directly, for the usual search (a string
 * query, a number limit, no subset or a string one) whose key stays short: the hot path of a
 * cache hit skips the array, the bytes check and the generic stringify. Otherwise undefined.
 */
function plainSearchKey({ query, limit, subset }: RoleIO['search']['request']): string | undefined {
  if (typeof query !== 'string' || typeof limit !== 'number') return undefined;
  if (subset !== undefined && typeof subset !== 'string') return undefined;
  const json = `[${JSON.stringify(query)},${JSON.stringify(limit)},${subset === undefined ? 'null' : JSON.stringify(subset)}]`;
  return json.length <= MAX_PLAIN_KEY ? json : undefined;
}

/**
 * Builds the cache key function of a service (DESIGN section 4): `(service, query, limit,
 * subset)` for search, the passages for score, (text, kind) for embed, plus the values of `extraFields`.
 * Keys look like `<service>:<hash>` so services sharing one store never collide.
 */
export function cacheKeyFunction<R extends Capability>(
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
        if (extraFields.length === 0) {
          const plain = plainSearchKey(r);
          if (plain !== undefined) return `${service}:${plain}`;
        }
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
    case 'embed':
    case 'embed_sparse':
      return (request) => {
        const r = request as RoleIO['embed']['request'];
        return `${service}:${hashKey([r.text, r.kind, ...extras(r)])}`;
      };
  }
  throw new TypeError(`unknown role ${String(role)}`);
}
