/** The tiny T5 fixture's reference scores (numpy, in make-t5.py) and folder variants. */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TINY_T5 } from './helpers.js';

export interface ReferencePair {
  query: string;
  passage: string;
  /** Token ids of the filled prompt, worked out by the generator from the vocabulary. */
  ids: number[];
  /** log_softmax([false, true])[true] of the first decoder step, evaluated with numpy. */
  score: number;
}

export const REFERENCE = JSON.parse(readFileSync(join(TINY_T5, 'reference.json'), 'utf8')) as {
  prompt: string;
  token_false: string;
  token_true: string;
  pairs: ReferencePair[];
};

/** The answer tokens the fixture is scored with (its checkpoint name is in no table). */
export const T5_TOKENS = { token_false: REFERENCE.token_false, token_true: REFERENCE.token_true };

/**
 * A copy of the tiny T5 folder at `dir`, without the files in `drop`, with `edit` applied to
 * config.json.
 */
export function t5Variant(
  dir: string,
  drop: readonly string[] = [],
  edit?: (config: Record<string, unknown>) => void,
): string {
  cpSync(TINY_T5, dir, {
    recursive: true,
    filter: (source) => !drop.some((name) => source.endsWith(`/${name}`)),
  });
  if (edit) {
    const file = join(dir, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    edit(config);
    writeFileSync(file, JSON.stringify(config));
  }
  return dir;
}
