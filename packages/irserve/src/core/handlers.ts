/**
 * Transport-neutral request handlers: validate a decoded body, call the service, build the
 * envelope. HTTP and gRPC adapters call these.
 */
import type { CallOptions } from '../registry/types.js';
import { badRequest } from '../errors.js';
import type { AppCore } from './app-core.js';
import { unavailableServices } from './availability.js';
import { engineFields, envelope } from './envelope.js';
import { withTimeout } from './request-deadline.js';
import { parseRequest } from './validate.js';
import {
  decomposeRequestSchema,
  fuseRequestSchema,
  plainSearchRequest,
  scoreRequestSchema,
  searchRequestSchema,
} from './request-schemas.js';

/** RoutIR's default when a request has no `limit`. */
export const DEFAULT_LIMIT = 1000;

function checkLimit(
  core: AppCore,
  limit: number | undefined,
  fallback: number | undefined,
): number | undefined {
  const value = limit ?? fallback;
  if (value !== undefined && value > core.maxLimit)
    throw badRequest(`limit: must be at most ${core.maxLimit} (max_limit)`, { fields: ['limit'] });
  return value;
}

/**
 * A search. A cache hit in an in-process cache is answered at once, without a promise: the
 * most frequent request of a busy server then skips two microtask turns and their allocations.
 * Bad requests throw (synchronously); callers await the result either way.
 */
export function search(
  core: AppCore,
  body: unknown,
  options?: CallOptions,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const request = plainSearchRequest(body) ?? parseRequest(searchRequestSchema, body);
  const service = core.services.get('search', request.service);
  const limit = checkLimit(core, request.limit, DEFAULT_LIMIT) ?? DEFAULT_LIMIT;
  const engineRequest = { ...engineFields(request), limit };
  const hit = service.cachedNow?.(engineRequest);
  if (hit !== undefined) return envelope(service.name, request.query, hit);
  return service
    .call(engineRequest, withTimeout(options, request.timeout))
    .then((result) => envelope(service.name, request.query, result));
}

export async function score(
  core: AppCore,
  body: unknown,
  options?: CallOptions,
): Promise<Record<string, unknown>> {
  const request = parseRequest(scoreRequestSchema, body);
  const service = core.services.get('score', request.service);
  const passages = request.passages.map((passage, index) => {
    const isBytes = Array.isArray(passage);
    if (isBytes !== (service.inputKind === 'bytes')) {
      throw badRequest(
        `passages[${index}]: service "${service.name}" takes ${service.inputKind} passages (${service.inputKind === 'bytes' ? 'arrays of base64 strings' : 'strings'})`,
        { fields: [`passages[${index}]`] },
      );
    }
    return isBytes ? passage.map((part) => new Uint8Array(Buffer.from(part, 'base64'))) : passage;
  });
  const result = await service.call(
    { ...engineFields(request), query: request.query, passages },
    withTimeout(options, request.timeout),
  );
  return {
    ...envelope(service.name, request.query, result),
    meta: { n_passages: passages.length },
  };
}

export async function fuse(
  core: AppCore,
  body: unknown,
  options?: CallOptions,
): Promise<Record<string, unknown>> {
  const request = parseRequest(fuseRequestSchema, body);
  const service = core.services.get('fuse', request.service);
  const { scores, ...rest } = engineFields(request);
  const result = await service.call(
    { ...rest, query: request.query, rankings: scores },
    withTimeout(options, request.timeout),
  );
  return envelope(service.name, request.query, result);
}

export async function decomposeQuery(
  core: AppCore,
  body: unknown,
  options?: CallOptions,
): Promise<Record<string, unknown>> {
  const request = parseRequest(decomposeRequestSchema, body);
  const service = core.services.get('decompose_query', request.service);
  const limit = checkLimit(core, request.limit, undefined);
  const fields = { ...engineFields(request), query: request.query };
  const result = await service.call(
    limit === undefined ? fields : { ...fields, limit },
    withTimeout(options, request.timeout),
  );
  return envelope(service.name, request.query, result, 'queries');
}

/** The availability listing (spec "Availability listing") plus additive keys. */
export function avail(core: AppCore): Record<string, unknown> {
  const collection: Record<string, unknown> = {};
  for (const name of core.collections.names()) {
    const c = core.collections.get(name);
    collection[name] = { views: { ...c.viewKinds }, default: c.defaultView };
  }
  const scoreViewKinds: Record<string, string> = {};
  for (const name of core.services.names('score'))
    scoreViewKinds[name] = core.services.get('score', name).inputKind;
  return {
    collection,
    content: core.collections.names(),
    decompose_query: core.services.names('decompose_query'),
    fuse: core.services.names('fuse'),
    pipeline_aliases: core.pipelines.aliases(),
    score: core.services.names('score'),
    score_view_kinds: scoreViewKinds,
    search: core.services.names('search'),
    // Additive: the collection each search service indexes, where its config names one.
    search_collections: { ...core.searchCollections },
    // Additive: services with the embed capabilities (`/embed`, `/v1/embeddings`, TEI).
    embed: core.services.names('embed'),
    embed_sparse: core.services.names('embed_sparse'),
    // Additive: tells an irserve front that it may send `POST /batch` (RoutIR ignores it).
    batch_endpoint: '/batch',
    // Additive: listed services whose back-end is unreachable now (they answer ERR_UPSTREAM).
    unavailable: unavailableServices(core.health()),
  };
}
