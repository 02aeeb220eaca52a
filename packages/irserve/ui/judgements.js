// Qrels and queries picked in the page, scored with irserve eval's own code (served from the
// package's build at /ui/lib/eval/), so the page and `irserve eval` agree to the last digit.

let evalModules;

async function modules() {
  evalModules ??= Promise.all([import('./lib/eval/files.js'), import('./lib/eval/metrics.js')]);
  const [files, metrics] = await evalModules;
  return { files, metrics };
}

/** Parses a qrels file (TREC or BEIR TSV): Map of query id → Map of docid → grade. */
export async function parseQrelsFile(file) {
  const { files } = await modules();
  return files.parseQrels(await file.text(), file.name);
}

/** Parses a queries file (JSONL `{"id", "text"}`): a list of `{ id, text }`. */
export async function parseQueriesFile(file) {
  const { files } = await modules();
  return files.parseQueries(await file.text(), file.name);
}

/** nDCG@10 of `scores` (best first) for one query's judgements. */
export async function ndcgAt10(scores, judged) {
  const { metrics } = await modules();
  return metrics.ndcg(metrics.rankDocuments(scores), judged, 10);
}
