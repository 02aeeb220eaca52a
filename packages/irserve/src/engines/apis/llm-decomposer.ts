/**
 * The `LLMDecomposer` engine (decompose_query role): a chat model turns a query into at most
 * `limit` sub-queries. Any answer is read robustly (decompose-parse.ts); one with nothing
 * usable gives `[query]`, never an error. See docs/model-apis.md.
 */
import { z } from '../../prebundled/zod.js';
import {
  BaseEngine,
  type BatchOptions,
  type DecomposeRequest,
  type EngineInit,
} from '../contract.js';
import { httpOptions, parseApiConfig } from './api-config.js';
import { ApiHttpClient } from './api-http.js';
import { ChatClient, chatConfigFields, promptTemplate } from './chat-client.js';
import { parseSubQueries } from './decompose-parse.js';
import { fillTemplate } from './prompt.js';

export const DEFAULT_DECOMPOSE_PROMPT = `Break the search query below into at most {limit} short, self-contained search queries, the kind a person types into a search engine, that together cover what the query asks.

Query: {query}

Return a JSON array of strings and nothing else.`;

const llmDecomposerConfigSchema = z.strictObject({
  ...chatConfigFields,
  prompt: promptTemplate(DEFAULT_DECOMPOSE_PROMPT, ['query']).describe(
    "`{query}` is required; `{limit}` is replaced by the request's limit.",
  ),
  limit: z
    .int()
    .min(1)
    .max(1000)
    .default(10)
    .describe('Sub-queries when a request gives no `limit`.'),
  max_tokens: z.int().min(1).max(32_768).default(512).describe('Tokens the model may generate.'),
});

export type LlmDecomposerConfig = z.output<typeof llmDecomposerConfigSchema>;

export class LLMDecomposer extends BaseEngine {
  static readonly configSchema = llmDecomposerConfigSchema;
  readonly settings: LlmDecomposerConfig;
  readonly #chat: ChatClient;
  readonly #params: Record<string, unknown>;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parseApiConfig(llmDecomposerConfigSchema, init.config);
    const http = new ApiHttpClient(httpOptions(this.settings, 'OpenAI-compatible chat API', init));
    this.#chat = new ChatClient(http, this.settings.model, this.settings.system_prompt);
    this.#params = { temperature: 0, ...this.settings.request_kwargs };
    this.#params.max_tokens = this.settings.max_tokens;
  }

  /** One chat call per query of the batch, `concurrency` at a time. */
  async decomposeQueryBatch(
    requests: DecomposeRequest[],
    options?: BatchOptions,
  ): Promise<string[][]> {
    const signal = options?.signal;
    return Promise.all(requests.map((request) => this.#decompose(request, signal)));
  }

  async close(): Promise<void> {
    await this.#chat.close();
  }

  async #decompose(
    { query, limit = this.settings.limit }: DecomposeRequest,
    signal: AbortSignal | undefined,
  ): Promise<string[]> {
    const prompt = fillTemplate(this.settings.prompt, { query, limit: String(limit) });
    const { text } = await this.#chat.complete(prompt, this.#params, signal);
    const queries = parseSubQueries(text, limit);
    return queries.length > 0 ? queries : [query];
  }
}
