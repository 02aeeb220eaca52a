import { describe, expect, it } from 'vitest';
import { appWith } from './app.js';

const BASE = { base_url: 'http://127.0.0.1:9/v1', model: 'm' };

/** The start-up error for one service of `engine` with `config`. */
async function configError(engine: string, config: Record<string, unknown>): Promise<string> {
  const error = await appWith([{ name: 'svc', engine, config }]).then(
    async (app) => {
      await app.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(error, 'config should be refused').toBeInstanceOf(Error);
  return (error as Error).message;
}

describe('model-API engine configs are checked at start, each problem naming its field', () => {
  it.each([
    [
      'RerankAPI',
      {},
      /services\[0\]\.config\.base_url: .*services\[0\]\.config\.model: required for this api_format/s,
    ],
    ['RerankAPI', { ...BASE, base_url: 'ftp://x' }, /config\.base_url: must be an http\(s\) URL/],
    ['RerankAPI', { ...BASE, base_url: 'not a url' }, /config\.base_url: must be an http\(s\) URL/],
    ['RerankAPI', { ...BASE, api_format: 'openai' }, /config\.api_format: .*"cohere"/],
    ['RerankAPI', { ...BASE, max_documents_per_call: 0 }, /config\.max_documents_per_call: /],
    ['RerankAPI', { ...BASE, timeout: -1 }, /config\.timeout: /],
    ['RerankAPI', { ...BASE, retries: 1e9 }, /config\.retries: /],
    ['RerankAPI', { ...BASE, path: 'rerank' }, /config\.path: must start with "\/"/],
    [
      'RerankAPI',
      { ...BASE, max_docs_per_call: 3 },
      /config\.max_docs_per_call: unknown key \(did you mean "max_documents_per_call"\?\)/,
    ],
    [
      'RerankAPI',
      { ...BASE, api_key_env: 'IRSERVE_TEST_SURELY_UNSET' },
      /config\.api_key_env: environment variable IRSERVE_TEST_SURELY_UNSET is not set/,
    ],
    [
      'RerankAPI',
      { ...BASE, api_key_env: 'A', api_key: 'k' },
      /config\.api_key_env: give api_key or api_key_env, not both/,
    ],
    [
      'RerankAPI',
      { ...BASE, api_key_env: 'rm -rf /' },
      /config\.api_key_env: must be an environment variable name/,
    ],
    ['RerankAPI', { ...BASE, headers: { 'x-a': 5 } }, /config\.headers\.x-a: /],
    [
      'LLMScorer',
      { ...BASE, prompt: 'Is {query} relevant?' },
      /config\.prompt: must contain \{query\} and \{passage\}/,
    ],
    ['LLMScorer', { ...BASE, concurrency: 0 }, /config\.concurrency: /],
    ['LLMScorer', { base_url: BASE.base_url }, /config\.model: /],
    ['LLMDecomposer', { ...BASE, prompt: 'split it' }, /config\.prompt: must contain \{query\}/],
    ['LLMDecomposer', { ...BASE, limit: 2.5 }, /config\.limit: /],
    ['OpenAIEmbeddingScorer', { ...BASE, dimensions: -3 }, /config\.dimensions: /],
    [
      'OpenAIEmbeddingScorer',
      { ...BASE, max_inputs_per_call: '10' },
      /config\.max_inputs_per_call: /,
    ],
  ])('%s %j', async (engine, config, pattern) => {
    expect(await configError(engine, config)).toMatch(pattern);
  });

  it('the four engines are built-ins: they start by name and serve their roles', async () => {
    const app = await appWith([
      { name: 'rr', engine: 'RerankAPI', config: BASE },
      { name: 'judge', engine: 'LLMScorer', config: BASE },
      { name: 'expand', engine: 'LLMDecomposer', config: BASE },
      { name: 'emb', engine: 'OpenAIEmbeddingScorer', config: BASE },
    ]);
    const avail = (await app.http.inject({ method: 'GET', url: '/avail' })).json();
    await app.close();
    expect(avail.score).toEqual(expect.arrayContaining(['rr', 'judge', 'emb']));
    expect(avail.decompose_query).toEqual(['expand']);
    expect(JSON.stringify(avail)).not.toContain('127.0.0.1:9');
  });
});
