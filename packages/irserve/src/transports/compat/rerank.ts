/**
 * Cohere `POST /v1/rerank` and `/v2/rerank` and Jina `POST /v1/rerank` (one shape: `model`,
 * `query`, `documents` as strings or `{text}` objects, `top_n`, `return_documents`), served
 * by a score service or by a pipeline run as a reranker.
 */
import { randomUUID } from 'node:crypto';
import { z } from '../../prebundled/zod.js';
import type { AppCore } from '../../core/app-core.js';
import { parseRequest } from '../../core/validate.js';
import { badRequest } from '../../errors.js';
import type { CallOptions } from '../../registry/types.js';
import type { ModelCatalog, RerankModel } from './models.js';
import { approximateTokens } from './vectors.js';

/** Most documents one rerank call may carry (Cohere recommends at most 1,000). */
export const MAX_RERANK_DOCUMENTS = 10_000;

// Documents are bounded by `body_limit` (as `/score` passages are): no per-string check, which
// would triple the cost of parsing a request.
const document = z.union(
  [z.string(), z.looseObject({ text: z.string({ error: 'must be a string' }) })],
  { error: 'must be a string or an object with a "text" string' },
);

export const rerankRequestSchema = z.looseObject({
  model: z.string({ error: 'must be a string naming a model' }).min(1, 'must not be empty'),
  query: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(1_000_000, 'is too long (at most 1,000,000 characters)'),
  documents: z
    .array(document, { error: 'must be an array of strings or {"text": ...} objects' })
    .max(MAX_RERANK_DOCUMENTS, `has too many documents (at most ${MAX_RERANK_DOCUMENTS})`),
  top_n: z
    .number({ error: 'must be a positive integer' })
    .int('must be a positive integer')
    .positive('must be a positive integer')
    .optional(),
  return_documents: z.boolean({ error: 'must be true or false' }).optional(),
});

export type RerankVersion = 'v1' | 'v2';

/**
 * Scores of `texts` by position (`"0"`, `"1"`, ...); positions a pipeline's `%N` cut drops
 * are absent. Shared by the Cohere/Jina and TEI routes.
 */
export async function rerankTexts(
  core: AppCore,
  model: RerankModel,
  query: string,
  texts: readonly string[],
  options?: CallOptions,
): Promise<Map<number, number>> {
  const scores = new Map<number, number>();
  if (texts.length === 0) return scores;
  if (model.target.type === 'pipeline') {
    const byId = await core.pipelines.rerank(model.target.name, query, texts, options);
    for (const [id, score] of Object.entries(byId)) scores.set(Number(id), score);
    return scores;
  }
  const service = core.services.get('score', model.target.name);
  if (service.inputKind !== 'text')
    throw badRequest(
      `model: '${model.id}' scores ${service.inputKind} passages, and rerank documents are text`,
      { fields: ['model'] },
    );
  const result = await service.call({ query, passages: [...texts] }, options);
  result.value.forEach((score, index) => scores.set(index, score));
  return scores;
}

/** Best first; ties keep document order. */
export function ranked(scores: Map<number, number>): [number, number][] {
  return [...scores].sort(([ia, a], [ib, b]) => b - a || ia - ib);
}

/**
 * Answers one rerank body (v1: Cohere and Jina fields together; v2: Cohere's).
 *
 * @example
 * await rerank(core, models, { model: 'ce', query: 'q', documents: ['a', 'b'], top_n: 1 }, 'v2')
 * // { id, results: [{ index: 1, relevance_score: 0.9 }], meta: {...} }
 */
export async function rerank(
  core: AppCore,
  models: ModelCatalog,
  body: unknown,
  version: RerankVersion,
  options?: CallOptions,
): Promise<Record<string, unknown>> {
  const request = parseRequest(rerankRequestSchema, body);
  const model = models.rerank(request.model);
  const texts = request.documents.map((doc) => (typeof doc === 'string' ? doc : doc.text));
  const scores = await rerankTexts(core, model, request.query, texts, options);
  const results = ranked(scores)
    .slice(0, request.top_n ?? texts.length)
    .map(([index, relevance_score]) => ({
      index,
      relevance_score,
      ...(request.return_documents ? { document: { text: texts[index] } } : {}),
    }));
  const meta = {
    api_version: { version: version === 'v1' ? '1' : '2' },
    billed_units: { search_units: 1 },
  };
  if (version === 'v2') return { id: randomUUID(), results, meta };
  const tokens = texts.reduce((n, t) => n + approximateTokens(t), approximateTokens(request.query));
  return { id: randomUUID(), model: model.id, results, usage: { total_tokens: tokens }, meta };
}
