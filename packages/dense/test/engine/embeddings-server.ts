/**
 * A stand-in for an OpenAI-compatible `/v1/embeddings` endpoint: deterministic bag-of-words
 * vectors (each word hashed to one of `dim` axes, L2-normalised), so texts that share words are
 * close. It records every request, and can be told to fail.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EmbeddingsCall {
  input: string[];
  model: string;
  authorization: string | undefined;
}

export interface EmbeddingsServer {
  url: string;
  calls: EmbeddingsCall[];
  /** Answers the next requests with this status (and a JSON error) instead of vectors. */
  failWith(status: number | undefined): void;
  /** Answers with vectors of another length (a model/index mismatch). */
  setDim(dim: number): void;
  /** Exact vectors for some texts (to replay queries whose answers Python faiss recorded). */
  overrides: Map<string, number[]>;
  close(): Promise<void>;
}

/** The stand-in's embedding of `text`: the same function the tests index documents with. */
export function bagOfWords(text: string, dim: number): Float32Array {
  const vector = new Float32Array(dim);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let hash = 2166136261;
    for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 16777619);
    vector[(hash >>> 0) % dim]! += 1;
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (norm > 0) for (let i = 0; i < dim; i++) vector[i] = vector[i]! / Math.sqrt(norm);
  return vector;
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

export async function startEmbeddingsServer(initialDim: number): Promise<EmbeddingsServer> {
  const calls: EmbeddingsCall[] = [];
  let failure: number | undefined;
  let dim = initialDim;
  const overrides = new Map<string, number[]>();
  const server: Server = createServer((request, response) => {
    void readJson(request).then((body) => {
      const input = body.input as string[];
      calls.push({
        input,
        model: String(body.model),
        authorization: request.headers.authorization,
      });
      response.setHeader('content-type', 'application/json');
      if (failure !== undefined) {
        response.statusCode = failure;
        response.end(JSON.stringify({ error: { message: 'model overloaded' } }));
        return;
      }
      // Reversed on purpose: clients must order by `index`, not by position.
      const data = input
        .map((text, index) => ({
          object: 'embedding',
          index,
          embedding: overrides.get(text) ?? [...bagOfWords(text, dim)],
        }))
        .reverse();
      response.end(JSON.stringify({ object: 'list', data, model: body.model, usage: {} }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    failWith: (status) => (failure = status),
    setDim: (next) => (dim = next),
    overrides,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
