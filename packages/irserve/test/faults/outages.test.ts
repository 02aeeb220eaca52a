/**
 * Outages seen through a relay: an imported instance killed under load is logged once (not once
 * per failed request) and recovered from; a deadline crosses the relay (the remote stops when
 * the caller stops waiting); a hit in the remote's cache is reported as a hit.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { TEST_ENGINES } from '../helpers/engines.js';
import { capturingLogger } from '../grpc/helpers.js';
import { postJson, until } from '../federation/helpers.js';
import { FAULT_ENGINES, HangingSearch } from './fault-engines.js';

const engines = [...TEST_ENGINES, ...FAULT_ENGINES];
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  HangingSearch.hang = false;
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

async function listening(
  config: Record<string, unknown>,
  logger?: ReturnType<typeof capturingLogger>['logger'],
) {
  const app = await testApp(config, { engines, ...(logger ? { logger } : {}) });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  cleanups.push(() => app.close());
  return { app, url };
}

describe('outages through a relay', () => {
  it('a remote killed under load: one warning, no error per request, and recovery', async () => {
    const remote = await listening({
      services: [{ name: 'far', engine: 'ConstSearch', cache: -1, max_wait_time: 0 }],
    });
    const log = capturingLogger();
    const front = await listening({ server_imports: [remote.url], relay_cache: -1 }, log.logger);
    expect((await postJson(front.url, '/search', { service: 'far', query: 'q' })).status).toBe(200);
    const port = Number(new URL(remote.url).port);
    await remote.app.close();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        postJson(front.url, '/search', { service: 'far', query: `q${i}` }),
      ),
    );
    expect(answers.every((a) => a.status === 502)).toBe(true);
    const loud = log.lines.filter((line) => (line.level as number) >= 40);
    expect(loud.filter((line) => (line.level as number) >= 50)).toEqual([]);
    expect(loud.length).toBeLessThanOrEqual(2);
    const revived = await testApp(
      {
        services: [{ name: 'far', engine: 'ConstSearch', cache: -1, max_wait_time: 0 }],
      },
      { engines },
    );
    await revived.listen({ port, host: '127.0.0.1' });
    cleanups.push(() => revived.close());
    await until(
      async () =>
        (await postJson(front.url, '/search', { service: 'far', query: 'back' })).status === 200,
    );
  });

  it('a deadline crosses the relay: 504 ERR_TIMEOUT from a hanging remote, in time', async () => {
    HangingSearch.hang = true;
    const remote = await listening({
      services: [{ name: 'stuck', engine: 'HangingSearch', cache: -1 }],
    });
    const front = await listening({ server_imports: [remote.url], relay_cache: -1 });
    HangingSearch.signals = [];
    const started = Date.now();
    const answer = await postJson(front.url, '/search', {
      service: 'stuck',
      query: 'q',
      timeout: 0.3,
    });
    expect(answer.status).toBe(504);
    expect(answer.body.code).toBe('ERR_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(3_000);
    // The remote got the deadline too: its engine was told to stop.
    await until(async () => HangingSearch.signals.some((signal) => signal.aborted), 3_000);
    HangingSearch.hang = false;
  });

  it("a hit in the remote's cache is reported as cached through the relay", async () => {
    const remote = await listening({
      services: [{ name: 'cachy', engine: 'ConstSearch', max_wait_time: 0 }],
    });
    const front = await listening({ server_imports: [remote.url], relay_cache: -1 });
    const first = await postJson(front.url, '/search', { service: 'cachy', query: 'same' });
    const second = await postJson(front.url, '/search', { service: 'cachy', query: 'same' });
    expect(first.body.cached).toBe(false);
    expect(second.body.cached).toBe(true);
  });
});
