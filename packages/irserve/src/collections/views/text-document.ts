import { IrserveError } from '../../errors.js';
import type { TextDocument } from '../types.js';

/** How a text view turns a JSON document into `text` and `title`. */
export interface TextFields {
  contentFields: readonly string[];
  sep: string;
  titleField: string;
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** Parses one corpus line; a line that is not a JSON object is a corpus error (500). */
export function parseLine(line: string, where: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(line);
  } catch (error) {
    throw new IrserveError('ERR_INTERNAL', `${where}: the stored line is not valid JSON`, {
      cause: error,
    });
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new IrserveError('ERR_INTERNAL', `${where}: the stored line is not a JSON object`);
  }
  return doc as Record<string, unknown>;
}

/**
 * The document's content fields joined by `sep` (missing fields are left out), with `title`
 * when the document has one and `language` when known.
 *
 * @example
 * toTextDocument('d1', { title: 'T', text: 'body' }, { contentFields: ['title', 'text'], sep: '\n', titleField: 'title' })
 * // { id: 'd1', text: 'T\nbody', title: 'T' }
 */
export function toTextDocument(
  id: string,
  doc: Record<string, unknown>,
  fields: TextFields,
  language?: string,
): TextDocument {
  const parts: string[] = [];
  for (const field of fields.contentFields) {
    const value = asText(doc[field]);
    if (value !== undefined) parts.push(value);
  }
  const out: TextDocument = { id, text: parts.join(fields.sep) };
  const title = asText(doc[fields.titleField]);
  if (title !== undefined) out.title = title;
  if (language !== undefined) out.language = language;
  return out;
}
