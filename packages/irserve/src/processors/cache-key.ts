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

/** `value` with object keys sorted at every level, so equal fields give equal keys. */
function canonical(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map(canonical);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const inner = (value as Record<string, unknown>)[key];
    if (inner !== undefined) out[key] = canonical(inner);
  }
  return out;
}

/**
 * The request's fields other than `core` (those keyed in their own slots), `service` and the
 * excluded ones, canonical; undefined when there are none (the usual request, whose key then
 * stays exactly what it was before every field was keyed).
 */
function restOf(
  request: Record<string, unknown>,
  core: readonly string[],
  excluded: ReadonlySet<string>,
): Record<string, unknown> | undefined {
  let rest: Record<string, unknown> | undefined;
  for (const field in request) {
    if (core.includes(field) || field === 'service' || excluded.has(field)) continue;
    const value = request[field];
    if (value === undefined) continue;
    rest ??= {};
    rest[field] = value;
  }
  return rest === undefined ? undefined : (canonical(rest) as Record<string, unknown>);
}

const CORE_FIELDS = {
  search: ['query', 'limit', 'subset'],
  score: ['query', 'passages'],
  decompose_query: ['query', 'limit'],
  fuse: ['query', 'rankings'],
  embed: ['text', 'kind'],
  embed_sparse: ['text', 'kind'],
} as const satisfies Record<Capability, readonly string[]>;

/**
 * Builds the cache key function of a service (DESIGN section 4): every field the engine
 * receives is in the key (the role's own fields in fixed slots, then every other field,
 * canonical), except those named in `excluded` (`cache_key_exclude`), so requests that differ
 * in any engine field never share an answer. Keys look like `<service>:<hash>` so services
 * sharing one store never collide.
 *
 * @example
 * const key = cacheKeyFunction('search', 'bm25', []);
 * key({ query: 'q', limit: 10 }) !== key({ query: 'q', limit: 10, instruction: 'x' }); // true
 */
export function cacheKeyFunction<R extends Capability>(
  role: R,
  service: string,
  excluded: readonly string[],
): (request: RoleIO[R]['request']) => string {
  const skip = new Set(excluded);
  const core = CORE_FIELDS[role];
  const withRest = (request: Record<string, unknown>, parts: unknown[]) => {
    const rest = restOf(request, core, skip);
    return `${service}:${hashKey(rest === undefined ? parts : [...parts, rest])}`;
  };
  switch (role) {
    case 'search':
      return (request) => {
        const r = request as RoleIO['search']['request'];
        const rest = restOf(r, core, skip);
        if (rest === undefined) {
          const plain = plainSearchKey(r);
          if (plain !== undefined) return `${service}:${plain}`;
          return `${service}:${hashKey([r.query, r.limit, r.subset ?? null])}`;
        }
        return `${service}:${hashKey([r.query, r.limit, r.subset ?? null, rest])}`;
      };
    case 'score':
      return (request) => {
        const r = request as RoleIO['score']['request'];
        return withRest(r, [r.query, r.passages]);
      };
    case 'decompose_query':
      return (request) => {
        const r = request as RoleIO['decompose_query']['request'];
        return withRest(r, [r.query, r.limit ?? null]);
      };
    case 'fuse':
      return (request) => {
        const r = request as RoleIO['fuse']['request'];
        return withRest(r, [r.query, r.rankings]);
      };
    case 'embed':
    case 'embed_sparse':
      return (request) => {
        const r = request as RoleIO['embed']['request'];
        return withRest(r, [r.text, r.kind]);
      };
  }
  throw new TypeError(`unknown role ${String(role)}`);
}
