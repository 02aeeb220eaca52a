/**
 * A stand-in for an OpenAI-compatible embeddings API (`POST /v1/embeddings`), answering with
 * `bagOfWords` vectors: what an engine that calls an embeddings API is tested against.
 */
import { bagOfWords } from './models.js';
import { startStandIn } from './stand-in.js';

export interface EmbeddingsCall {
  input: string[];
  model: string;
  authorization: string | undefined;
}

export interface EmbeddingsStandIn {
  /** The API's base URL, `http://127.0.0.1:<port>/v1` (what `embedding_base_url` takes). */
  url: string;
  calls: EmbeddingsCall[];
  /** Answers the next requests with this status (and an OpenAI-style error) instead of vectors. */
  failWith(status: number | undefined): void;
  /** Answers with vectors of another length (a model/index mismatch). */
  setDim(dim: number): void;
  /** Exact vectors for some texts (to replay queries whose answers another system recorded). */
  overrides: Map<string, number[]>;
  close(): Promise<void>;
}

/**
 * Starts the stand-in; its vectors are `bagOfWords(text, dim)`, in reverse order of the inputs
 * (each with its `index`, as the API allows: clients must order by `index`).
 *
 * @example
 * const api = await startEmbeddingsStandIn(64);
 * const config = { embedding_base_url: api.url, embedding_model_name: 'bag-of-words' };
 */
export async function startEmbeddingsStandIn(initialDim: number): Promise<EmbeddingsStandIn> {
  const calls: EmbeddingsCall[] = [];
  const overrides = new Map<string, number[]>();
  let failure: number | undefined;
  let dim = initialDim;
  const server = await startStandIn(({ body, headers }) => {
    const { input, model } = body as { input: string[]; model: unknown };
    calls.push({ input, model: String(model), authorization: headers.authorization });
    if (failure !== undefined)
      return { status: failure, body: { error: { message: 'model overloaded' } } };
    const data = input
      .map((text, index) => ({
        object: 'embedding',
        index,
        embedding: overrides.get(text) ?? [...bagOfWords(text, dim)],
      }))
      .reverse();
    return { body: { object: 'list', data, model, usage: {} } };
  });
  return {
    url: `${server.url}/v1`,
    calls,
    failWith: (status) => (failure = status),
    setDim: (next) => (dim = next),
    overrides,
    close: () => server.close(),
  };
}
