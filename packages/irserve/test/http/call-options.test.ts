import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { callOptions } from '../../src/transports/http/call-options.js';
import type { Abortable } from '../../src/util/abort-scope.js';

/** A server whose one route keeps the signal of each request's call options. */
function serverKeepingSignals() {
  const signals: Abortable[] = [];
  const server = Fastify();
  server.post('/x', async (request, reply) => {
    const options = callOptions(request, reply);
    if (options.signal) signals.push(options.signal);
    if ((request.body as { wait?: boolean }).wait) await new Promise((r) => setTimeout(r, 200));
    return { ok: true };
  });
  return { server, signals };
}

describe('the disconnect signal of an HTTP request', () => {
  let close: (() => Promise<unknown>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('does not abort once the answer is written (inject closes before it counts as finished)', async () => {
    const { server, signals } = serverKeepingSignals();
    close = () => server.close();
    const response = await server.inject({ method: 'POST', url: '/x', payload: {} });
    expect(response.statusCode).toBe(200);
    await new Promise((r) => setImmediate(r));
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(false);
  });

  it('aborts with ERR_CLIENT_CLOSED when the client leaves before the answer', async () => {
    const { server, signals } = serverKeepingSignals();
    close = () => server.close();
    await server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.server.address() as { port: number };
    const controller = new AbortController();
    const leaving = fetch(`http://127.0.0.1:${port}/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ wait: true }),
      signal: controller.signal,
    }).catch(() => undefined);
    while (signals.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    await leaving;
    while (!signals[0]!.aborted) await new Promise((r) => setTimeout(r, 5));
    expect(signals[0]!.reason).toMatchObject({ code: 'ERR_CLIENT_CLOSED' });
  });
});
