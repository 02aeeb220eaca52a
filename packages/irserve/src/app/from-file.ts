import { createApp, type App, type AppOptions } from '../app.js';
import { ConfigError, readConfigFile } from '../config/load.js';

/**
 * The app of a config file (the commands' way in): read, then checked in one round with the
 * engine configs by `createApp`; a configuration error names the file.
 *
 * @example
 * const app = await createAppFromFile('config.json', { logger });
 */
export async function createAppFromFile(
  path: string,
  options: Omit<AppOptions, 'configDir'> = {},
): Promise<App> {
  const { input, configDir } = await readConfigFile(path);
  try {
    return await createApp(input, { ...options, configDir });
  } catch (error) {
    if (error instanceof ConfigError && !error.message.includes(path))
      throw new ConfigError(error.problems, path);
    throw error;
  }
}
