/**
 * The `OpenAIEmbeddingScorer` engine (score role): cosine similarity of query and passage
 * embeddings from an OpenAI-compatible `/embeddings` endpoint. Every distinct text of a batch
 * (queries and passages together) is embedded in one call. See docs/model-apis.md.
 */
import { z } from '../../prebundled/zod.js';
import { badRequest } from '../../errors.js';
import { BaseEngine, type BatchOptions, type EngineInit, type ScoreRequest } from '../contract.js';
import { apiConfigFields, httpOptions, parseApiConfig } from './api-config.js';
import { OpenAIEmbeddingsClient } from './openai-embeddings.js';

const embeddingScorerConfigSchema = z.strictObject({
  ...apiConfigFields,
  dimensions: z
    .int()
    .min(1)
    .max(65_536)
    .optional()
    .describe('Shorter vectors, for models that support it (OpenAI text-embedding-3).'),
  query_prefix: z
    .string()
    .default('')
    .describe("Prepended to queries and passages (E5: 'query: ' / 'passage: ')."),
  passage_prefix: z.string().default('').describe('Prepended to passages.'),
  max_inputs_per_call: z
    .int()
    .min(1)
    .max(100_000)
    .default(2048)
    .describe('Larger batches are split (OpenAI accepts 2048 inputs per call).'),
});

export type EmbeddingScorerConfig = z.output<typeof embeddingScorerConfigSchema>;

export class OpenAIEmbeddingScorer extends BaseEngine {
  static readonly configSchema = embeddingScorerConfigSchema;
  static readonly inputKind = 'text' as const;
  readonly settings: EmbeddingScorerConfig;
  readonly #client: OpenAIEmbeddingsClient;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parseApiConfig(embeddingScorerConfigSchema, init.config);
    const { model, dimensions } = this.settings;
    const options = httpOptions(this.settings, 'OpenAI-compatible embeddings API', init);
    this.#client = new OpenAIEmbeddingsClient({ ...options, model, dimensions });
  }

  async scoreBatch(requests: ScoreRequest[], options?: BatchOptions): Promise<number[][]> {
    const { query_prefix, passage_prefix } = this.settings;
    const slots = new Map<string, number>();
    // Empty texts are not sent (OpenAI rejects them); their similarity is 0.
    const slot = (text: string) => {
      if (text === '') return -1;
      let index = slots.get(text);
      if (index === undefined) slots.set(text, (index = slots.size));
      return index;
    };
    const layout = requests.map(({ query, passages }) => ({
      query: slot(query === '' ? '' : query_prefix + query),
      passages: passages.map((passage, i) => {
        if (typeof passage !== 'string') throw badRequest(`passages[${i}] must be text`);
        return slot(passage === '' ? '' : passage_prefix + passage);
      }),
    }));
    const vectors = await this.#embed([...slots.keys()], options?.signal);
    return layout.map(({ query, passages }) =>
      passages.map((passage) => cosine(vectors[query], vectors[passage])),
    );
  }

  async close(): Promise<void> {
    await this.#client.close();
  }

  /** Unit vectors for `texts`, one call per `max_inputs_per_call` texts. */
  async #embed(texts: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const size = this.settings.max_inputs_per_call;
    const chunks: string[][] = [];
    for (let start = 0; start < texts.length; start += size)
      chunks.push(texts.slice(start, start + size));
    const embedded = await Promise.all(chunks.map((chunk) => this.#client.embed(chunk, signal)));
    return embedded.flat().map(normalise);
  }
}

function normalise(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}

/** Dot product of unit vectors; 0 when either text was empty. */
function cosine(a: Float32Array | undefined, b: Float32Array | undefined): number {
  if (!a || !b) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}
