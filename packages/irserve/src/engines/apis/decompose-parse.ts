/**
 * Reads sub-queries out of whatever a chat model answered: a JSON array, a JSON object holding
 * a list (`{"queries": [...]}`), either inside a fenced code block or prose, numbered lines,
 * bullets, or plain lines. Reasoning blocks (`<think>...</think>`) are ignored. Never throws:
 * an answer with nothing usable gives an empty list, and the engine falls back to the query.
 */

/** Keys a list of sub-queries is most often put under, tried before any other list field. */
const LIST_KEYS = ['queries', 'sub_queries', 'subqueries', 'questions', 'search_queries'];

/**
 * At most `limit` distinct, non-empty sub-queries, in the model's order.
 *
 * @example
 * parseSubQueries('Here you go:\n1. "bm25 scoring"\n2. dense retrieval', 5)
 * // ['bm25 scoring', 'dense retrieval']
 */
export function parseSubQueries(answer: string, limit: number): string[] {
  const text = answer.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  const fenced = /```[\w-]*\s*\n?([\s\S]*?)```/.exec(text)?.[1];
  const found =
    (fenced === undefined ? undefined : fromJson(fenced.trim())) ??
    fromJson(text) ??
    fromBracketed(text) ??
    fromCutArray(fenced ?? text) ??
    fromLines(fenced ?? text);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of found) {
    const query = clean(raw);
    const key = query.toLowerCase();
    if (query === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(query);
    if (out.length >= limit) break;
  }
  return out;
}

/** Undefined when `text` is not JSON; a JSON answer with no list in it is final: []. */
function fromJson(text: string): string[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return fromValue(value) ?? [];
}

/** Strings of a list (or of `{query}` / `{text}` items), or of the first list in an object. */
function fromValue(value: unknown): string[] | undefined {
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => {
      if (typeof item === 'string') return item;
      const record = item as Record<string, unknown> | null;
      const field = record?.query ?? record?.text;
      return typeof field === 'string' ? field : undefined;
    });
    const strings = items.filter((item): item is string => item !== undefined);
    return strings.length > 0 ? strings : undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  const keys = [...LIST_KEYS.filter((key) => key in record), ...Object.keys(record)];
  for (const key of keys) {
    const found = Array.isArray(record[key]) ? fromValue(record[key]) : undefined;
    if (found) return found;
  }
  return undefined;
}

/** The first `[...]` in prose that parses as JSON (widest first, then the nearest `]`). */
function fromBracketed(text: string): string[] | undefined {
  const start = text.indexOf('[');
  if (start < 0) return undefined;
  const ends = [text.lastIndexOf(']'), text.indexOf(']', start)];
  for (const end of ends) {
    if (end > start) {
      const found = fromJson(text.slice(start, end + 1));
      if (found) return found;
    }
  }
  return undefined;
}

/** The complete strings of an array cut short (an answer that ran into `max_tokens`). */
function fromCutArray(text: string): string[] | undefined {
  if (!text.trimStart().startsWith('[')) return undefined;
  const strings = [...text.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => {
    try {
      return JSON.parse(match[0]) as string;
    } catch {
      return match[1] ?? '';
    }
  });
  return strings.length > 0 ? strings : undefined;
}

const MARKER = /^\s*(?:[-*•+]|\d+[.):]|\(\d+\)|#+)\s+/;

/** Numbered or bulleted lines when there are any (prose around them is dropped), else all lines. */
function fromLines(text: string): string[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const marked = lines.filter((line) => MARKER.test(line));
  return (marked.length > 0 ? marked : lines).map((line) => line.replace(MARKER, ''));
}

function clean(query: string): string {
  return query
    .trim()
    .replace(/,$/, '')
    .replace(/^["'“‘`]+|["'”’`]+$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
