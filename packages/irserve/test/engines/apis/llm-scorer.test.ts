import { describe, expect, it } from 'vitest';
import { MISSING_LOGPROB, yesNoScore } from '../../../src/engines/apis/yes-no.js';
import { apiHarness, post } from './app.js';
import type { Handler } from './fake-api.js';
import { chatAnswer, judgeProbability, judgeReply } from './replies.js';

const harness = apiHarness();

const PROMPT = 'Query: {query}\nPassage: {passage}';
const QUERY = 'dense retrieval';
const PASSAGES = ['dense retrieval with BERT', 'sparse retrieval', 'baking bread'];

async function judge(handler: Handler, config: Record<string, unknown> = {}) {
  const { api } = await harness.start(handler, (url) => {
    const base = { base_url: `${url}/v1`, model: 'qwen', prompt: PROMPT };
    return [{ name: 'judge', engine: 'LLMScorer', config: { ...base, ...config } }];
  });
  return api;
}

const score = (passages = PASSAGES) =>
  post(harness.app, '/score', { service: 'judge', query: QUERY, passages });

describe('LLMScorer', () => {
  it('scores p(yes)/(p(yes)+p(no)) from the top logprobs, one call per passage', async () => {
    const api = await judge(judgeReply);
    const { status, body } = await score();
    expect(status).toBe(200);
    PASSAGES.forEach((p, i) => expect(body.scores[i]).toBeCloseTo(judgeProbability(QUERY, p), 9));
    expect(api.calls).toHaveLength(3);
    expect(api.calls[0]!.path).toBe('/v1/chat/completions');
    expect(api.calls[0]!.body).toEqual({
      model: 'qwen',
      messages: [{ role: 'user', content: `Query: ${QUERY}\nPassage: ${PASSAGES[0]}` }],
      temperature: 0,
      max_tokens: 1,
      logprobs: true,
      top_logprobs: 20,
      stream: false,
    });
  });

  it('computes a repeated (query, passage) pair of a batch once', async () => {
    const api = await judge(judgeReply);
    await score(['same text', 'same text', 'other']);
    expect(api.calls).toHaveLength(2);
  });

  it('sends system_prompt and request_kwargs; our fields win over request_kwargs', async () => {
    const api = await judge(judgeReply, {
      system_prompt: 'You are a judge.',
      request_kwargs: { temperature: 0.7, seed: 1, model: 'ignored', stream: true },
    });
    await score(['x']);
    const body = api.calls[0]!.body;
    expect(body.messages[0]).toEqual({ role: 'system', content: 'You are a judge.' });
    expect(body).toMatchObject({ temperature: 0.7, seed: 1, model: 'qwen', stream: false });
  });

  it('does not expand a {passage} written inside the query', async () => {
    const api = await judge(judgeReply);
    await post(harness.app, '/score', {
      service: 'judge',
      query: 'what is {passage}',
      passages: ['p'],
    });
    expect(api.calls[0]!.body.messages[0].content).toBe('Query: what is {passage}\nPassage: p');
  });

  it('without logprobs reads the answer text; logprobs:false leaves them out of the request', async () => {
    const answers = ['Yes', 'no.', '7', 'unsure'];
    const api = await judge((_, n) => chatAnswer(answers[(n - 1) % 4]!), {
      logprobs: false,
      text_score_max: 10,
    });
    const { body } = await score(['a', 'b', 'c', 'd']);
    expect(api.calls[0]!.body).not.toHaveProperty('logprobs');
    expect([...body.scores].sort()).toEqual([0, 0.5, 0.7, 1]);
  });

  it('bounds the calls in flight by `concurrency`', async () => {
    let active = 0;
    let peak = 0;
    await judge(
      async (request) => {
        peak = Math.max(peak, ++active);
        await new Promise((r) => setTimeout(r, 20));
        active--;
        return judgeReply(request);
      },
      { concurrency: 3 },
    );
    const { body } = await score(Array.from({ length: 12 }, (_, i) => `passage ${i}`));
    expect(body.scores).toHaveLength(12);
    expect(peak).toBe(3);
  });

  it('an answer without choices is a 502', async () => {
    await judge(() => ({ body: { object: 'chat.completion', choices: [] } }));
    const { status, body } = await score();
    expect(status).toBe(502);
    expect(body.error).toMatch(
      /OpenAI-compatible chat API at .*\/v1\/chat\/completions answered with no `choices`/,
    );
  });
});

describe('yesNoScore', () => {
  const tokens = { yes: 'Yes', no: 'No' };
  it('counts a token missing from the top logprobs as logprob -10', () => {
    const score = yesNoScore(
      { text: 'Yes', topLogprobs: [{ token: 'Yes', logprob: -0.5 }] },
      tokens,
    );
    expect(score).toBeCloseTo(Math.exp(-0.5) / (Math.exp(-0.5) + Math.exp(MISSING_LOGPROB)), 12);
  });

  it('adds up spellings of one answer (" yes", "YES")', () => {
    const top = [
      { token: ' yes', logprob: Math.log(0.3) },
      { token: 'YES', logprob: Math.log(0.3) },
      { token: 'No', logprob: Math.log(0.2) },
    ];
    expect(yesNoScore({ text: 'yes', topLogprobs: top }, tokens)).toBeCloseTo(0.75, 12);
  });

  it('is 0.5 when neither token is among the alternatives or the text says nothing', () => {
    expect(
      yesNoScore({ text: 'Maybe', topLogprobs: [{ token: 'Maybe', logprob: -0.1 }] }, tokens),
    ).toBe(0.5);
    expect(yesNoScore({ text: '', topLogprobs: undefined }, tokens)).toBe(0.5);
  });
});
