/**
 * Scores (query, passage) pairs with a GGUF ranking model on llama.cpp, passages cut so the
 * pair fits `max_length` tokens, `batch_size` contexts at work at once.
 */
import type { LlamaRankingContext, Token } from 'node-llama-cpp';
import { IrserveError } from 'irserve/plugin';
import { acrossContexts } from '../llama/context-pool.js';
import type { GgufLease } from '../llama/model-pool.js';

export interface Pair {
  query: string;
  passage: string;
}

export interface GgufRanker {
  score(pairs: readonly Pair[]): Promise<number[]>;
  close(): Promise<void>;
}

export interface RankerSettings {
  maxLength: number;
  contextSize: number | undefined;
  contexts: number;
  /** CPU threads per context; 0: the default. */
  threads: number;
  template: string | undefined;
}

/** Room for the template's own tokens and the specials around the pair. */
const MARGIN = 8;

/**
 * Opens the ranking contexts on the leased model.
 *
 * @example
 * const ranker = await ggufRanker(lease, { maxLength: 512, contextSize: undefined, contexts: 1, template: undefined });
 */
export async function ggufRanker(lease: GgufLease, settings: RankerSettings): Promise<GgufRanker> {
  const { model } = lease;
  const contextSize = Math.min(
    settings.contextSize ?? settings.maxLength + MARGIN,
    lease.facts.trainContext ?? Number.MAX_SAFE_INTEGER,
  );
  const templateTokens = settings.template ? model.tokenize(settings.template).length : 0;
  const budget = Math.min(settings.maxLength, contextSize - 1) - MARGIN - templateTokens;
  const contexts: LlamaRankingContext[] = [];
  try {
    for (let i = 0; i < settings.contexts; i++)
      contexts.push(
        await model.createRankingContext({
          contextSize,
          batchSize: contextSize,
          ...(settings.threads > 0 ? { threads: settings.threads } : {}),
          ...(settings.template
            ? { template: settings.template as `${string}{{query}}${string}{{document}}${string}` }
            : {}),
        }),
      );
  } catch (error) {
    await Promise.all(contexts.map((c) => c.dispose()));
    throw new IrserveError(
      'ERR_CONFIG',
      `cannot create ${settings.contexts} ranking context(s) of ${contextSize} tokens for ${model.filename ?? 'the model'}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const scoreOne = async (context: LlamaRankingContext, pair: Pair): Promise<number> => {
    const query: Token[] = model.tokenize(pair.query).slice(0, Math.max(1, Math.floor(budget / 2)));
    const passage: Token[] = model
      .tokenize(pair.passage)
      .slice(0, Math.max(1, budget - query.length));
    return context.rank(query, passage);
  };
  return {
    score: (pairs) => acrossContexts(contexts, pairs, scoreOne),
    close: async () => {
      await Promise.all(contexts.map((c) => c.dispose()));
    },
  };
}
