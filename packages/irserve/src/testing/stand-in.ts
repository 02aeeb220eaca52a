/**
 * A stand-in for a remote model server (an embeddings API, Text Embeddings Inference): a local
 * HTTP server on a free port that reads JSON bodies, records every request and answers with
 * what the test's `answer` returns. A real socket, the wire format the engine speaks.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the stand-in received. */
export interface StandInRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body (undefined when there was none). */
  body: unknown;
}

/** What to answer: a status (default 200) and a JSON body. */
export interface StandInAnswer {
  status?: number;
  body: unknown;
}

export interface StandIn {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  requests: StandInRequest[];
  close(): Promise<void>;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

/**
 * Starts a stand-in; `answer` sees each request (its body parsed) and says what to send back.
 *
 * @example
 * const tei = await startStandIn((request) =>
 *   request.path === '/embed' ? { body: [[0.1, 0.2]] } : { status: 404, body: { error: 'not found' } });
 * // ... tei.requests[0].body, then: await tei.close();
 */
export async function startStandIn(
  answer: (request: StandInRequest) => StandInAnswer,
): Promise<StandIn> {
  const requests: StandInRequest[] = [];
  const server = createServer((request, response) => {
    readJson(request).then(
      (body) => {
        const received = {
          method: request.method ?? 'GET',
          path: request.url ?? '/',
          headers: request.headers,
          body,
        };
        requests.push(received);
        const { status = 200, body: reply } = answer(received);
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(reply));
      },
      (error: unknown) => {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: `stand-in: ${(error as Error).message}` }));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
