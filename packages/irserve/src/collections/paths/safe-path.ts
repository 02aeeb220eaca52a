/**
 * Path confinement for bytes views: a file an id leads to must lie inside the view's base
 * directory, both as written (no `..` or absolute escape) and after symlinks are resolved.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { badRequest, type IrserveError } from '../../errors.js';

/** Whether `path` is `base` or lies below it (both absolute and normalized). */
export function isInside(base: string, path: string): boolean {
  const rel = relative(base, path);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/** Ids that can never name a file: empty, or with a NUL byte. */
export function checkPathId(id: string): void {
  if (id === '' || id.includes('\0'))
    throw badRequest('id: must be a non-empty string without NUL characters', { fields: ['id'] });
}

/** The error for an id that leads outside the base directory (400). */
export function outsideError(id: string): IrserveError {
  return badRequest(
    `id: ${JSON.stringify(id.slice(0, 200))} leads outside the view's base directory`,
    { fields: ['id'] },
  );
}

/** Throws ERR_BAD_REQUEST when `candidate` (absolute) leaves `base`. */
export function assertInside(base: string, candidate: string, id: string): void {
  if (!isInside(base, candidate)) throw outsideError(id);
}

/**
 * The real path of an existing file inside `realBase`, undefined when it does not exist, and an
 * error when it (or a symlink on the way) leads outside.
 */
export async function confinedRealPath(
  realBase: string,
  candidate: string,
  id: string,
): Promise<string | undefined> {
  assertInside(realBase, resolve(candidate), id);
  let real: string;
  try {
    real = await realpath(candidate);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG') return undefined;
    throw error;
  }
  assertInside(realBase, real, id);
  return real;
}
