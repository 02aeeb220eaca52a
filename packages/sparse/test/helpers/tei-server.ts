/**
 * A stand-in for Text Embeddings Inference's `/embed_sparse`, speaking its wire format
 * (`{"inputs": [...], "truncate": true}` -> `[[{"index": id, "value": w}, ...], ...]`), with a
 * toy SPLADE: each known word of the text weighs `1 + (length % 3) / 2`, plus a small expansion
 * term. It records calls and can be told to fail.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export const VOCABULARY = [
  '[PAD]',
  '[UNK]',
  '[CLS]',
  '[SEP]',
  'jet',
  'engines',
  'turbine',
  'thrust',
  'boundary',
  'layer',
  'laminar',
  'shock',
  'wave',
  'wedge',
  'flutter',
  'wings',
  'heat',
  'transfer',
  'hypersonic',
  'propeller',
  'noise',
  'speed',
  'flow',
  'supersonic',
  'aero',
  '##s',
];

/** The toy model: the same function builds the test corpus and answers queries. */
export function toyEncode(text: string): Record<string, number> {
  const vector: Record<string, number> = {};
  for (const word of text.toLowerCase().match(/[a-z#]+/g) ?? [])
    if (VOCABULARY.includes(word) && !word.startsWith('['))
      vector[word] = 1 + (word.length % 3) / 2;
  if (Object.keys(vector).length > 0) vector.aero = 0.1;
  return vector;
}

export interface TeiCall {
  inputs: string[];
  truncate: unknown;
  authorization: string | undefined;
}

export interface TeiServer {
  url: string;
  calls: TeiCall[];
  /** Answer with this status instead, or with a malformed body (`'garbage'`). */
  failWith(mode: number | 'garbage' | undefined): void;
  close(): Promise<void>;
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

export async function startTeiServer(): Promise<TeiServer> {
  const calls: TeiCall[] = [];
  let failure: number | 'garbage' | undefined;
  const server = createServer((request, response) => {
    void readJson(request).then((body) => {
      const inputs = (Array.isArray(body.inputs) ? body.inputs : [body.inputs]) as string[];
      calls.push({ inputs, truncate: body.truncate, authorization: request.headers.authorization });
      response.setHeader('content-type', 'application/json');
      if (request.url !== '/embed_sparse') response.statusCode = 404;
      else if (typeof failure === 'number') response.statusCode = failure;
      if (failure === 'garbage')
        return response.end(JSON.stringify([[{ index: 99999, value: 1 }]]));
      if (response.statusCode !== 200)
        return response.end(JSON.stringify({ error: 'failed', error_type: 'backend' }));
      const answer = inputs.map((text) =>
        Object.entries(toyEncode(text)).map(([token, value]) => ({
          index: VOCABULARY.indexOf(token),
          value,
        })),
      );
      response.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    failWith: (mode) => {
      failure = mode;
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
