/**
 * Small checks shared by the Orama and MiniSearch examples: a service's `config` object is
 * checked once, in the engine's constructor, and every problem names its field
 * (`config.fields[1]: ...`). irserve turns a constructor error into a start-up error that also
 * names the service, so a bad config never reaches the first request.
 *
 * The file is not listed in `file_imports`: the engine files import it. Copy it along with them.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { badRequest, type CollectionCatalog, type TextView } from 'irserve/plugin';

/** The parts of a text view's documents that these engines index. */
export const DOCUMENT_FIELDS = ['title', 'text'] as const;
export type DocumentField = (typeof DOCUMENT_FIELDS)[number];

/** Collects problems so that one error lists all of them, not just the first. */
export class ConfigProblems {
  readonly #lines: string[] = [];

  add(field: string, message: string): void {
    this.#lines.push(`config.${field}: ${message}`);
  }

  /** Throws one error listing every problem, if there is any. */
  throwIfAny(): void {
    if (this.#lines.length > 0) throw new Error(this.#lines.join('; '));
  }
}

/** Reports every key of `config` that is not in `known` (a typo would otherwise be ignored). */
export function checkKnownKeys(
  config: Record<string, unknown>,
  known: readonly string[],
  problems: ConfigProblems,
): void {
  for (const key of Object.keys(config)) {
    if (!known.includes(key)) problems.add(key, `unknown key (known: ${known.join(', ')})`);
  }
}

/** `config[key]` when it is a non-empty string; reports a problem otherwise. */
export function requiredString(
  config: Record<string, unknown>,
  key: string,
  problems: ConfigProblems,
  hint: string,
): string {
  const value = config[key];
  if (typeof value === 'string' && value.length > 0) return value;
  problems.add(key, value === undefined ? `required: ${hint}` : `must be a non-empty string`);
  return '';
}

/** `config[key]` when it is a finite number in [min, max], `fallback` when absent. */
export function optionalNumber(
  config: Record<string, unknown>,
  key: string,
  problems: ConfigProblems,
  { min, max, fallback }: { min: number; max: number; fallback: number },
): number {
  const value = config[key];
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max)
    return value;
  problems.add(key, `must be a number from ${min} to ${max}`);
  return fallback;
}

/** `config[key]` when it is a boolean, `fallback` when absent. */
export function optionalBoolean(
  config: Record<string, unknown>,
  key: string,
  problems: ConfigProblems,
  fallback: boolean,
): boolean {
  const value = config[key];
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  problems.add(key, 'must be true or false');
  return fallback;
}

/** The `fields` list: document fields to index, default both. */
export function readFields(
  config: Record<string, unknown>,
  problems: ConfigProblems,
): DocumentField[] {
  const value = config.fields;
  if (value === undefined) return [...DOCUMENT_FIELDS];
  if (!Array.isArray(value) || value.length === 0) {
    problems.add('fields', `must be a non-empty list of ${DOCUMENT_FIELDS.join(', ')}`);
    return [...DOCUMENT_FIELDS];
  }
  const fields: DocumentField[] = [];
  value.forEach((field: unknown, i) => {
    const known = DOCUMENT_FIELDS.find((name) => name === field);
    if (known === undefined)
      problems.add(
        `fields[${i}]`,
        `unknown field ${JSON.stringify(field)} (a text view has: ${DOCUMENT_FIELDS.join(', ')})`,
      );
    else if (fields.includes(known)) problems.add(`fields[${i}]`, `"${known}" is listed twice`);
    else fields.push(known);
  });
  return fields;
}

/** `boost`: a weight per indexed field, e.g. `{"title": 2}`. */
export function readBoost(
  config: Record<string, unknown>,
  fields: readonly DocumentField[],
  problems: ConfigProblems,
): Partial<Record<DocumentField, number>> {
  const value = config.boost;
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.add('boost', 'must be an object of field weights, e.g. {"title": 2}');
    return {};
  }
  const boost: Partial<Record<DocumentField, number>> = {};
  for (const [key, weight] of Object.entries(value)) {
    const field = fields.find((name) => name === key);
    if (field === undefined)
      problems.add(`boost.${key}`, `not an indexed field (fields: ${fields.join(', ')})`);
    else if (typeof weight !== 'number' || !(weight > 0))
      problems.add(`boost.${key}`, 'must be a positive number');
    else boost[field] = weight;
  }
  return boost;
}

/**
 * The text view the engine indexes: `config.collection` must name one of the app's collections
 * and `config.view` (optional) one of its text views.
 */
export function resolveTextView(
  collections: CollectionCatalog,
  collection: string,
  view: string | undefined,
): TextView {
  if (!collections.has(collection)) {
    const known = collections.names().join(', ') || 'none';
    throw new Error(`config.collection: no collection "${collection}" (collections: ${known})`);
  }
  let resolved;
  try {
    resolved = collections.get(collection).view(view);
  } catch (error) {
    throw new Error(`config.view: ${(error as Error).message}`, { cause: error });
  }
  if (resolved.kind !== 'text')
    throw new Error(`config.view: "${resolved.name}" is a ${resolved.kind} view, not a text view`);
  if (resolved.documents === undefined)
    throw new Error(`config.view: "${resolved.name}" cannot list its documents to index them`);
  return resolved;
}

/**
 * Reads a `subset_mapping` file (JSON `{"docid": "label"}`, relative to the config file).
 * Undefined when the service has none.
 */
export async function readSubsetMapping(
  configDir: string,
  path: string | undefined,
): Promise<Map<string, string> | undefined> {
  if (path === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(resolve(configDir, path), 'utf8'));
  } catch (error) {
    throw new Error(`config.subset_mapping: cannot read ${path}: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`config.subset_mapping: ${path} must hold an object {"docid": "label"}`);
  return new Map(Object.entries(parsed).map(([id, label]) => [id, String(label)]));
}

/**
 * The request's `subset` label, checked: undefined when the request has none; a 400 when the
 * service has no mapping or does not know the label (an empty answer would hide the typo).
 */
export function checkSubset(
  service: string,
  labels: ReadonlySet<string> | undefined,
  subset: unknown,
): string | undefined {
  if (subset === undefined || subset === null) return undefined;
  if (typeof subset !== 'string') throw badRequest('subset: must be a string');
  if (labels === undefined) throw badRequest(`subset: service "${service}" has no subset_mapping`);
  if (!labels.has(subset))
    throw badRequest(`subset: unknown subset "${subset}" (known: ${[...labels].join(', ')})`);
  return subset;
}

/** Lucene's 33 English stop words: the list irserve's BM25 drops by default. */
export const LUCENE_STOPWORDS = [
  ...['a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is'],
  ...['it', 'no', 'not', 'of', 'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there'],
  ...['these', 'they', 'this', 'to', 'was', 'will', 'with'],
];

/** `stopwords`: "lucene" (default), "none", or a list of words. */
export function readStopwords(config: Record<string, unknown>, problems: ConfigProblems): string[] {
  const value = config.stopwords ?? 'lucene';
  if (value === 'lucene') return LUCENE_STOPWORDS;
  if (value === 'none') return [];
  if (Array.isArray(value) && value.every((word) => typeof word === 'string'))
    return value.map((word) => word.toLowerCase());
  problems.add('stopwords', 'must be "lucene", "none" or a list of words');
  return LUCENE_STOPWORDS;
}
