/**
 * A thin client for an OpenAI-compatible `/chat/completions` endpoint (OpenAI, vLLM, SGLang,
 * Ollama, LiteLLM, llama.cpp), and the config fields shared by the engines that use one.
 */
import { z } from '../../prebundled/zod.js';
import { apiConfigFields } from './api-config.js';
import type { ApiHttpClient } from './api-http.js';
import { missingPlaceholders } from './prompt.js';

const PATH = '/chat/completions';

/** A candidate token and its log-probability, as in `logprobs.content[0].top_logprobs`. */
export interface TokenLogprob {
  token: string;
  logprob: number;
}

export interface ChatAnswer {
  /** The first choice's text ('' when the model sent none). */
  text: string;
  /** Alternatives for the first generated token, when the server returned logprobs. */
  topLogprobs: TokenLogprob[] | undefined;
}

/** Chat fields on top of the shared API fields. */
export const chatConfigFields = {
  ...apiConfigFields,
  system_prompt: z
    .string()
    .min(1)
    .optional()
    .describe('Sent as a system message before the prompt.'),
  request_kwargs: z
    .record(z.string(), z.unknown())
    .default({})
    .describe('Extra body fields (`temperature`, `seed`, `chat_template_kwargs`, ...).'),
};

/** A zod check that a prompt template has every placeholder in `required`. */
export function promptTemplate(fallback: string, required: readonly string[]) {
  return z
    .string()
    .min(1)
    .default(fallback)
    .refine((template) => missingPlaceholders(template, required).length === 0, {
      message: `must contain ${required.map((name) => `{${name}}`).join(' and ')}`,
    });
}

/** The parts of a choice we read; every field may be missing or of the wrong type. */
interface Choice {
  message?: { content?: unknown } | null;
  text?: unknown;
  logprobs?: { content?: { top_logprobs?: unknown }[] | null } | null;
}

export class ChatClient {
  readonly #http: ApiHttpClient;
  readonly #model: string;
  readonly #systemPrompt: string | undefined;

  constructor(http: ApiHttpClient, model: string, systemPrompt?: string) {
    this.#http = http;
    this.#model = model;
    this.#systemPrompt = systemPrompt;
  }

  /**
   * Sends `prompt` as the user message; `params` are further body fields. Our `model`,
   * `messages` and `stream: false` (the answer is read as one JSON body) win over `params`.
   * `signal` stops the call when nobody waits for it any more (see ApiHttpClient.postJson).
   *
   * @example
   * const { text } = await chat.complete('Say hi', { max_tokens: 5 });
   */
  async complete(
    prompt: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ChatAnswer> {
    const messages = this.#systemPrompt
      ? [
          { role: 'system', content: this.#systemPrompt },
          { role: 'user', content: prompt },
        ]
      : [{ role: 'user', content: prompt }];
    const answer = await this.#http.postJson(
      PATH,
      {
        ...params,
        model: this.#model,
        messages,
        stream: false,
      },
      signal,
    );
    return this.#parse(answer);
  }

  async close(): Promise<void> {
    await this.#http.close();
  }

  #parse(answer: unknown): ChatAnswer {
    const choices = (answer as { choices?: unknown } | null)?.choices;
    const choice = Array.isArray(choices) ? (choices[0] as Choice | null | undefined) : undefined;
    if (!choice || typeof choice !== 'object') throw this.#http.invalidAnswer(PATH, 'no `choices`');
    const content = choice.message?.content ?? choice.text ?? '';
    if (typeof content !== 'string')
      throw this.#http.invalidAnswer(PATH, 'a message whose content is not text');
    const top = choice.logprobs?.content?.[0]?.top_logprobs;
    const topLogprobs = Array.isArray(top)
      ? top.filter(
          (item): item is TokenLogprob =>
            typeof item?.token === 'string' && typeof item?.logprob === 'number',
        )
      : undefined;
    return { text: content, topLogprobs };
  }
}
