/**
 * The `RerankAPI` engine (score role): scores passages with a hosted or self-served rerank API
 * (Cohere, Jina, Voyage, Hugging Face TEI, vLLM). See docs/model-apis.md.
 */
import { z } from '../../prebundled/zod.js';
import { badRequest } from '../../errors.js';
import { BaseEngine, type BatchOptions, type EngineInit, type ScoreRequest } from '../contract.js';
import { apiConfigFields, httpOptions, parseApiConfig } from './api-config.js';
import { ApiHttpClient } from './api-http.js';
import { RERANK_FORMATS, RERANK_WIRES, rerankBody, rerankScores } from './rerank-formats.js';

const rerankConfigSchema = z
  .strictObject({
    ...apiConfigFields,
    model: z
      .string()
      .min(1)
      .optional()
      .describe('TEI serves one model and needs none; every other format requires it.'),
    api_format: z
      .enum(RERANK_FORMATS)
      .default('cohere')
      .describe('Wire format of the rerank API: cohere, jina, voyage, tei, vllm or vllm-score.'),
    path: z
      .string()
      .regex(/^\/[^?#]*$/, 'must start with "/"')
      .optional()
      .describe("Overrides the format's path (`/v2/rerank`, `/rerank`)."),
    max_documents_per_call: z
      .int()
      .min(1)
      .max(100_000)
      .optional()
      .describe('Longer passage lists are split into several calls and the scores merged.'),
    truncate: z
      .boolean()
      .default(true)
      .describe('Let the server cut long passages (TEI `truncate`, Voyage `truncation`).'),
    raw_scores: z.boolean().default(false).describe('TEI only: scores before the sigmoid.'),
  })
  .refine((config) => config.model !== undefined || config.api_format === 'tei', {
    path: ['model'],
    message: 'required for this api_format (only tei serves a single implicit model)',
    // Also when other fields fail, so that one start-up lists every problem.
    when: ({ value }) => typeof value === 'object' && value !== null,
  });

export type RerankApiConfig = z.output<typeof rerankConfigSchema>;

export class RerankAPI extends BaseEngine {
  static readonly configSchema = rerankConfigSchema;
  static readonly inputKind = 'text' as const;
  readonly settings: RerankApiConfig;
  readonly #http: ApiHttpClient;
  readonly #path: string;
  readonly #perCall: number;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parseApiConfig(rerankConfigSchema, init.config);
    const wire = RERANK_WIRES[this.settings.api_format];
    this.#http = new ApiHttpClient(httpOptions(this.settings, wire.provider, init));
    this.#path = this.settings.path ?? defaultPath(wire.path, this.settings.base_url);
    this.#perCall = this.settings.max_documents_per_call ?? wire.maxDocuments;
  }

  /** One call per query and chunk of `max_documents_per_call` passages, all in parallel. */
  async scoreBatch(requests: ScoreRequest[], options?: BatchOptions): Promise<number[][]> {
    const signal = options?.signal;
    return Promise.all(
      requests.map(async ({ query, passages }) => {
        const texts = passages.map((passage, i) => {
          if (typeof passage !== 'string') throw badRequest(`passages[${i}] must be text`);
          return passage;
        });
        const chunks: string[][] = [];
        for (let start = 0; start < texts.length; start += this.#perCall)
          chunks.push(texts.slice(start, start + this.#perCall));
        const scored = await Promise.all(chunks.map((chunk) => this.#call(query, chunk, signal)));
        return scored.flat();
      }),
    );
  }

  async close(): Promise<void> {
    await this.#http.close();
  }

  async #call(query: string, documents: string[], signal?: AbortSignal): Promise<number[]> {
    const { model, api_format, truncate, raw_scores } = this.settings;
    const body = rerankBody(api_format, {
      model,
      query,
      documents,
      truncate,
      rawScores: raw_scores,
    });
    const answer = await this.#http.postJson(this.#path, body, signal);
    const scores = rerankScores(answer, documents.length);
    if (typeof scores === 'string') throw this.#http.invalidAnswer(this.#path, scores);
    return scores;
  }
}

/** The format's path, without its `/v1` when the base URL already ends in a version. */
function defaultPath(path: string, baseUrl: string): string {
  const versioned = /\/v\d+\/?$/.test(new URL(baseUrl).pathname);
  return versioned ? path.replace(/^\/v\d+(?=\/)/, '') : path;
}
