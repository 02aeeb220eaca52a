/**
 * Hugging Face Text Embeddings Inference routes: `POST /embed`, `/rerank`, `/embed_sparse`
 * (https://huggingface.github.io/text-embeddings-inference/). TEI serves one model per server,
 * so the routes carry no model name: `compat.tei` picks it. `/embed` and `/embed_sparse` are
 * also irserve's own routes; a body with `inputs` is TEI's, a body with `service` irserve's.
 */
import { z } from '../../prebundled/zod.js';
import type { AppCore } from '../../core/app-core.js';
import { embedTexts, vectorList } from '../../core/embed.js';
import { embedInputsSchema } from '../../core/embed-schemas.js';
import { parseRequest } from '../../core/validate.js';
import type { CallOptions } from '../../registry/types.js';
import type { ModelCatalog } from './models.js';
import { MAX_RERANK_DOCUMENTS, ranked, rerankTexts } from './rerank.js';
import { normalizeVector, truncateVector } from './vectors.js';

const inputs = embedInputsSchema();
/** TEI's `prompt_name`: `query` embeds as a query, any other name as a passage. */
const promptName = z.string({ error: 'must be a string' }).optional();

export const teiEmbedRequestSchema = z.looseObject({
  inputs,
  normalize: z.boolean({ error: 'must be true or false' }).default(true),
  truncate: z.boolean({ error: 'must be true or false' }).optional(),
  prompt_name: promptName,
  dimensions: z
    .number({ error: 'must be a positive integer' })
    .int('must be a positive integer')
    .positive('must be a positive integer')
    .optional(),
});

export const teiRerankRequestSchema = z.looseObject({
  query: z.string({ error: 'must be a string' }).max(1_000_000),
  // Bounded by `body_limit`, as `/score` passages are (a per-string check triples the parse).
  texts: z
    .array(z.string(), { error: 'must be an array of strings' })
    .max(MAX_RERANK_DOCUMENTS, `has too many texts (at most ${MAX_RERANK_DOCUMENTS})`),
  raw_scores: z.boolean({ error: 'must be true or false' }).optional(),
  return_text: z.boolean({ error: 'must be true or false' }).default(false),
  truncate: z.boolean({ error: 'must be true or false' }).optional(),
});

export const teiSparseRequestSchema = z.looseObject({ inputs, prompt_name: promptName });

const list = (value: string | string[]) => (typeof value === 'string' ? [value] : value);

/** TEI `/embed`: a list of vectors, unit length unless `normalize` is false. */
export async function teiEmbed(
  core: AppCore,
  models: ModelCatalog,
  body: unknown,
  options?: CallOptions,
) {
  const request = parseRequest(teiEmbedRequestSchema, body);
  const model = models.embedding(models.teiModel('embed'));
  const kind = request.prompt_name === 'query' ? 'query' : model.kind;
  const texts = list(request.inputs);
  const { vectors } = await embedTexts(
    core,
    'embed',
    texts,
    { service: model.service, kind },
    options,
  );
  return vectors.map((vector) => {
    const dims = request.dimensions;
    if (dims !== undefined && dims < vector.length && model.matryoshka)
      return vectorList(truncateVector(vector, dims));
    return vectorList(request.normalize ? normalizeVector(vector) : vector);
  });
}

/** TEI `/rerank`: `[{index, score, text?}]`, best first. */
export async function teiRerank(
  core: AppCore,
  models: ModelCatalog,
  body: unknown,
  options?: CallOptions,
) {
  const request = parseRequest(teiRerankRequestSchema, body);
  const model = models.rerank(models.teiModel('rerank'));
  const scores = await rerankTexts(core, model, request.query, request.texts, options);
  return ranked(scores).map(([index, score]) => ({
    index,
    score,
    ...(request.return_text ? { text: request.texts[index] } : {}),
  }));
}

/** TEI `/embed_sparse`: per input, the non-zero `{index, value}` pairs. */
export async function teiEmbedSparse(
  core: AppCore,
  models: ModelCatalog,
  body: unknown,
  options?: CallOptions,
) {
  const request = parseRequest(teiSparseRequestSchema, body);
  const model = models.embedding(models.teiModel('embed_sparse'), 'sparse_embeddings');
  const kind = request.prompt_name === 'query' ? 'query' : model.kind;
  const texts = list(request.inputs);
  const { vectors } = await embedTexts(
    core,
    'embed_sparse',
    texts,
    { service: model.service, kind },
    options,
  );
  return vectors.map(({ indices, values }) =>
    indices.map((index, i) => ({ index, value: values[i] ?? 0 })),
  );
}
