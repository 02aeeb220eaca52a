import type { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../../src/engines/apis/retry-after.js';
import { redact } from '../../../src/engines/apis/redact.js';
import { apiHarness, appWith, captureLogs, post } from './app.js';
import type { Handler } from './fake-api.js';
import { cohereReply } from './replies.js';

const harness = apiHarness();

/** A RerankAPI service `rr` in front of a fake API answering with `handler`. */
function rerank(handler: Handler, config: Record<string, unknown> = {}, logger?: pino.Logger) {
  return harness.start(
    handler,
    (url) => [
      { name: 'rr', engine: 'RerankAPI', config: { base_url: url, model: 'm', ...config } },
    ],
    logger ? { logger } : {},
  );
}

const KEY = 'sk-live-0123456789abcdef';
const score = () =>
  post(harness.app, '/score', { service: 'rr', query: 'q', passages: ['a', 'b'] });

describe('429 and Retry-After', () => {
  it('waits as long as Retry-After asks, then succeeds', async () => {
    const { api } = await rerank((request, n) =>
      n === 1
        ? { status: 429, headers: { 'retry-after': '0.3' }, body: { message: 'rate limited' } }
        : cohereReply(request),
    );
    expect((await score()).status).toBe(200);
    expect(api.calls).toHaveLength(2);
    const waited = api.calls[1]!.at - api.calls[0]!.at;
    expect(waited).toBeGreaterThanOrEqual(280);
  });

  it('caps a long Retry-After at max_retry_wait', async () => {
    const { api } = await rerank(
      (request, n) =>
        n === 1
          ? { status: 429, headers: { 'retry-after': '3600' }, body: {} }
          : cohereReply(request),
      { max_retry_wait: 0.2 },
    );
    const started = performance.now();
    expect((await score()).status).toBe(200);
    const waited = api.calls[1]!.at - api.calls[0]!.at;
    expect(waited).toBeGreaterThanOrEqual(180);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('a 429 that never clears is a 502 after the retries', async () => {
    await rerank(
      () => ({ status: 429, headers: { 'retry-after': '0' }, body: { message: 'quota' } }),
      { retries: 2 },
    );
    const { status, body } = await score();
    expect(status).toBe(502);
    expect(body.error).toMatch(/HTTP 429: quota \(after 3 attempts\)/);
  });

  it('reads seconds, HTTP dates and retry-after-ms', () => {
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
    expect(retryAfterMs({ 'retry-after-ms': '150', 'retry-after': '9' })).toBe(150);
    expect(retryAfterMs({ 'retry-after': new Date(10_000).toUTCString() }, 4000)).toBe(6000);
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterMs({})).toBeUndefined();
  });
});

describe('keys never leak', () => {
  it('not in the error body, not in the logs, even when the API echoes the key', async () => {
    const echo = {
      error: { message: `Incorrect API key provided: ${KEY}. Yours: sk-l****************cdef` },
    };
    const logs = captureLogs();
    process.env.IRSERVE_TEST_RERANK_KEY = KEY;
    const { api } = await rerank(
      (_, n) => (n === 1 ? { status: 500, body: echo } : { status: 401, body: echo }),
      { api_key_env: 'IRSERVE_TEST_RERANK_KEY', retries: 1 },
      logs.logger,
    );
    delete process.env.IRSERVE_TEST_RERANK_KEY;
    const { status, body } = await score();
    expect(api.calls[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(status).toBe(502);
    expect(body.error).toMatch(/Incorrect API key provided: \[redacted\]/);
    const everything = JSON.stringify(body) + logs.lines.join('');
    expect(logs.lines.join('')).toMatch(/retrying model API call/);
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain('cdef');
    expect(everything).not.toContain('0123456789');
  });

  it('not from the base URL: user info and query string stay out of messages', async () => {
    await harness.start(
      () => ({ status: 403, body: { message: 'forbidden' } }),
      (url) => {
        const base = new URL(url);
        base.username = 'user';
        base.password = 'hunter2secret';
        base.search = '?key=querysecret';
        return [{ name: 'rr', engine: 'RerankAPI', config: { base_url: base.href, model: 'm' } }];
      },
    );
    const { body } = await score();
    expect(harness.api.calls[0]!.path).toBe('/v1/rerank?key=querysecret');
    expect(body.error).toMatch(
      /at http:\/\/127\.0\.0\.1:\d+\/v1\/rerank answered HTTP 403: forbidden$/,
    );
    expect(JSON.stringify(body)).not.toMatch(/hunter2|querysecret/);
  });

  it('not in a config error about the key field', async () => {
    await expect(
      appWith([
        {
          name: 'rr',
          engine: 'RerankAPI',
          config: { base_url: 'http://x', model: 'm', api_key: 12345678 },
        },
      ]),
    ).rejects.toThrow(/config\.api_key: .*expected string/);
    const error = await appWith([
      {
        name: 'rr',
        engine: 'RerankAPI',
        config: { base_url: 'http://x', model: 'm', apikey: KEY },
      },
    ]).then(
      () => '',
      (e: Error) => `${e.message} ${JSON.stringify(e)}`,
    );
    expect(error).toMatch(/config\.apikey: unknown key \(did you mean "api_key"\?\)/);
    expect(error).not.toContain(KEY);
  });

  it('redact hides exact keys and masked echoes, and leaves other words', () => {
    expect(redact(`key ${KEY} and sk-l****cdef, fine`, [KEY])).toBe(
      'key [redacted] and [redacted] fine',
    );
    expect(redact('nothing secret here', [KEY, ''])).toBe('nothing secret here');
  });
});
