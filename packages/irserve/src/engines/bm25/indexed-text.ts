import type { TextDocument } from '../../collections/types.js';

/** The document parts BM25 can index: the view's title and its text (content fields). */
export type IndexedField = 'title' | 'text';

/**
 * The text indexed for a document: the chosen parts joined by a newline, as one bag of words.
 * When both `title` and `text` are chosen and the text already begins with the title (a view
 * whose content fields start with the title field), the title is not added a second time.
 *
 * @example
 * indexedText({ id: '1', title: 'Wings', text: 'Lift of wings' }, ['title', 'text']) // 'Wings\nLift of wings'
 * indexedText({ id: '1', title: 'Wings', text: 'Wings\nLift' }, ['title', 'text'])   // 'Wings\nLift'
 */
export function indexedText(doc: TextDocument, fields: readonly IndexedField[]): string {
  const parts: string[] = [];
  const withText = fields.includes('text');
  for (const field of fields) {
    if (field === 'text') parts.push(doc.text);
    else if (doc.title !== undefined && !(withText && doc.text.startsWith(doc.title)))
      parts.push(doc.title);
  }
  return parts.join('\n');
}
