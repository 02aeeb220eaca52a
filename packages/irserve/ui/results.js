// Ranked results with their documents: text (and title) for text views, query terms marked;
// images for bytes views whose MIME type is an image; judged / unjudged marks from the qrels.
import { content } from './api.js';
import { appendHighlighted, snippetOf } from './highlight.js';

function bytesBody(body, doc) {
  for (const part of doc.data ?? []) {
    const mime = part.mime ?? 'application/octet-stream';
    if (/^image\//.test(mime)) {
      const image = document.createElement('img');
      image.src = `data:${mime};base64,${part.data}`;
      image.alt = doc.id;
      body.append(image);
    } else {
      const note = document.createElement('div');
      note.textContent = `${mime}: ${Math.floor((part.data.length * 3) / 4)} bytes`;
      body.append(note);
    }
  }
  return body;
}

function documentBody(doc, pattern) {
  const body = document.createElement('div');
  body.className = 'doc';
  if (doc.kind === 'bytes') return bytesBody(body, doc);
  if (doc.title) {
    const title = document.createElement('div');
    title.className = 'doc-title';
    appendHighlighted(title, doc.title, pattern);
    body.append(title);
  }
  const text = document.createElement('div');
  text.className = 'doc-text';
  appendHighlighted(text, snippetOf(doc.text ?? '', pattern), pattern);
  body.append(text);
  return body;
}

/**
 * The mark of a document against one query's judgements: `rel N` (relevant when N > 0, judged
 * not relevant otherwise) or `unjudged`; none when no judgements are chosen.
 */
function judgementMark(relevance, id) {
  if (!relevance) return undefined;
  const badge = document.createElement('span');
  const grade = relevance.get(id);
  if (grade === undefined) {
    badge.className = 'judgement unjudged';
    badge.textContent = 'unjudged';
    badge.title = 'not in the qrels of this query';
  } else {
    badge.className = grade > 0 ? 'judgement judged relevant' : 'judgement judged';
    badge.textContent = `rel ${grade}`;
    badge.title = grade > 0 ? `judged relevant (grade ${grade})` : 'judged not relevant';
  }
  return badge;
}

function resultHead({ id, score, rank }, relevance) {
  const head = document.createElement('div');
  head.className = 'result-head';
  const parts = [
    ['rank', String(rank)],
    ['docid', id],
    ['score', Number(score).toFixed(4)],
  ];
  for (const [className, text] of parts) {
    const span = document.createElement('span');
    span.className = className;
    span.textContent = text;
    head.append(span);
  }
  const mark = judgementMark(relevance, id);
  if (mark) head.append(mark);
  return head;
}

function loadDocument(item, { collection, view, pattern }, id) {
  content(collection, id, view).then(
    (doc) => item.append(documentBody(doc, pattern)),
    (error) => {
      const note = document.createElement('div');
      note.className = 'doc missing';
      note.textContent = error.message;
      item.append(note);
    },
  );
}

/**
 * Renders `docs` (a slice of a ranked list: `{ id, score, rank }` best first, ranks counted over
 * the whole list) into `list`, fetching each document from `collection` (its `view` when given).
 * `relevance` (docid → grade) marks judged and unjudged documents; `pattern` marks query terms.
 */
export function drawResults(list, { docs, collection, view, relevance, pattern }) {
  list.replaceChildren();
  if (docs.length === 0) {
    const empty = document.createElement('li');
    empty.className = 'empty';
    empty.textContent = 'no results';
    list.append(empty);
    return;
  }
  for (const doc of docs) {
    const item = document.createElement('li');
    item.className = 'result';
    item.dataset.rank = String(doc.rank);
    item.append(resultHead(doc, relevance));
    if (collection) loadDocument(item, { collection, view, pattern }, doc.id);
    list.append(item);
  }
  list.start = docs[0].rank;
}
