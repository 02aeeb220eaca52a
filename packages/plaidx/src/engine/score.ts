/**
 * The score role: exact MaxSim of each query against its passages; text passages go through
 * the encoder in windows (the best window wins, as RoutIR), pre-encoded `passage_vectors` are
 * scored whole.
 */
import { badRequest, type ScoreRequest } from 'irserve/plugin';
import { maxSim } from '../search/maxsim.js';
import type { TokenMatrix } from '../search/query.js';
import { passageRows } from './request-vectors.js';
import type { PassageWindow } from './token-encoder.js';

/** Text passages of the batch that need encoding, with the (request, passage) each is. */
function textPassages(requests: readonly ScoreRequest[]) {
  const texts: string[] = [];
  const owner: [number, number][] = [];
  requests.forEach((request, r) => {
    if (request.passage_vectors !== undefined) return;
    if (!Array.isArray(request.passages)) throw badRequest('passages: must be an array');
    request.passages.forEach((passage, p) => {
      if (typeof passage !== 'string')
        throw badRequest(`passages[${p}]: PLAIDX scores text passages`);
      texts.push(passage);
      owner.push([r, p]);
    });
  });
  return { texts, owner };
}

/**
 * Scores a batch; empty passages score 0 (no token to match).
 *
 * @example await scorePassages([{ query: 'q', passages: ['a b'] }], [query], encodePassages) // [[7.1]]
 */
export async function scorePassages(
  requests: readonly ScoreRequest[],
  queries: readonly TokenMatrix[],
  encodePassages: (texts: string[]) => Promise<PassageWindow[]>,
): Promise<number[][]> {
  const results = requests.map((request) =>
    new Array<number>(Array.isArray(request.passages) ? request.passages.length : 0).fill(0),
  );
  requests.forEach((request, r) => {
    if (request.passage_vectors === undefined) return;
    const query = queries[r]!;
    passageRows(request.passage_vectors, results[r]!.length, {
      dim: query.dim,
      maxRows: 100_000,
    }).forEach((passage, p) => {
      results[r]![p] = maxSim(query, passage.vectors, 0, passage.length);
    });
  });
  const { texts, owner } = textPassages(requests);
  if (texts.length === 0) return results;
  const seen = new Set<number>();
  for (const window of await encodePassages(texts)) {
    const [r, p] = owner[window.passage]!;
    const score = maxSim(queries[r]!, window.matrix.vectors, 0, window.matrix.length);
    results[r]![p] = seen.has(window.passage) ? Math.max(results[r]![p]!, score) : score;
    seen.add(window.passage);
  }
  return results;
}
