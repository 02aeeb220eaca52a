// Query terms marked in a document's text. The text is never parsed as HTML: it is split into
// text nodes and <mark> elements, so a document holding `<script>` or `<img onerror>` shows as
// the characters it is. Stop words are not marked: BM25's default analysis (Lucene's English
// stop set) does not match them, and marking every "of" and "the" hides the terms that count.

import { LUCENE_ENGLISH_STOP_WORDS } from './lib/engines/bm25/stopwords.js';

const STOP_WORDS = new Set(LUCENE_ENGLISH_STOP_WORDS);
const WORD = /[\p{L}\p{N}]+/gu;
const SNIPPET = 400;

/**
 * The distinct words of a query, lowercased, stop words left out
 * (`"The neural  neural-IR"` → `["neural", "ir"]`).
 */
export function queryTerms(query) {
  const words = (query ?? '').toLowerCase().match(WORD) ?? [];
  return [...new Set(words.filter((word) => !STOP_WORDS.has(word)))];
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A pattern matching any of `terms` as a whole word, case-insensitively (a term inside a longer
 * word does not match: "ret" does not mark "retrieval"); undefined without terms.
 */
export function termPattern(terms) {
  if (terms.length === 0) return undefined;
  const longestFirst = [...terms].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${longestFirst.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
}

/**
 * The part of `text` to show: its first SNIPPET characters, or a window starting shortly before
 * the first match when that lies further in, with "…" where text was cut.
 */
export function snippetOf(text, pattern) {
  if (text.length <= SNIPPET) return text;
  pattern && (pattern.lastIndex = 0);
  const first = pattern?.exec(text)?.index ?? 0;
  const start = first + 40 > SNIPPET ? Math.max(0, first - 100) : 0;
  const end = Math.min(text.length, start + SNIPPET);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

/** Appends `text` to `element`, each match of `pattern` wrapped in <mark>. */
export function appendHighlighted(element, text, pattern) {
  if (!pattern) return element.append(text);
  pattern.lastIndex = 0;
  let from = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > from) element.append(text.slice(from, match.index));
    const mark = document.createElement('mark');
    mark.textContent = match[0];
    element.append(mark);
    from = match.index + match[0].length;
  }
  if (from < text.length) element.append(text.slice(from));
}
