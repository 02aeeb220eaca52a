import type { InputKind, Role } from '../engines/contract.js';
import { IrserveError } from '../errors.js';
import { cacheKeyFunction } from '../processors/cache-key.js';
import type { CacheEvent } from '../metrics/observer.js';
import type { CacheStore } from '../cache/cache-store.js';
import { type CacheEntry, type Call, withCache } from '../cache/cached.js';
import { checkResults } from '../processors/check-results.js';
import { unwrapItem } from '../processors/item-failure.js';
import type { BuiltService, CallOptions, RoleIO } from '../registry/types.js';
import type { RemoteTransport } from './remote-transport.js';

const PATHS: Record<Role, string> = {
  search: '/search',
  score: '/score',
  fuse: '/fuse',
  decompose_query: '/decompose_query',
};

/** The request as the remote's HTTP API expects it (bytes passages as base64, fuse rankings as `scores`). */
function toWire(
  role: Role,
  service: string,
  request: Record<string, unknown>,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...request, service };
  if (role === 'score') {
    body.passages = (request.passages as unknown[]).map((passage) =>
      Array.isArray(passage)
        ? passage.map((part: Uint8Array) => Buffer.from(part).toString('base64'))
        : passage,
    );
  }
  if (role === 'fuse') {
    body.scores = request.rankings;
    delete body.rankings;
  }
  return body;
}

function fromWire<R extends Role>(
  role: R,
  remote: string,
  request: RoleIO[R]['request'],
  body: unknown,
): RoleIO[R]['result'] {
  const answer = (body ?? {}) as Record<string, unknown>;
  const value = role === 'decompose_query' ? answer.queries : answer.scores;
  if (value === undefined) {
    const error = typeof answer.error === 'string' ? answer.error : 'no scores in the answer';
    throw new IrserveError('ERR_UPSTREAM', `remote ${remote}: ${error}`);
  }
  try {
    return unwrapItem(checkResults(role, remote, [request], [value])[0]!);
  } catch (error) {
    throw new IrserveError(
      'ERR_UPSTREAM',
      `remote ${remote} answered with a malformed result: ${(error as Error).message}`,
    );
  }
}

export interface RelaySpec<R extends Role> {
  /** Local name (the same as the remote's). */
  name: string;
  role: R;
  inputKind: InputKind;
  client: RemoteTransport;
  cache: CacheStore<CacheEntry<RoleIO[R]['result']>> | undefined;
  /** Metrics: each call's duration (retries included) and outcome. */
  onCall?: ((seconds: number, ok: boolean) => void) | undefined;
  /** Metrics: cache hits and misses. */
  onCacheEvent?: ((event: CacheEvent) => void) | undefined;
}

/**
 * A service that forwards each request, with every field, to the same service on a remote
 * instance (one-at-a-time processor; the remote batches). Cached like a local service: the score
 * key includes the passages, so new passages never get stale scores (unlike RoutIR's relay).
 */
export function buildRelayService<R extends Role>(spec: RelaySpec<R>): BuiltService<R> {
  type Req = RoleIO[R]['request'];
  type Res = RoleIO[R]['result'];
  const { client, role, name } = spec;
  const relay: Call<Req, Res, CallOptions> = async (request, options?: CallOptions) => {
    const body = await client.post(PATHS[role], toWire(role, name, request), {
      requestId: options?.requestId,
      hops: options?.hops ?? 0,
      deadline: options?.deadline,
      signal: options?.signal,
    });
    const timestamp =
      typeof (body as { timestamp?: unknown })?.timestamp === 'number'
        ? (body as { timestamp: number }).timestamp
        : Date.now() / 1000;
    return {
      value: fromWire(role, `${client.endpoint} (${name})`, request, body),
      // A hit in the remote's cache is a hit for the caller too.
      cached: (body as { cached?: unknown })?.cached === true,
      timestamp,
    };
  };
  const call = spec.onCall ? timedCall(relay, spec.onCall) : relay;
  const cached = spec.cache
    ? withCache(call, {
        store: spec.cache,
        key: cacheKeyFunction(role, name, []),
        onLookup: spec.onCacheEvent,
      })
    : undefined;
  const finalCall = cached?.call ?? call;
  return {
    name,
    role,
    inputKind: spec.inputKind,
    engineName: 'Relay',
    call: (request, options) => finalCall(request, options),
    ...(cached === undefined ? {} : { cachedNow: cached.cachedNow }),
    close: async () => spec.cache?.close(),
  };
}

/** The call, reporting each duration and outcome (for the relay metrics). */
function timedCall<Req, Res>(
  call: Call<Req, Res, CallOptions>,
  onCall: (seconds: number, ok: boolean) => void,
): Call<Req, Res, CallOptions> {
  return async (request, options) => {
    const started = performance.now();
    let ok = false;
    try {
      const result = await call(request, options);
      ok = true;
      return result;
    } finally {
      onCall((performance.now() - started) / 1000, ok);
    }
  };
}
