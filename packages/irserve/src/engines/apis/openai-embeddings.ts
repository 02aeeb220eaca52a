/**
 * Client for an OpenAI-compatible `/embeddings` endpoint (OpenAI, vLLM, TEI, Ollama, LiteLLM,
 * llama.cpp). Shared by the `OpenAIEmbeddingScorer` engine and `@irserve/dense`.
 */
import type { Logger } from 'pino';
import { ApiHttpClient } from './api-http.js';

export interface EmbeddingsClientOptions {
  /** Base URL including the API version, e.g. `http://gpu-1:8000/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Deadline of one attempt (default 60 s). */
  timeoutMs?: number;
  /** Attempts after the first (default 3). */
  retries?: number;
  /** Asks the API for shorter vectors (models that support it) and checks the answer has them. */
  dimensions?: number;
  /** Named in error messages; default `OpenAI-compatible embeddings API`. */
  provider?: string;
  /** The irserve service, named in error messages. */
  service?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Longest wait a `Retry-After` may impose (default 10 s). */
  maxRetryWaitMs?: number;
  /** Calls in flight at once (default 8). */
  concurrency?: number;
  logger?: Logger;
}

const PATH = '/embeddings';

export class OpenAIEmbeddingsClient {
  readonly #http: ApiHttpClient;
  readonly #model: string;
  readonly #dimensions: number | undefined;

  constructor(options: EmbeddingsClientOptions) {
    this.#model = options.model;
    this.#dimensions = options.dimensions;
    this.#http = new ApiHttpClient({
      baseUrl: options.baseUrl,
      provider: options.provider ?? 'OpenAI-compatible embeddings API',
      service: options.service,
      apiKey: options.apiKey,
      headers: options.headers,
      timeoutMs: options.timeoutMs ?? 60_000,
      retries: options.retries ?? 3,
      maxRetryWaitMs: options.maxRetryWaitMs,
      concurrency: options.concurrency,
      logger: options.logger,
    });
  }

  /**
   * Embeds `texts` with one POST; vectors come back in input order (the answer's `index`
   * decides, not its order). An answer with the wrong count or dimension is ERR_UPSTREAM.
   * `signal` stops the call when nobody waits for it any more (see ApiHttpClient.postJson).
   *
   * @example
   * const client = new OpenAIEmbeddingsClient({ baseUrl: 'http://localhost:8000/v1', model: 'e5' });
   * const [q, d] = await client.embed(['query: cats', 'passage: a cat sat']);
   */
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const body: Record<string, unknown> = { model: this.#model, input: texts };
    if (this.#dimensions !== undefined) body.dimensions = this.#dimensions;
    const answer = await this.#http.postJson(PATH, body, signal);
    return this.#vectors(answer, texts.length);
  }

  async close(): Promise<void> {
    await this.#http.close();
  }

  #vectors(answer: unknown, count: number): Float32Array[] {
    const data = (answer as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw this.#invalid('no `data` list');
    if (data.length !== count) throw this.#invalid(`${data.length} embeddings for ${count} inputs`);
    const out: (Float32Array | undefined)[] = new Array<Float32Array | undefined>(count);
    let dimension = this.#dimensions;
    for (const [position, item] of data.entries()) {
      const { index = position, embedding } = (item ?? {}) as {
        index?: unknown;
        embedding?: unknown;
      };
      if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count)
        throw this.#invalid(`an embedding with index ${String(index)} for ${count} inputs`);
      if (out[index as number]) throw this.#invalid(`two embeddings with index ${String(index)}`);
      const vector = toVector(embedding);
      if (!vector) throw this.#invalid(`embedding ${String(index)} that is not a list of numbers`);
      dimension ??= vector.length;
      if (vector.length !== dimension || dimension === 0)
        throw this.#invalid(
          `embedding ${String(index)} of dimension ${vector.length}, not ${dimension}`,
        );
      out[index as number] = vector;
    }
    return out as Float32Array[];
  }

  #invalid(problem: string) {
    return this.#http.invalidAnswer(PATH, problem);
  }
}

/** A vector from a JSON list of numbers or a base64 string of little-endian float32s. */
function toVector(value: unknown): Float32Array | undefined {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length % 4 !== 0) return undefined;
    const vector = new Float32Array(bytes.length / 4);
    for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
    return vector;
  }
  if (!Array.isArray(value) || !value.every((x) => typeof x === 'number' && Number.isFinite(x)))
    return undefined;
  return Float32Array.from(value as number[]);
}
