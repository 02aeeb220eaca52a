// The table "nDCG@10 per query": every judged query run through pipelines A and B, with means.
import { runPipeline } from './api.js';
import { ndcgAt10 } from './judgements.js';

const $ = (selector) => document.querySelector(selector);

/** The query ids to choose from: the queries file's, else the qrels'. */
export function fillQueryIds(queries, qrels) {
  const select = $('#query-id');
  const chosen = select.value;
  const ids = queries.length > 0 ? queries.map((q) => q.id) : [...(qrels?.keys() ?? [])];
  select.replaceChildren(new Option('(none)', ''), ...ids.map((id) => new Option(id, id)));
  if (ids.includes(chosen)) select.value = chosen;
}

async function scoreOf(pipeline, query, collection, judged) {
  if (!pipeline) return undefined;
  const envelope = await runPipeline({ pipeline, query, collection, limit: 10 });
  return ndcgAt10(envelope.scores, judged);
}

/**
 * Fills the table: one row per query of `queries` judged in `qrels`, nDCG@10 of `pipelines`
 * (`[A, B]`) on `collection`; clicking a row calls `onOpen(query)`. `setStatus` tells progress.
 */
export async function runJudged({ queries, qrels, pipelines, collection, onOpen, setStatus }) {
  const rows = $('#judged tbody');
  rows.replaceChildren();
  const judgedQueries = queries.filter((query) => qrels.has(query.id));
  const sums = [0, 0];
  for (const [index, query] of judgedQueries.entries()) {
    setStatus(`judged query ${index + 1} of ${judgedQueries.length}`);
    const judged = qrels.get(query.id);
    const values = await Promise.all(
      pipelines.map((pipeline) =>
        scoreOf(pipeline, query.text, collection, judged).catch(() => undefined),
      ),
    );
    values.forEach((value, i) => (sums[i] += value ?? 0));
    const row = rows.insertRow();
    for (const value of [query.id, query.text, ...values.map((v) => v?.toFixed(4) ?? '–')])
      row.insertCell().textContent = value;
    row.addEventListener('click', () => onOpen(query));
  }
  const count = Math.max(judgedQueries.length, 1);
  $('#judged .mean-a').textContent = (sums[0] / count).toFixed(4);
  $('#judged .mean-b').textContent = (sums[1] / count).toFixed(4);
  setStatus(`${judgedQueries.length} judged queries`);
}
