import { describe, expect, it } from 'vitest';
import { parseSubQueries } from '../../../src/engines/apis/decompose-parse.js';
import { apiHarness, post } from './app.js';
import type { Handler } from './fake-api.js';
import { chatAnswer } from './replies.js';

const harness = apiHarness();

async function decomposer(handler: Handler, config: Record<string, unknown> = {}) {
  const { api } = await harness.start(handler, (url) => {
    const base = { base_url: `${url}/v1`, model: 'qwen' };
    return [{ name: 'expand', engine: 'LLMDecomposer', config: { ...base, ...config } }];
  });
  return api;
}

const decompose = (body: Record<string, unknown>) =>
  post(harness.app, '/decompose_query', {
    service: 'expand',
    query: 'effects of caffeine on sleep',
    ...body,
  });

describe('LLMDecomposer over /decompose_query', () => {
  it('asks the chat endpoint and returns at most `limit` sub-queries', async () => {
    const api = await decomposer(() =>
      chatAnswer('["caffeine sleep latency", "caffeine half-life", "coffee insomnia"]'),
    );
    const { status, body } = await decompose({ limit: 2 });
    expect(status).toBe(200);
    expect(body.queries).toEqual(['caffeine sleep latency', 'caffeine half-life']);
    const request = api.calls[0]!.body;
    expect(request).toMatchObject({ model: 'qwen', max_tokens: 512, temperature: 0 });
    expect(request.messages[0].content).toContain('at most 2 short');
    expect(request.messages[0].content).toContain('Query: effects of caffeine on sleep');
  });

  it('uses the config limit when the request has none', async () => {
    await decomposer(() => chatAnswer('1. a\n2. b\n3. c\n4. d'), { limit: 3 });
    expect((await decompose({})).body.queries).toEqual(['a', 'b', 'c']);
  });

  it.each([
    ['an empty answer', ''],
    ['an empty JSON list', '[]'],
    ['only a reasoning block', '<think>hmm</think>'],
    ['JSON of the wrong kind', '{"count": 3}'],
  ])('%s gives [original query]', async (_, text) => {
    await decomposer(() => chatAnswer(text));
    const { status, body } = await decompose({});
    expect(status).toBe(200);
    expect(body.queries).toEqual(['effects of caffeine on sleep']);
  });

  it('an upstream failure is still an error (502), not a silent fallback', async () => {
    await decomposer(() => ({ status: 404, body: { error: { message: 'model qwen not found' } } }));
    const { status, body } = await decompose({});
    expect(status).toBe(502);
    expect(body.error).toMatch(
      /^service "expand": OpenAI-compatible chat API .* HTTP 404: model qwen not found/,
    );
  });
});

describe('parseSubQueries', () => {
  it.each([
    ['a JSON array', '["a", "b"]', ['a', 'b']],
    ['a JSON object with a list field', '{"queries": ["a", "b"]}', ['a', 'b']],
    [
      'an object with another list field',
      '{"note": "x", "items": [{"query": "a"}, {"text": "b"}]}',
      ['a', 'b'],
    ],
    ['a fenced code block', 'Sure!\n```json\n["a", "b"]\n```\nHope this helps.', ['a', 'b']],
    ['a fenced block of lines', '```\n- a\n- b\n```', ['a', 'b']],
    ['an array inside prose', 'Here: ["a", "b"] as requested.', ['a', 'b']],
    [
      'numbered lines with a preamble',
      'Here are the queries:\n1. a\n2) b\n3: "c"',
      ['a', 'b', 'c'],
    ],
    ['bullets', '* a\n• b\n- c', ['a', 'b', 'c']],
    ['plain lines', 'a\nb\n\n', ['a', 'b']],
    ['a reasoning block first', '<think>["x"]</think>["a"]', ['a']],
    ['duplicates and blanks', '["a", "A", " ", "b"]', ['a', 'b']],
    ['an array cut short by max_tokens', '["a", "b", "c', ['a', 'b']],
  ])('%s', (_, text, expected) => {
    expect(parseSubQueries(text, 10)).toEqual(expected);
  });

  it('truncates to the limit', () => {
    expect(parseSubQueries('["a", "b", "c"]', 2)).toEqual(['a', 'b']);
  });
});
