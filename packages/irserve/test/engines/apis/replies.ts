/**
 * Answers in the real shapes of each provider, computed from the request, for the fake APIs.
 * Relevance is word overlap, so expected scores are easy to state.
 */
import type { Recorded, Reply } from './fake-api.js';

/** Number of the query's words that occur in `text`. */
export function overlap(query: string, text: string): number {
  const words = new Set(text.toLowerCase().split(/\W+/));
  return query
    .toLowerCase()
    .split(/\W+/)
    .filter((w) => w && words.has(w)).length;
}

/** Cohere / Jina / vLLM `/v1/rerank`: `results` sorted by score (so not in document order). */
export function cohereReply({ body }: Recorded): Reply {
  const results = (body.documents as string[]).map((doc, index) => ({
    index,
    relevance_score: overlap(body.query, doc),
  }));
  results.sort((a, b) => b.relevance_score - a.relevance_score || b.index - a.index);
  return { body: { id: 'r1', results, meta: { billed_units: { search_units: 1 } } } };
}

/** Voyage: the same items under `data`. */
export function voyageReply(request: Recorded): Reply {
  const { results } = cohereReply(request).body as { results: unknown[] };
  return { body: { object: 'list', data: results, model: request.body.model, usage: {} } };
}

/** TEI `/rerank`: a bare list of `{index, score}`, sorted by score. */
export function teiReply({ body }: Recorded): Reply {
  const list = (body.texts as string[]).map((text, index) => ({
    index,
    score: overlap(body.query, text),
  }));
  return { body: list.sort((a, b) => b.score - a.score || b.index - a.index) };
}

/** vLLM `/score`: `data[{index, score}]` for text_1 against each text_2. */
export function vllmScoreReply({ body }: Recorded): Reply {
  const data = (body.text_2 as string[]).map((text, index) => ({
    index,
    object: 'score',
    score: overlap(body.text_1, text),
  }));
  return { body: { id: 'score-1', object: 'list', data: data.reverse() } };
}

/** A chat completion whose first choice says `text`, with `top` alternatives when given. */
export function chatAnswer(text: string, top?: { token: string; logprob: number }[]): Reply {
  const logprobs = top
    ? { content: [{ token: text, logprob: top[0]!.logprob, top_logprobs: top }] }
    : null;
  return {
    body: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text },
          logprobs,
          finish_reason: 'length',
        },
      ],
    },
  };
}

/** The probability of "Yes" the fake judge gives: a function of the word overlap. */
export const judgeProbability = (query: string, passage: string) =>
  0.01 + (0.98 * overlap(query, passage)) / Math.max(1, query.split(/\s+/).length);

/** A yes/no judge for prompts of the form `Query: ...\nPassage: ...`, with logprobs. */
export function judgeReply({ body }: Recorded): Reply {
  const prompt = String(body.messages.at(-1).content);
  const [, query = '', passage = ''] = /Query: (.*)\nPassage: ([\s\S]*)/.exec(prompt) ?? [];
  const yes = judgeProbability(query, passage);
  return chatAnswer(yes >= 0.5 ? 'Yes' : 'No', [
    { token: yes >= 0.5 ? 'Yes' : 'No', logprob: Math.log(Math.max(yes, 1 - yes)) },
    { token: yes >= 0.5 ? 'No' : 'Yes', logprob: Math.log(Math.min(yes, 1 - yes)) },
    { token: 'Maybe', logprob: -12 },
  ]);
}
