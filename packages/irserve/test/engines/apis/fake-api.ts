/**
 * A local stand-in for a model API: a node:http server on port 0 whose answers a test scripts
 * per call. Every request is recorded (path, headers, parsed body) for assertions.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  path: string;
  headers: IncomingMessage['headers'];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- free-form JSON that tests inspect
  body: any;
  /** When the request arrived (performance.now()). */
  at: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON value, or a string sent as is (for malformed bodies). */
  body?: unknown;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
}

export type Handler = (request: Recorded, callNumber: number) => Reply | Promise<Reply>;

export interface FakeApi {
  url: string;
  calls: Recorded[];
  /** Replaces the handler (tests script failures, then success). */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export async function fakeApi(handler: Handler): Promise<FakeApi> {
  const calls: Recorded[] = [];
  let current = handler;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded = {
        path: req.url ?? '',
        headers: req.headers,
        body: safeJson(text),
        at: performance.now(),
      };
      calls.push(recorded);
      void answer(res, () => current(recorded, calls.length));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    handle: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(res: ServerResponse, reply: () => Reply | Promise<Reply>): Promise<void> {
  const { status = 200, headers = {}, body = {}, delayMs = 0 } = await reply();
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A deterministic fake embedding: letter counts a-z, so texts sharing letters are similar. */
export function letterVector(text: string): number[] {
  const vector = new Array<number>(26).fill(0);
  for (const char of text.toLowerCase()) {
    const code = char.charCodeAt(0) - 97;
    if (code >= 0 && code < 26) vector[code] = (vector[code] ?? 0) + 1;
  }
  vector[0] = (vector[0] ?? 0) + 0.5;
  return vector;
}

/** An OpenAI `/embeddings` answer for the request's inputs, in reversed order (indexes decide). */
export function embeddingsReply(request: Recorded): Reply {
  const input = request.body.input as string[];
  const data = input.map((text, index) => ({
    object: 'embedding',
    index,
    embedding: letterVector(text),
  }));
  return { body: { object: 'list', data: data.reverse(), model: request.body.model } };
}
