// Ranked results with their documents: text (and title) for text views, images for bytes views
// whose MIME type is an image.
import { content } from './api.js';
import { rankedList } from './lib/core/ranked-list.js';

function documentBody(doc) {
  const body = document.createElement('div');
  body.className = 'doc';
  if (doc.kind === 'bytes') {
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
  if (doc.title) {
    const title = document.createElement('div');
    title.className = 'doc-title';
    title.textContent = doc.title;
    body.append(title);
  }
  const text = document.createElement('div');
  text.className = 'doc-text';
  text.textContent = doc.text?.length > 400 ? `${doc.text.slice(0, 400)}…` : (doc.text ?? '');
  body.append(text);
  return body;
}

/**
 * Renders `scores` best first into `list` (ranked by score, not by the map's key order: a
 * JavaScript object lists integer-like ids such as Cranfield's in ascending numeric order);
 * fetches the document of each of the first `show` results from `collection` (its `view` when
 * given). `relevance` marks judged documents.
 */
export function drawResults(list, { scores, collection, view, show = 10, relevance }) {
  list.replaceChildren();
  const ranked = rankedList(scores ?? {}, show);
  if (ranked.length === 0) {
    const empty = document.createElement('li');
    empty.className = 'empty';
    empty.textContent = 'no results';
    list.append(empty);
    return;
  }
  for (const { id, score, rank } of ranked) {
    const item = document.createElement('li');
    item.className = 'result';
    const head = document.createElement('div');
    head.className = 'result-head';
    const grade = relevance?.get(id);
    head.innerHTML =
      '<span class="rank"></span><span class="docid"></span><span class="score"></span>';
    head.querySelector('.rank').textContent = String(rank);
    head.querySelector('.docid').textContent = id;
    head.querySelector('.score').textContent = Number(score).toFixed(4);
    if (grade !== undefined) {
      const badge = document.createElement('span');
      badge.className = grade > 0 ? 'judged relevant' : 'judged';
      badge.textContent = `rel ${grade}`;
      head.append(badge);
    }
    item.append(head);
    if (collection) {
      content(collection, id, view).then(
        (doc) => item.append(documentBody(doc)),
        (error) => {
          const note = document.createElement('div');
          note.className = 'doc missing';
          note.textContent = error.message;
          item.append(note);
        },
      );
    }
    list.append(item);
  }
}
