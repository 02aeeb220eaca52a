import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

const ID_FIELDS = ['id', '_id', 'docid', 'doc_id', 'pid', 'docno'];
const TEXT_FIELDS = ['text', 'contents', 'content', 'body', 'passage', 'abstract', 'document'];
const TITLE_FIELDS = ['title', 'headline'];

/** The fields of a JSONL corpus, as `irserve init` detects them from its first documents. */
export interface DetectedFields {
  idField: string;
  textFields: string[];
  titleField: string | undefined;
  /** Documents read to decide. */
  sampled: number;
}

/** Reads up to `limit` parsed objects from the start of a JSONL file; stops at the first bad line. */
export async function sampleDocuments(
  path: string,
  limit = 20,
): Promise<Record<string, unknown>[]> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }) });
  const documents: Record<string, unknown>[] = [];
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber++;
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new Error(`${path}:${lineNumber}: not JSON (each line must be one JSON object)`);
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        throw new Error(`${path}:${lineNumber}: each line must be a JSON object`);
      documents.push(value as Record<string, unknown>);
      if (documents.length >= limit) break;
    }
  } finally {
    lines.close();
  }
  return documents;
}

/**
 * Picks the id, text and title fields: the given ones when set (checked against the documents),
 * else the first conventional name present in every sampled document, else (for the text) every
 * string field that is not the id or the title.
 *
 * @example
 * detectFields([{ _id: '1', title: 'T', text: 'x' }], {}) // { idField: '_id', textFields: ['text'], titleField: 'title', sampled: 1 }
 */
export function detectFields(
  documents: readonly Record<string, unknown>[],
  given: { idField?: string; textFields?: string[]; titleField?: string },
): DetectedFields {
  if (documents.length === 0) throw new Error('no documents (the file is empty)');
  const inAll = (field: string) => documents.every((doc) => doc[field] !== undefined);
  const stringsInAll = (field: string) => documents.every((doc) => typeof doc[field] === 'string');
  const idField = given.idField ?? ID_FIELDS.find(inAll);
  if (idField === undefined || !inAll(idField))
    throw new Error(
      given.idField
        ? `--id_field ${given.idField}: not in every document`
        : `no id field found (looked for ${ID_FIELDS.join(', ')}): pass --id_field`,
    );
  const titleField = given.titleField ?? TITLE_FIELDS.find(stringsInAll);
  if (given.titleField !== undefined && !inAll(given.titleField))
    throw new Error(`--title_field ${given.titleField}: not in every document`);
  const known = TEXT_FIELDS.filter(stringsInAll);
  const others = Object.keys(documents[0]!).filter(
    (field) => field !== idField && field !== titleField && stringsInAll(field),
  );
  const textFields = given.textFields ?? (known.length > 0 ? known.slice(0, 1) : others);
  for (const field of textFields) {
    if (!inAll(field)) throw new Error(`--text_fields: "${field}" is not in every document`);
  }
  if (textFields.length === 0)
    throw new Error('no text field found (no string field besides the id): pass --text_fields');
  return { idField, textFields, titleField, sampled: documents.length };
}
