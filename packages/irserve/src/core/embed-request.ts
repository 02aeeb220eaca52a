/**
 * irserve's own `/embed` and `/embed_sparse`: `{service, input, kind?, encoding_format?}` to
 * one vector per input, with the envelope fields of the other routes.
 */
import { z } from '../prebundled/zod.js';
import type { CallOptions } from '../registry/types.js';
import type { AppCore } from './app-core.js';
import { embedTexts, vectorBase64, vectorList } from './embed.js';
import { embedInputsSchema, encodingFormatSchema } from './embed-schemas.js';
import { parseRequest } from './validate.js';

/** Fields irserve reads; every other field reaches the engine, as on `/search`. */
export const embedRequestSchema = z.looseObject({
  service: z.string({ error: 'must be a string naming a service' }).min(1, 'must not be empty'),
  input: embedInputsSchema(),
  /** Whether the texts are queries or passages (the engine applies its prompts); default passage. */
  kind: z.enum(['query', 'passage'], { error: 'must be "query" or "passage"' }).default('passage'),
  /** `float` (lists of numbers, default) or `base64` (little-endian float32 bytes). */
  encoding_format: encodingFormatSchema.optional(),
});

function parse(body: unknown) {
  const { service, input, kind, encoding_format, ...fields } = parseRequest(
    embedRequestSchema,
    body,
  );
  return {
    service,
    texts: typeof input === 'string' ? [input] : input,
    kind,
    encoding_format,
    fields,
  };
}

/**
 * `POST /embed` with a `service`: dense vectors through the service's processor.
 *
 * @example
 * await embed(core, { service: 'e5', input: ['cats'], kind: 'query' })
 * // { cached: false, processed: true, service: 'e5', kind: 'query', dimensions: 384, embeddings: [[...]], timestamp }
 */
export async function embed(
  core: AppCore,
  body: unknown,
  options?: CallOptions,
): Promise<Record<string, unknown>> {
  const { service, texts, kind, encoding_format, fields } = parse(body);
  const result = await embedTexts(core, 'embed', texts, { service, kind, fields }, options);
  const encode = (vector: Float32Array): string | number[] =>
    encoding_format === 'base64' ? vectorBase64(vector) : vectorList(vector);
  return {
    cached: result.cached,
    processed: true,
    service: result.service,
    kind,
    dimensions: result.vectors[0]?.length ?? 0,
    embeddings: result.vectors.map(encode),
    timestamp: result.timestamp,
  };
}

/** `POST /embed_sparse` with a `service`: `{indices, values}` per input. */
export async function embedSparse(
  core: AppCore,
  body: unknown,
  options?: CallOptions,
): Promise<Record<string, unknown>> {
  const { service, texts, kind, fields } = parse(body);
  const result = await embedTexts(core, 'embed_sparse', texts, { service, kind, fields }, options);
  return {
    cached: result.cached,
    processed: true,
    service: result.service,
    kind,
    embeddings: result.vectors,
    timestamp: result.timestamp,
  };
}
