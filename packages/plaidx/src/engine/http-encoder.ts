/**
 * A ColBERT token encoder behind HTTP, spoken in Text Embeddings Inference's wire format:
 * `POST <encoder_url>/embed_all` with `{"inputs": [...], "truncate": true}` answers one list
 * of token vectors per input. Retries, deadlines and error mapping are irserve's API client's.
 */
import { ApiHttpClient } from 'irserve';
import type { BatchOptions, EngineContext } from 'irserve/plugin';
import type { TokenMatrix } from '../search/query.js';
import type { PassageWindow, TokenEncoder } from './token-encoder.js';
import { textWindows } from './windows.js';

export interface HttpEncoderOptions {
  url: string;
  apiKey?: string | undefined;
  timeoutMs: number;
  retries: number;
  normalize: boolean;
  service: string;
  queryPrompt: string;
  passagePrompt: string;
  queryBatchSize: number;
  passageBatchSize: number;
  windowSize: number;
  windowStride: number;
  logger?: EngineContext['logger'] | undefined;
}

const PATH = '/embed_all';

export class HttpTokenEncoder implements TokenEncoder {
  readonly #http: ApiHttpClient;
  readonly #normalize: boolean;
  readonly #options: HttpEncoderOptions;

  constructor(options: HttpEncoderOptions) {
    this.#normalize = options.normalize;
    this.#options = options;
    this.#http = new ApiHttpClient({
      baseUrl: options.url,
      provider: 'ColBERT encoder (TEI /embed_all)',
      service: options.service,
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs,
      retries: options.retries,
      logger: options.logger,
    });
  }

  /** Queries through `query_prompt`, `inference_batch_size` per call. */
  encodeQueries(texts: readonly string[], options?: BatchOptions): Promise<TokenMatrix[]> {
    const prompt = this.#options.queryPrompt;
    return this.encode(
      texts.map((text) => prompt.split('{query}').join(text)),
      this.#options.queryBatchSize,
      options?.signal,
    );
  }

  /**
   * Passages in windows of `sliding_window_size` words, `sliding_window_stride` apart (no
   * tokenizer here), each through `passage_prompt`.
   */
  async encodePassages(texts: readonly string[], options?: BatchOptions): Promise<PassageWindow[]> {
    const { windowSize, windowStride, passagePrompt } = this.#options;
    const owners: number[] = [];
    const windows: string[] = [];
    texts.forEach((text, passage) => {
      if (text.trim() === '') return;
      for (const window of textWindows(text, windowSize, windowStride)) {
        windows.push(passagePrompt.split('{passage}').join(window));
        owners.push(passage);
      }
    });
    const matrices = await this.encode(windows, this.#options.passageBatchSize, options?.signal);
    return matrices.map((matrix, i) => ({ passage: owners[i]!, matrix }));
  }

  /**
   * Encodes `texts`, `batchSize` per call (calls run concurrently, bounded by the client).
   *
   * @example const [query] = await encoder.encode(['what is plaid'], 32)
   */
  async encode(
    texts: readonly string[],
    batchSize: number,
    signal?: AbortSignal,
  ): Promise<TokenMatrix[]> {
    const batches: Promise<TokenMatrix[]>[] = [];
    for (let i = 0; i < texts.length; i += batchSize)
      batches.push(this.#call(texts.slice(i, i + batchSize), signal));
    return (await Promise.all(batches)).flat();
  }

  /** Encodes a probe query: an HTTP encoder declares its dimension nowhere else. */
  async dimension(): Promise<number> {
    const [probe] = await this.encodeQueries(['dimension probe']);
    return probe!.dim;
  }

  async close(): Promise<void> {
    await this.#http.close();
  }

  async #call(inputs: string[], signal: AbortSignal | undefined): Promise<TokenMatrix[]> {
    const answer = await this.#http.postJson(PATH, { inputs, truncate: true }, signal);
    if (!Array.isArray(answer) || answer.length !== inputs.length)
      throw this.#http.invalidAnswer(
        PATH,
        `${Array.isArray(answer) ? answer.length : 'no'} token lists for ${inputs.length} inputs`,
      );
    return answer.map((tokens: unknown, i) => this.#matrix(tokens, i));
  }

  #matrix(tokens: unknown, index: number): TokenMatrix {
    const rows = Array.isArray(tokens) ? (tokens as unknown[]) : [];
    const dim = Array.isArray(rows[0]) ? rows[0].length : 0;
    if (rows.length === 0 || dim === 0)
      throw this.#http.invalidAnswer(PATH, `no token vectors for input ${index}`);
    const vectors = new Float32Array(rows.length * dim);
    rows.forEach((row, t) => {
      if (
        !Array.isArray(row) ||
        row.length !== dim ||
        !row.every((x) => typeof x === 'number' && Number.isFinite(x))
      )
        throw this.#http.invalidAnswer(
          PATH,
          `token ${t} of input ${index} that is not ${dim} finite numbers`,
        );
      let norm = 0;
      for (let j = 0; j < dim; j++) norm += (row[j] as number) ** 2;
      const scale = this.#normalize && norm > 0 ? 1 / Math.sqrt(norm) : 1;
      for (let j = 0; j < dim; j++) vectors[t * dim + j] = (row[j] as number) * scale;
    });
    return { vectors, length: rows.length, dim };
  }
}
