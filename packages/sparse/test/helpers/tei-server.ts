/**
 * A stand-in for Text Embeddings Inference's `/embed_sparse`, speaking its wire format
 * (`{"inputs": [...], "truncate": true}` -> `[[{"index": id, "value": w}, ...], ...]`), with a
 * toy SPLADE: each known word of the text weighs `1 + (length % 3) / 2`, plus a small expansion
 * term. It records calls and can be told to fail.
 */
import { startStandIn } from 'irserve/testing';

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

export async function startTeiServer(): Promise<TeiServer> {
  const calls: TeiCall[] = [];
  let failure: number | 'garbage' | undefined;
  const server = await startStandIn(({ path, headers, body }) => {
    const request = body as { inputs: string | string[]; truncate: unknown };
    const inputs = Array.isArray(request.inputs) ? request.inputs : [request.inputs];
    calls.push({ inputs, truncate: request.truncate, authorization: headers.authorization });
    if (failure === 'garbage') return { body: [[{ index: 99999, value: 1 }]] };
    const status = path !== '/embed_sparse' ? 404 : (failure ?? 200);
    if (status !== 200) return { status, body: { error: 'failed', error_type: 'backend' } };
    const answer = inputs.map((text) =>
      Object.entries(toyEncode(text)).map(([token, value]) => ({
        index: VOCABULARY.indexOf(token),
        value,
      })),
    );
    return { body: answer };
  });
  return {
    url: server.url,
    calls,
    failWith: (mode) => {
      failure = mode;
    },
    close: () => server.close(),
  };
}
