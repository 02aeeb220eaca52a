/**
 * A stand-in ColBERT encoder speaking Text Embeddings Inference's `POST /embed_all`: each word
 * becomes one token vector (a seeded random unit vector per word), so a query word present in
 * a passage matches one of its tokens with score 1. Records calls; can fail or change dimension.
 */
import { seededRandom } from '@irserve/dense';
import { startStandIn, wordHash, words } from 'irserve/testing';

export interface EncoderServer {
  url: string;
  calls: { inputs: string[]; authorization: string | undefined }[];
  failWith(status: number | undefined): void;
  setDim(dim: number): void;
  close(): Promise<void>;
}

/** The token vectors of `text`: one unit vector per word. */
export function wordVectors(text: string, dim: number): number[][] {
  return words(text).map((word) => {
    const random = seededRandom(wordHash(word));
    const v = Array.from({ length: dim }, () => random() - 0.5);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

export async function startEncoderServer(initialDim: number): Promise<EncoderServer> {
  const calls: EncoderServer['calls'] = [];
  let failure: number | undefined;
  let dim = initialDim;
  const server = await startStandIn(({ path, headers, body }) => {
    const { inputs } = body as { inputs: string[] };
    calls.push({ inputs, authorization: headers.authorization });
    if (path !== '/embed_all') return { status: 404, body: { error: 'not found' } };
    if (failure !== undefined)
      return { status: failure, body: { error: 'model overloaded', error_type: 'overloaded' } };
    return { body: inputs.map((text) => wordVectors(text, dim)) };
  });
  return {
    url: server.url,
    calls,
    failWith: (status) => (failure = status),
    setDim: (next) => (dim = next),
    close: () => server.close(),
  };
}
