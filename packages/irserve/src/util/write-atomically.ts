/**
 * Replacing a small file so that a reader sees the old content or the new, never half of it:
 * the text goes to a temporary file beside the target (a random name, so two writers do not
 * share one), which is then renamed over it. A failed write leaves no temporary file behind.
 */
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';

/**
 * Writes `text` to `path` atomically; the folder must exist. Rejects with the write's or the
 * rename's error (EACCES in a read-only folder).
 *
 * @example await writeFileAtomically(join(dir, 'manifest.json'), JSON.stringify(manifest));
 */
export async function writeFileAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, text);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}
