/**
 * Which two tokens a monoT5 / mT5 reranker answers with, by checkpoint: RoutIR's defaults (its
 * table comes from PyGaggle). A checkpoint not in the table needs `token_false` and
 * `token_true` in the config; RoutIR refuses it too, since a wrong pair scores silently badly.
 */
import { basename } from 'node:path';

/** Checkpoint -> [false token, true token]. */
export const PREDICTION_TOKENS: Readonly<Record<string, readonly [string, string]>> = {
  'castorini/monot5-base-msmarco': ['▁false', '▁true'],
  'castorini/monot5-base-msmarco-10k': ['▁false', '▁true'],
  'castorini/monot5-large-msmarco': ['▁false', '▁true'],
  'castorini/monot5-large-msmarco-10k': ['▁false', '▁true'],
  'castorini/monot5-base-med-msmarco': ['▁false', '▁true'],
  'castorini/monot5-3b-med-msmarco': ['▁false', '▁true'],
  'castorini/monot5-3b-msmarco-10k': ['▁false', '▁true'],
  // This checkpoint answers "▁" where the others answer "false" (as in PyGaggle).
  'unicamp-dl/mt5-13b-mmarco-100k': ['▁', '▁true'],
  'unicamp-dl/mt5-base-en-msmarco': ['▁no', '▁yes'],
  'unicamp-dl/ptt5-base-pt-msmarco-10k-v2': ['▁não', '▁sim'],
  'unicamp-dl/ptt5-base-pt-msmarco-100k-v2': ['▁não', '▁sim'],
  'unicamp-dl/ptt5-base-en-pt-msmarco-100k-v2': ['▁não', '▁sim'],
  'unicamp-dl/mt5-base-en-pt-msmarco-v2': ['▁no', '▁yes'],
  'unicamp-dl/mt5-base-mmarco-v2': ['▁no', '▁yes'],
  'unicamp-dl/mt5-base-en-pt-msmarco-v1': ['▁no', '▁yes'],
  'unicamp-dl/mt5-base-mmarco-v1': ['▁no', '▁yes'],
  'unicamp-dl/ptt5-base-pt-msmarco-10k-v1': ['▁não', '▁sim'],
  'unicamp-dl/ptt5-base-pt-msmarco-100k-v1': ['▁não', '▁sim'],
  'unicamp-dl/ptt5-base-en-pt-msmarco-10k-v1': ['▁não', '▁sim'],
  'unicamp-dl/mt5-3B-mmarco-en-pt': ['▁', '▁true'],
};

export interface PredictionTokens {
  false: string;
  true: string;
  /** Where the pair came from, for the start-up log and errors. */
  source: string;
}

/**
 * The configured pair, else the table's entry for the first of `names` that matches a
 * checkpoint (exactly, or by its last path part: a folder `models/monot5-base-msmarco`
 * matches `castorini/monot5-base-msmarco`), else undefined.
 *
 * @example
 * predictionTokens({}, ['models/mt5-base-mmarco-v2']) // { false: '▁no', true: '▁yes', ... }
 */
export function predictionTokens(
  given: { token_false?: string | undefined; token_true?: string | undefined },
  names: readonly string[],
): PredictionTokens | undefined {
  if (given.token_false !== undefined && given.token_true !== undefined)
    return { false: given.token_false, true: given.token_true, source: 'the config' };
  for (const name of names) {
    const checkpoint = knownCheckpoint(name);
    if (checkpoint) {
      const [no, yes] = PREDICTION_TOKENS[checkpoint]!;
      return { false: no, true: yes, source: `the checkpoint ${checkpoint}` };
    }
  }
  return undefined;
}

function knownCheckpoint(name: string): string | undefined {
  const trimmed = name.replace(/[\\/]+$/, '');
  if (Object.hasOwn(PREDICTION_TOKENS, trimmed)) return trimmed;
  const last = basename(trimmed).toLowerCase();
  return Object.keys(PREDICTION_TOKENS).find((key) => basename(key).toLowerCase() === last);
}
