/**
 * OpenAI `POST /v1/embeddings` and `GET /v1/models` (https://platform.openai.com/docs/api-reference/embeddings),
 * served from embed services through their processors (batched and cached per text).
 */
import { z } from '../../prebundled/zod.js';
import type { AppCore } from '../../core/app-core.js';
import { embedTexts, vectorBase64, vectorList } from '../../core/embed.js';
import { embedInputsSchema, encodingFormatSchema } from '../../core/embed-schemas.js';
import { parseRequest } from '../../core/validate.js';
import type { EmbedKind } from '../../engines/contract.js';
import { badRequest } from '../../errors.js';
import { INPUT_TYPES } from './input-kind.js';
import type { EmbeddingModel, ModelCatalog } from './models.js';
import { approximateTokens, truncateVector } from './vectors.js';

/** The request body; unknown fields (`user`) are accepted and ignored, as OpenAI does. */
export const openAiEmbeddingsRequestSchema = z.looseObject({
  model: z.string({ error: 'must be a string naming a model' }).min(1, 'must not be empty'),
  input: embedInputsSchema(),
  encoding_format: encodingFormatSchema.optional(),
  dimensions: z
    .number({ error: 'must be a positive integer' })
    .int('must be a positive integer')
    .positive('must be a positive integer')
    .optional(),
  /** irserve extension: embed as a query or a passage (Cohere, Voyage and Jina spellings too). */
  input_type: z
    .enum(Object.keys(INPUT_TYPES) as [string, ...string[]], {
      error: `must be one of ${Object.keys(INPUT_TYPES).join(', ')}`,
    })
    .optional(),
});

/** Token arrays (what tiktoken-based clients send) cannot be embedded without the model's vocabulary. */
function rejectTokenArrays(body: unknown): void {
  const input = (body as { input?: unknown } | null)?.input;
  if (Array.isArray(input) && input.some((item) => typeof item === 'number' || Array.isArray(item)))
    throw badRequest(
      'input: token arrays are not supported; send text (in LangChain set check_embedding_ctx_length=False)',
      { fields: ['input'] },
    );
}

function sized(model: EmbeddingModel, vector: Float32Array, dimensions: number | undefined) {
  if (dimensions === undefined || dimensions === vector.length) return vector;
  if (!model.matryoshka)
    throw badRequest(
      `dimensions: model '${model.id}' gives ${vector.length}-dimensional vectors and was not declared Matryoshka (compat.embeddings.${model.id}.matryoshka)`,
      { fields: ['dimensions'] },
    );
  if (dimensions > vector.length)
    throw badRequest(`dimensions: model '${model.id}' gives at most ${vector.length}`, {
      fields: ['dimensions'],
    });
  return truncateVector(vector, dimensions);
}

/**
 * Answers one `/v1/embeddings` body.
 *
 * @example
 * await openAiEmbeddings(core, models, { model: 'e5', input: ['a', 'b'] })
 * // { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [...] }, ...], model: 'e5', usage }
 */
export async function openAiEmbeddings(
  core: AppCore,
  models: ModelCatalog,
  body: unknown,
  options?: Parameters<typeof embedTexts>[4],
): Promise<Record<string, unknown>> {
  rejectTokenArrays(body);
  const request = parseRequest(openAiEmbeddingsRequestSchema, body);
  const model = models.embedding(request.model);
  const texts = typeof request.input === 'string' ? [request.input] : request.input;
  const kind: EmbedKind =
    request.input_type !== undefined ? INPUT_TYPES[request.input_type]! : model.kind;
  const { vectors } = await embedTexts(
    core,
    'embed',
    texts,
    { service: model.service, kind },
    options,
  );
  const base64 = request.encoding_format === 'base64';
  const data = vectors.map((vector, index) => {
    const out = sized(model, vector, request.dimensions);
    return { object: 'embedding', index, embedding: base64 ? vectorBase64(out) : vectorList(out) };
  });
  const tokens = texts.reduce((sum, t) => sum + approximateTokens(t), 0);
  return {
    object: 'list',
    data,
    model: model.id,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
