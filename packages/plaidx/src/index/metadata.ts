/**
 * The JSON files of a PLAID index: `metadata.json` (ColBERT nests its settings under
 * `config`; next-plaid puts `nbits` at the top), `doclens.N.json` and `N.metadata.json`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FormatError } from '@irserve/dense';
import { SUPPORTED_NBITS } from './codec.js';

export interface IndexMetadata {
  numChunks: number;
  nbits: number;
  numEmbeddings: number | undefined;
  /** The whole parsed file (ColBERT's config, for `dim` and the checkpoint name). */
  raw: Record<string, unknown>;
}

/** Reads and parses a JSON file, naming it in every error. */
export async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new FormatError(
      path,
      `cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new FormatError(path, `not valid JSON (${(error as Error).message})`);
  }
}

function count(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Reads `metadata.json`; `nbits` must be 1, 2 or 4. */
export async function readIndexMetadata(dir: string): Promise<IndexMetadata> {
  const file = join(dir, 'metadata.json');
  const raw = await readJson(file);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new FormatError(file, 'expected a JSON object');
  const meta = raw as Record<string, unknown>;
  const config = (
    typeof meta.config === 'object' && meta.config !== null ? meta.config : {}
  ) as Record<string, unknown>;
  const nbits = meta.nbits ?? config.nbits;
  if (!SUPPORTED_NBITS.includes(nbits as 1))
    throw new FormatError(
      file,
      `unsupported nbits ${JSON.stringify(nbits)} (supported: ${SUPPORTED_NBITS.join(', ')})`,
    );
  if (!count(meta.num_chunks) || meta.num_chunks < 1)
    throw new FormatError(file, 'num_chunks must be a positive integer');
  const numEmbeddings = count(meta.num_embeddings) ? meta.num_embeddings : undefined;
  return { numChunks: meta.num_chunks, nbits: nbits as number, numEmbeddings, raw: meta };
}

/** Reads `doclens.N.json`: the token count of each passage of chunk N. */
export async function readDoclens(dir: string, chunk: number): Promise<number[]> {
  const file = join(dir, `doclens.${chunk}.json`);
  const value = await readJson(file);
  if (!Array.isArray(value) || !value.every(count))
    throw new FormatError(file, 'expected an array of non-negative integers');
  return value;
}
