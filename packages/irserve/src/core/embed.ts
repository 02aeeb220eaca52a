/**
 * Embedding calls, transport-neutral: a list of texts to one vector each through an `embed`
 * (or `embed_sparse`) service. Every text is its own service call, so a burst of requests is
 * batched and cached text by text, like `/search` calls (DESIGN section 4).
 */
import type { EmbedKind, SparseVector } from '../engines/contract.js';
import { badRequest } from '../errors.js';
import type { CallOptions, ServiceResult } from '../registry/types.js';
import type { AppCore } from './app-core.js';

/** Most texts one request may embed (OpenAI's limit). */
export const MAX_EMBED_INPUTS = 2048;

/** What an embedding call needs besides the texts. */
export interface EmbedTarget {
  /** The embed service. */
  service: string;
  kind: EmbedKind;
  /** Extra request fields for the engine (everything but the texts). */
  fields?: Record<string, unknown>;
}

export interface Embedded<V> {
  vectors: V[];
  /** True when every vector came from the cache. */
  cached: boolean;
  /** The latest computation time among the vectors (Unix seconds). */
  timestamp: number;
  service: string;
}

type EmbedCapability = 'embed' | 'embed_sparse';
type VectorOf<C extends EmbedCapability> = C extends 'embed' ? Float32Array : SparseVector;

/**
 * Embeds `texts` in order through the service named by `target`. Throws ERR_SERVICE_NOT_FOUND
 * when no such service has the capability, ERR_BAD_REQUEST for an empty or oversized list.
 *
 * @example
 * const { vectors } = await embedTexts(core, 'embed', ['cats', 'dogs'], { service: 'e5', kind: 'passage' });
 */
export async function embedTexts<C extends EmbedCapability>(
  core: AppCore,
  capability: C,
  texts: readonly string[],
  target: EmbedTarget,
  options?: CallOptions,
): Promise<Embedded<VectorOf<C>>> {
  const service = core.services.get(capability, target.service);
  if (texts.length === 0) throw badRequest('input: must not be empty', { fields: ['input'] });
  if (texts.length > MAX_EMBED_INPUTS)
    throw badRequest(`input: at most ${MAX_EMBED_INPUTS} texts per request`, {
      fields: ['input'],
    });
  const fields = target.fields ?? {};
  const results = new Array<ServiceResult<VectorOf<C>>>(texts.length);
  const pending: Promise<void>[] = [];
  texts.forEach((text, index) => {
    const request = { ...fields, text, kind: target.kind };
    // In-process cache hits are answered at once; the misses go to the processor together.
    const hit = service.cachedNow?.(request);
    if (hit !== undefined) results[index] = hit as ServiceResult<VectorOf<C>>;
    else
      pending.push(
        service.call(request, options).then((result) => {
          results[index] = result as ServiceResult<VectorOf<C>>;
        }),
      );
  });
  await Promise.all(pending);
  return summarize(results, service.name);
}

function summarize<V>(results: ServiceResult<V>[], service: string): Embedded<V> {
  let cached = true;
  let timestamp = 0;
  const vectors = results.map((result) => {
    cached &&= result.cached;
    timestamp = Math.max(timestamp, result.timestamp);
    return result.value;
  });
  return { vectors, cached, timestamp, service };
}

/** A vector as little-endian float32 bytes in base64 (OpenAI's `encoding_format: "base64"`). */
export function vectorBase64(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
}

/** A vector as a plain list of numbers (for JSON). */
export function vectorList(vector: Float32Array): number[] {
  return Array.from(vector);
}
