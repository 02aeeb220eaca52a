import { createAppFromFile } from '../app/from-file.js';
import type { CommandRun } from './command-run.js';
import { createCliLogger } from './logger.js';
import type { WARMUP } from './usage.js';

/**
 * `irserve warmup <config.json> [--offline]`: fetches and loads every model, builds every
 * offset map, shard index and engine index (BM25) ahead of serving, with progress; exits
 * non-zero naming what failed.
 */
export const warmupCommand: CommandRun<typeof WARMUP.flags> = async ({ flags, positionals }) => {
  const logger = await createCliLogger({ level: 'info', format: flags.log_format });
  const app = await createAppFromFile(positionals[0]!, {
    logger,
    ...(flags.offline ? { offline: true } : {}),
  });
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
  logger.info('warmup done: every model, collection and engine index is ready');
  return 0;
};
