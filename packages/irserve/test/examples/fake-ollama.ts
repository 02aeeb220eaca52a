/**
 * A small local server speaking Ollama's `/api/generate` wire format (non-streaming), for the
 * pointwise reranker example. The model name picks the behaviour, so one server covers the
 * good case and every failure the reranker must turn into a clear 502 or 504.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOllama {
  url: string;
  /** Requests received, and the most that were in flight at once. */
  stats: { requests: number; inFlight: number; maxInFlight: number };
  close(): Promise<void>;
}

interface GenerateBody {
  model: string;
  prompt: string;
  logprobs?: boolean;
}

/** P(yes): the fraction of query words found in the passage, kept off 0 and 1. */
function relevance(prompt: string): number {
  const query = /Query: (.*)\n/.exec(prompt)?.[1] ?? '';
  const passage = (/Passage: ([\s\S]*)\n\nRelevant:/.exec(prompt)?.[1] ?? '').toLowerCase();
  const words = query
    .toLowerCase()
    .split(/\W+/)
    .filter((w) => w.length > 3);
  if (words.length === 0) return 0.5;
  const found = words.filter((w) => passage.includes(w)).length / words.length;
  return Math.min(0.95, Math.max(0.05, found));
}

function judge(body: GenerateBody): Record<string, unknown> {
  const p = relevance(body.prompt);
  const answer = p >= 0.5 ? 'Yes' : 'No';
  const base = { model: body.model, created_at: new Date().toISOString(), done: true };
  if (body.model === 'plain' || !body.logprobs)
    return { ...base, response: answer === 'Yes' ? 'Yes.' : ' no' };
  const yes = { token: 'Yes', logprob: Math.log(p) };
  const no = { token: 'No', logprob: Math.log(1 - p) };
  const chosen = p >= 0.5 ? yes : no;
  return { ...base, response: answer, logprobs: [{ ...chosen, top_logprobs: [yes, no] }] };
}

type Reply = (res: ServerResponse) => void;

function json(status: number, body: unknown): Reply {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
}

function reply(body: GenerateBody): Reply | 'hang' {
  switch (body.model) {
    case 'missing':
      return json(404, { error: `model "${body.model}" not found, try pulling it first` });
    case 'slow':
      return 'hang';
    case 'garbage':
      return (res) => res.end('<html>502 Bad Gateway</html>');
    case 'maybe':
      return json(200, { model: body.model, response: 'Perhaps', done: true });
    case 'noresponse':
      return json(200, { model: body.model, done: true });
    default:
      return json(200, judge(body));
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the server on a free loopback port. */
export async function startFakeOllama(): Promise<FakeOllama> {
  const stats = { requests: 0, inFlight: 0, maxInFlight: 0 };
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== '/api/generate') return json(404, {})(res);
      const body = JSON.parse(await readBody(req)) as GenerateBody;
      stats.requests++;
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      // A short delay lets concurrent calls overlap, so the concurrency bound is observable.
      await new Promise((done) => setTimeout(done, 5));
      const answer = reply(body);
      stats.inFlight--;
      // A hanging call never answers; the reranker's timeout must end it.
      if (answer !== 'hang') answer(res);
    })();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/**
 * A loopback port that nothing listens on, for connection-refused tests: one below Linux's
 * ephemeral range (32768-60999), checked free by binding it, then released. A port the kernel
 * hands out for `listen(0)` could be handed again, at once, to the next server a test (or a
 * test running beside it) starts, which then answers where a refusal was expected.
 */
export async function closedPort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const bound = await new Promise<boolean>((done) => {
      server.once('error', () => done(false));
      server.listen(port, '127.0.0.1', () => done(true));
    });
    if (!bound) continue;
    await new Promise<void>((done) => server.close(() => done()));
    return port;
  }
  throw new Error('no free loopback port between 20000 and 32000');
}
