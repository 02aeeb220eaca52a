/**
 * Opens an example config the way a user does: the JSON file as written, validated by
 * `loadConfigFile`, wired by `createApp` with the config's directory (so `file_imports` and the
 * relative corpus path resolve as they do for `irserve <config.json>`). Only the cache directory
 * moves to a temporary one, so that tests leave nothing in examples/.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createApp, loadConfigFile, type App } from '../../src/index.js';
import { quietLogger } from '../helpers/logger.js';

export const EXAMPLES = resolve(import.meta.dirname, '../../../../examples');
export const CRANFIELD = join(EXAMPLES, 'quickstart/data/cranfield');

type JsonObject = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ExampleApp {
  app: App;
  post(url: string, payload: object): Promise<{ status: number; body: JsonObject }>;
  close(): Promise<void>;
}

/** The example's config, edited by `edit` (a copy), loaded with loadConfigFile and started. */
export async function openExample(
  example: string,
  edit: (config: JsonObject) => void = () => undefined,
): Promise<ExampleApp> {
  const path = join(EXAMPLES, example, 'config.json');
  const config = JSON.parse(await readFile(path, 'utf8')) as JsonObject;
  edit(config);
  const cacheDir = await mkdtemp(join(tmpdir(), 'irserve-integration-'));
  // The edited copy lives in the temporary directory; configDir stays the example's own, so
  // file_imports and the corpus path resolve exactly as they do for the file as shipped.
  const edited = join(cacheDir, 'config.json');
  await writeFile(edited, JSON.stringify(config));
  const loaded = await loadConfigFile(edited);
  const app = await createApp(loaded.config, {
    configDir: dirname(path),
    cacheDir,
    logger: quietLogger(),
    interactive: false,
  });
  try {
    await app.start();
  } catch (error) {
    await app.close();
    await rm(cacheDir, { recursive: true, force: true });
    throw error;
  }
  return {
    app,
    async post(url, payload) {
      const response = await app.http.inject({ method: 'POST', url, payload });
      return { status: response.statusCode, body: response.json() };
    },
    async close() {
      await app.close();
      await rm(cacheDir, { recursive: true, force: true });
    },
  };
}

/** The service entry named `name` in a config's `services`. */
export function service(config: JsonObject, name: string): JsonObject {
  const found = (config.services as JsonObject[]).find((s) => s.name === name);
  if (found === undefined) throw new Error(`no service "${name}" in the example config`);
  return found;
}
