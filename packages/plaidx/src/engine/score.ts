/**
 * The score role: exact MaxSim of each query against its passages, text passages encoded in
 * RoutIR's sliding windows (best window wins), pre-encoded `passage_vectors` scored whole.
 */
import { badRequest, type ScoreRequest } from 'irserve/plugin';
import { maxSim } from '../search/maxsim.js';
import type { TokenMatrix } from '../search/query.js';
import type { PlaidxConfig } from './config.js';
import { passageRows } from './request-vectors.js';
import { textWindows } from './windows.js';

export interface ScoreContext {
  settings: PlaidxConfig;
  encode: (texts: string[]) => Promise<TokenMatrix[]>;
}

/** Window texts of every text passage of the batch, with the passage each belongs to. */
function windowsOf(requests: readonly ScoreRequest[], settings: PlaidxConfig) {
  const texts: string[] = [];
  const owner: [number, number][] = [];
  requests.forEach((request, r) => {
    if (request.passage_vectors !== undefined) return;
    if (!Array.isArray(request.passages)) throw badRequest('passages: must be an array');
    request.passages.forEach((passage, p) => {
      if (typeof passage !== 'string')
        throw badRequest(`passages[${p}]: PLAIDX scores text passages`);
      if (passage.trim() === '') return;
      for (const window of textWindows(
        passage,
        settings.sliding_window_size,
        settings.sliding_window_stride,
      )) {
        texts.push(settings.passage_prompt.split('{passage}').join(window));
        owner.push([r, p]);
      }
    });
  });
  return { texts, owner };
}

/**
 * Scores a batch; empty passages score 0 (no token to match).
 *
 * @example await scorePassages([{ query: 'q', passages: ['a b'] }], [query], context) // [[7.1]]
 */
export async function scorePassages(
  requests: readonly ScoreRequest[],
  queries: readonly TokenMatrix[],
  context: ScoreContext,
): Promise<number[][]> {
  const results = requests.map((request) => {
    const count = Array.isArray(request.passages) ? request.passages.length : 0;
    return new Array<number>(count).fill(0);
  });
  requests.forEach((request, r) => {
    if (request.passage_vectors === undefined) return;
    const query = queries[r]!;
    const limits = { dim: query.dim, maxRows: 100_000 };
    passageRows(request.passage_vectors, results[r]!.length, limits).forEach((passage, p) => {
      results[r]![p] = maxSim(query, passage.vectors, 0, passage.length);
    });
  });
  const { texts, owner } = windowsOf(requests, context.settings);
  if (texts.length === 0) return results;
  const seen = requests.map((r) =>
    new Array<boolean>(Array.isArray(r.passages) ? r.passages.length : 0).fill(false),
  );
  const encoded = await context.encode(texts);
  encoded.forEach((window, w) => {
    const [r, p] = owner[w]!;
    const score = maxSim(queries[r]!, window.vectors, 0, window.length);
    results[r]![p] = seen[r]![p] ? Math.max(results[r]![p]!, score) : score;
    seen[r]![p] = true;
  });
  return results;
}
