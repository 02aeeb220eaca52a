/** A temporary folder for a test, with the files a world writes into it. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TempDir {
  readonly path: string;
  /** `path` joined with `parts`. */
  join(...parts: string[]): string;
  /** Writes a file (text or bytes) under the folder, making its folders; resolves to its path. */
  write(name: string, content: string | Uint8Array): Promise<string>;
  /** Writes one JSON object per line; resolves to the file's path. */
  writeJsonl(name: string, rows: readonly unknown[]): Promise<string>;
  /** Deletes the folder and everything in it. */
  remove(): Promise<void>;
}

/**
 * A new empty folder under the OS temp directory.
 *
 * @example
 * const dir = await tempDir('my-engine-');
 * await dir.writeJsonl('corpus.jsonl', [{ id: 'd1', text: 'jet engines' }]);
 * afterAll(() => dir.remove());
 */
export async function tempDir(prefix = 'irserve-test-'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  const joined = (...parts: string[]) => join(path, ...parts);
  const write = async (name: string, content: string | Uint8Array) => {
    const file = joined(name);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
    return file;
  };
  return {
    path,
    join: joined,
    write,
    writeJsonl: (name, rows) => write(name, jsonLines(rows)),
    remove: () => rm(path, { recursive: true, force: true }),
  };
}

/** Rows as JSONL text: one JSON object a line, a newline after the last. */
export function jsonLines(rows: readonly unknown[]): string {
  return rows.map((row) => JSON.stringify(row)).join('\n') + '\n';
}
