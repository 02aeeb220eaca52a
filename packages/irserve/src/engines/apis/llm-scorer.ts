/**
 * The `LLMScorer` engine (score role, pointwise): a chat model judges each (query, passage) pair
 * with a yes/no prompt; the score is p(yes) / (p(yes) + p(no)) from the first token's logprobs,
 * or read from the answer text when the server returns none. See docs/model-apis.md.
 */
import { z } from '../../prebundled/zod.js';
import { badRequest } from '../../errors.js';
import {
  BaseEngine,
  type BatchOptions,
  type EngineInit,
  type Passage,
  type ScoreRequest,
} from '../contract.js';
import { httpOptions, parseApiConfig } from './api-config.js';
import { ApiHttpClient } from './api-http.js';
import { ChatClient, chatConfigFields, promptTemplate } from './chat-client.js';
import { fillTemplate } from './prompt.js';
import { yesNoScore } from './yes-no.js';

export const DEFAULT_SCORE_PROMPT = `Judge whether the passage is relevant to the search query. Answer with only "Yes" or "No".

Query: {query}

Passage: {passage}

Is the passage relevant to the query?`;

const llmScorerConfigSchema = z.strictObject({
  ...chatConfigFields,
  prompt: promptTemplate(DEFAULT_SCORE_PROMPT, ['query', 'passage']).describe(
    'Prompt template; {query} and {passage} are replaced.',
  ),
  yes_token: z.string().min(1).default('Yes').describe('The answer token that means relevant.'),
  no_token: z.string().min(1).default('No').describe('The answer token that means not relevant.'),
  logprobs: z
    .boolean()
    .default(true)
    .describe("Ask for the first token's top-20 logprobs (turn off for servers that reject them)."),
  max_tokens: z.int().min(1).max(4096).default(1).describe('Tokens the model may generate.'),
  max_passage_chars: z
    .int()
    .min(1)
    .optional()
    .describe('Passages are cut to this many characters before they reach the prompt.'),
  text_score_max: z
    .number()
    .positive()
    .default(1)
    .describe('Without logprobs, a number in the answer is divided by this (a 0-10 prompt: 10).'),
});

export type LlmScorerConfig = z.output<typeof llmScorerConfigSchema>;

export class LLMScorer extends BaseEngine {
  static readonly configSchema = llmScorerConfigSchema;
  static readonly inputKind = 'text' as const;
  readonly settings: LlmScorerConfig;
  readonly #chat: ChatClient;
  readonly #params: Record<string, unknown>;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parseApiConfig(llmScorerConfigSchema, init.config);
    const http = new ApiHttpClient(httpOptions(this.settings, 'OpenAI-compatible chat API', init));
    this.#chat = new ChatClient(http, this.settings.model, this.settings.system_prompt);
    const { logprobs, max_tokens, request_kwargs } = this.settings;
    // Greedy by default: a judgement should not change between identical calls.
    this.#params = {
      temperature: 0,
      ...request_kwargs,
      max_tokens,
      ...(logprobs ? { logprobs: true, top_logprobs: 20 } : {}),
    };
  }

  /** One chat call per distinct (query, passage) pair of the batch, `concurrency` at a time. */
  async scoreBatch(requests: ScoreRequest[], options?: BatchOptions): Promise<number[][]> {
    const signal = options?.signal;
    const judged = new Map<string, Promise<number>>();
    const judge = (query: string, passage: Passage, index: number): Promise<number> => {
      if (typeof passage !== 'string') throw badRequest(`passages[${index}] must be text`);
      const key = JSON.stringify([query, passage]);
      let score = judged.get(key);
      if (!score) judged.set(key, (score = this.#judge(query, passage, signal)));
      return score;
    };
    return Promise.all(
      requests.map(({ query, passages }) =>
        Promise.all(passages.map((passage, i) => judge(query, passage, i))),
      ),
    );
  }

  async close(): Promise<void> {
    await this.#chat.close();
  }

  async #judge(query: string, passage: string, signal?: AbortSignal): Promise<number> {
    const { prompt, max_passage_chars, yes_token, no_token, text_score_max } = this.settings;
    const text = max_passage_chars === undefined ? passage : passage.slice(0, max_passage_chars);
    const answer = await this.#chat.complete(
      fillTemplate(prompt, { query, passage: text }),
      this.#params,
      signal,
    );
    return yesNoScore(answer, { yes: yes_token, no: no_token, textScoreMax: text_score_max });
  }
}
