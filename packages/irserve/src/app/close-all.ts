import type { Logger } from 'pino';

/**
 * Runs close steps in order; a failing step is logged and the rest still run (STYLE item 8).
 */
export async function closeAll(
  logger: Logger,
  steps: readonly (readonly [string, () => Promise<unknown>])[],
): Promise<void> {
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (error) {
      logger.error({ err: error }, `closing ${name} failed`);
    }
  }
}
