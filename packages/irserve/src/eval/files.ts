/**
 * The files of an evaluation: queries (JSONL), qrels (TREC or BEIR TSV) and TREC run files.
 */
import type { Qrels, Run } from './metrics.js';
import { rankDocuments } from './metrics.js';

export interface Query {
  id: string;
  text: string;
}

/**
 * Queries from JSONL: one object per line with `id` (or `_id`, `query_id`, `qid`) and `text`
 * (or `query`, `title`).
 */
export function parseQueries(jsonl: string, source = 'queries'): Query[] {
  const queries: Query[] = [];
  jsonl.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`${source} line ${index + 1}: not valid JSON`);
    }
    const id = value.id ?? value._id ?? value.query_id ?? value.qid;
    const text = value.text ?? value.query ?? value.title;
    if ((typeof id !== 'string' && typeof id !== 'number') || typeof text !== 'string')
      throw new Error(`${source} line ${index + 1}: expected {"id": ..., "text": "..."}`);
    queries.push({ id: String(id), text });
  });
  return queries;
}

/**
 * Qrels from TSV or whitespace-separated lines: TREC (`qid 0 docid rel`) or BEIR
 * (`query-id corpus-id score`, with or without its header line).
 */
export function parseQrels(text: string, source = 'qrels'): Qrels {
  const qrels = new Map<string, Map<string, number>>();
  text.split('\n').forEach((line, index) => {
    const cols = line.trim().split(/\s+/);
    if (cols.length === 1 && cols[0] === '') return;
    if (cols.length !== 3 && cols.length !== 4)
      throw new Error(`${source} line ${index + 1}: expected 3 or 4 columns`);
    const [query, doc, rel] =
      cols.length === 4 ? [cols[0]!, cols[2]!, cols[3]!] : [cols[0]!, cols[1]!, cols[2]!];
    const relevance = Number(rel);
    if (!Number.isFinite(relevance)) {
      if (index === 0) return; // a header line
      throw new Error(`${source} line ${index + 1}: relevance "${rel}" is not a number`);
    }
    let judged = qrels.get(query);
    if (!judged) qrels.set(query, (judged = new Map()));
    judged.set(doc, relevance);
  });
  return qrels;
}

/** A TREC run file: `qid Q0 docid rank score tag`, ranks from 1 in trec_eval order. */
export function formatTrecRun(run: Run, tag = 'irserve'): string {
  const lines: string[] = [];
  for (const [query, scores] of run) {
    rankDocuments(scores).forEach((doc, i) => {
      lines.push(`${query} Q0 ${doc} ${i + 1} ${scores[doc]} ${tag}`);
    });
  }
  return lines.length > 0 ? lines.join('\n') + '\n' : '';
}
