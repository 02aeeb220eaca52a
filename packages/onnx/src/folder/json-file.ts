/** Reading the small JSON files of a model folder, with errors that name the file. */
import { readFile } from 'node:fs/promises';
import { modelError } from '../errors.js';

/**
 * The parsed JSON value at `file`, or undefined when the file does not exist.
 *
 * @example
 * const modules = await readJson('/models/e5', '/models/e5/modules.json');
 */
export async function readJson(folder: string, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw modelError(folder, `cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw modelError(folder, `${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The parsed JSON object at `file`, or undefined when the file does not exist.
 *
 * @example
 * const config = await readJsonObject('/models/e5', '/models/e5/config.json');
 */
export async function readJsonObject(
  folder: string,
  file: string,
): Promise<Record<string, unknown> | undefined> {
  const value = await readJson(folder, file);
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw modelError(folder, `${file} must hold a JSON object`);
  return value as Record<string, unknown>;
}
