/**
 * A stand-in ColBERT encoder speaking Text Embeddings Inference's `POST /embed_all`: each word
 * becomes one token vector (a seeded random unit vector per word), so a query word present in
 * a passage matches one of its tokens with score 1. Records calls; can fail or change dimension.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '@irserve/dense';

export interface EncoderServer {
  url: string;
  calls: { inputs: string[]; authorization: string | undefined }[];
  failWith(status: number | undefined): void;
  setDim(dim: number): void;
  close(): Promise<void>;
}

/** The token vectors of `text`: one unit vector per word. */
export function wordVectors(text: string, dim: number): number[][] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).map((word) => {
    let hash = 2166136261;
    for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 16777619);
    const random = seededRandom(hash >>> 0);
    const v = Array.from({ length: dim }, () => random() - 0.5);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

export async function startEncoderServer(initialDim: number): Promise<EncoderServer> {
  const calls: EncoderServer['calls'] = [];
  let failure: number | undefined;
  let dim = initialDim;
  const server: Server = createServer((request, response) => {
    void readJson(request).then((body) => {
      const inputs = body.inputs as string[];
      calls.push({ inputs, authorization: request.headers.authorization });
      response.setHeader('content-type', 'application/json');
      if (request.url !== '/embed_all') {
        response.statusCode = 404;
        response.end(JSON.stringify({ error: 'not found' }));
      } else if (failure !== undefined) {
        response.statusCode = failure;
        response.end(JSON.stringify({ error: 'model overloaded', error_type: 'overloaded' }));
      } else response.end(JSON.stringify(inputs.map((text) => wordVectors(text, dim))));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    failWith: (status) => (failure = status),
    setDim: (next) => (dim = next),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
