import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { textCollection } from '../../src/testing/index.js';

/** A started app listening on a loopback port, with its base URL. */
export interface Instance {
  app: App;
  url: string;
}

export async function instance(
  config: Record<string, unknown>,
  apiKey?: string,
): Promise<Instance> {
  const app = await testApp(config, apiKey ? { apiKey } : {});
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url };
}

/** A JSONL corpus of `n` documents `doc0..doc{n-1}` in a temp dir. */
export async function corpus(n: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-fed-'));
  const path = join(dir, 'docs.jsonl');
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `doc${i}`,
      title: `Title ${i}`,
      text: `neural retrieval document number ${i} ${'word '.repeat(i)}`,
    }),
  );
  await writeFile(path, lines.join('\n') + '\n');
  return path;
}

/** A collection entry with one text view over `docPath`. */
export const collectionConfig = (name: string, docPath: string) => textCollection(name, docPath);

/** A plain HTTP server answering with `handler`; for garbage, slow and RoutIR-replay remotes. */
export async function fakeRemote(
  handler: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => handler(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, server };
}

export function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof value === 'string' ? value : JSON.stringify(value));
}

export async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function postJson(
  url: string,
  path: string,
  body: unknown,
  key?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const response = await fetch(url + path, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
