import { parseArgs } from 'node:util';
import { createApp } from '../app.js';
import { loadConfigFile } from '../config/load.js';
import { createCliLogger } from './logger.js';
import { UsageError } from './usage-error.js';

/**
 * `irserve warmup <config.json>`: builds every offset map, shard index and engine index (BM25)
 * ahead of serving, with progress; exits non-zero naming what failed.
 */
export async function warmupCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'log-format': { type: 'string', default: 'auto' } },
  });
  if (positionals.length !== 1) throw new UsageError('usage: irserve warmup <config.json>');
  const logger = await createCliLogger({ level: 'info', format: values['log-format'] });
  const { config, configDir } = await loadConfigFile(positionals[0]!);
  const app = await createApp(config, { logger, configDir });
  const failures: string[] = [];
  try {
    await app.core.content
      .open()
      .catch((error: unknown) => failures.push(`collections: ${(error as Error).message}`));
    await app.start().catch((error: unknown) => failures.push((error as Error).message));
  } finally {
    await app.close();
  }
  if (failures.length > 0) {
    for (const failure of failures) logger.error(failure);
    return 1;
  }
  logger.info('warmup done: every collection and engine index is ready');
  return 0;
}
