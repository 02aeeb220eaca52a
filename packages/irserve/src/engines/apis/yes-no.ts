/**
 * A relevance score from a yes/no judgement: p(yes) / (p(yes) + p(no)) over the alternatives of
 * the first generated token, as RoutIR's LLMEngine computes it. A token missing from the top
 * alternatives counts as log-probability -10; with no logprobs at all, the answer text is read.
 */
import type { ChatAnswer, TokenLogprob } from './chat-client.js';

/** Log-probability given to a token the server did not list among its top alternatives. */
export const MISSING_LOGPROB = -10;
/** The score when nothing can be read from the answer. */
export const UNKNOWN_SCORE = 0.5;

export interface YesNoTokens {
  yes: string;
  no: string;
  /** A number read from the text is divided by this (a prompt may ask for 0-10). Default 1. */
  textScoreMax?: number;
}

/**
 * @example
 * yesNoScore({ text: 'Yes', topLogprobs: [{ token: 'Yes', logprob: -0.1 }, { token: 'No', logprob: -2.4 }] }, { yes: 'Yes', no: 'No' })
 * // 0.909...
 */
export function yesNoScore(answer: ChatAnswer, tokens: YesNoTokens): number {
  if (answer.topLogprobs && answer.topLogprobs.length > 0) {
    const yes = probability(answer.topLogprobs, tokens.yes);
    const no = probability(answer.topLogprobs, tokens.no);
    return yes / (yes + no);
  }
  return textScore(answer.text, tokens);
}

/**
 * Total probability of the spellings of `word` (" Yes", "yes", "YES" are one answer to a reader,
 * several tokens to a model).
 */
function probability(alternatives: readonly TokenLogprob[], word: string): number {
  const wanted = normalise(word);
  let total = 0;
  for (const { token, logprob } of alternatives)
    if (normalise(token) === wanted) total += Math.exp(logprob);
  return total > 0 ? total : Math.exp(MISSING_LOGPROB);
}

function normalise(token: string): string {
  return token
    .trim()
    .toLowerCase()
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

/**
 * The score a server without logprobs gave in words: yes is 1, no is 0, else the first number
 * in the text divided by `textScoreMax` (clamped to 0..1), else 0.5.
 */
export function textScore(text: string, tokens: YesNoTokens): number {
  const first = normalise(text.split(/\s+/).find((word) => word.trim() !== '') ?? '');
  if (first === normalise(tokens.yes)) return 1;
  if (first === normalise(tokens.no)) return 0;
  const number = /-?\d+(?:\.\d+)?/.exec(text);
  if (!number) return UNKNOWN_SCORE;
  return Math.min(1, Math.max(0, Number(number[0]) / (tokens.textScoreMax ?? 1)));
}
