/**
 * Query and passage encoding through Text Embeddings Inference's `/embed_sparse` (a SPLADE
 * model served by TEI with `--pooling splade`): `{"inputs": [...], "truncate": true}` answers
 * one list of `{"index": tokenId, "value": weight}` per input. Token ids become tokens through
 * the model's vocabulary (its tokenizer.json or vocab.txt).
 */
import { ApiHttpClient } from 'irserve';
import type { BatchOptions } from 'irserve/plugin';
import type { Logger } from 'pino';
import type { EncodeKind, SparseEncoder, SparseVector } from './types.js';

export interface TeiEncoderOptions {
  /** TEI's base URL, e.g. `http://gpu-1:8080`. */
  baseUrl: string;
  vocabulary: readonly string[];
  apiKey?: string | undefined;
  timeoutMs: number;
  retries: number;
  /** Keep the `maxTerms` highest weights of a query (all when undefined). */
  maxTerms?: number | undefined;
  service: string;
  logger?: Logger | undefined;
}

const PATH = '/embed_sparse';

export class TeiSparseEncoder implements SparseEncoder {
  readonly description: string;
  readonly #http: ApiHttpClient;
  readonly #options: TeiEncoderOptions;

  constructor(options: TeiEncoderOptions) {
    this.#options = options;
    this.description = `TEI /embed_sparse at ${options.baseUrl}`;
    this.#http = new ApiHttpClient({
      baseUrl: options.baseUrl,
      provider: 'Text Embeddings Inference /embed_sparse',
      service: options.service,
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs,
      retries: options.retries,
      logger: options.logger,
    });
  }

  vocabulary(): Promise<readonly string[]> {
    return Promise.resolve(this.#options.vocabulary);
  }

  /**
   * Encodes `texts` in one call.
   *
   * @example await encoder.encode(['what is splade'], 'query') // [{ what: 0.4, splade: 2.1, ... }]
   */
  async encode(texts: string[], kind: EncodeKind, options?: BatchOptions): Promise<SparseVector[]> {
    if (texts.length === 0) return [];
    const body = { inputs: texts, truncate: true };
    const answer = await this.#http.postJson(PATH, body, options?.signal);
    if (!Array.isArray(answer) || answer.length !== texts.length)
      throw this.#http.invalidAnswer(
        PATH,
        `${Array.isArray(answer) ? answer.length : 'no'} vectors for ${texts.length} inputs`,
      );
    return answer.map((entries: unknown, i) => {
      const vector = this.#vector(entries, i);
      return kind === 'query' ? topTerms(vector, this.#options.maxTerms) : vector;
    });
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  #vector(entries: unknown, row: number): SparseVector {
    if (!Array.isArray(entries)) throw this.#http.invalidAnswer(PATH, `a non-list at [${row}]`);
    const { vocabulary } = this.#options;
    const vector: SparseVector = Object.create(null) as SparseVector;
    for (const entry of entries as { index?: unknown; value?: unknown }[]) {
      const index = entry?.index;
      const value = entry?.value;
      if (
        !Number.isInteger(index) ||
        (index as number) < 0 ||
        (index as number) >= vocabulary.length
      )
        throw this.#http.invalidAnswer(
          PATH,
          `token id ${JSON.stringify(index)} outside the vocabulary of ${vocabulary.length} tokens at [${row}] (is vocab_path the served model's?)`,
        );
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
        throw this.#http.invalidAnswer(PATH, `weight ${JSON.stringify(value)} at [${row}]`);
      if (value > 0) vector[vocabulary[index as number]!] = value;
    }
    return vector;
  }
}

/**
 * The `maxTerms` highest-weighted terms of `vector` (RoutIR's `max_terms`); all when undefined.
 *
 * @example topTerms({ a: 1, b: 3, c: 2 }, 2) // { b: 3, c: 2 }
 */
export function topTerms(vector: SparseVector, maxTerms: number | undefined): SparseVector {
  const entries = Object.entries(vector);
  if (maxTerms === undefined || entries.length <= maxTerms) return vector;
  entries.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return Object.fromEntries<number>(entries.slice(0, maxTerms));
}
