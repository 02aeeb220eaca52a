/**
 * The encoded corpus a build reads: one JSONL file, one `.jsonl.gz`, or a directory of them
 * (read in name order, so a build is reproducible).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

const CORPUS_FILE = /\.(jsonl|json)(\.gz)?$/;

export interface InputFile {
  path: string;
  bytes: number;
  gzip: boolean;
}

/**
 * Lists the corpus files of `input` (a file or a directory); throws when there are none.
 *
 * @example const files = await listInputFiles('splade-corpus/'); // [{ path, bytes, gzip }]
 */
export async function listInputFiles(input: string): Promise<InputFile[]> {
  const info = await stat(input).catch(() => undefined);
  if (!info) throw new Error(`input ${input} does not exist`);
  if (info.isFile()) return [{ path: input, bytes: info.size, gzip: input.endsWith('.gz') }];
  if (!info.isDirectory()) throw new Error(`input ${input} is neither a file nor a directory`);
  const names = (await readdir(input)).filter((name) => CORPUS_FILE.test(name)).sort();
  if (names.length === 0)
    throw new Error(`input directory ${input} holds no .jsonl, .jsonl.gz, .json or .json.gz file`);
  return Promise.all(
    names.map(async (name) => {
      const path = join(input, name);
      return { path, bytes: (await stat(path)).size, gzip: name.endsWith('.gz') };
    }),
  );
}
