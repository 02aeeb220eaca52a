/** The progress display of one file's download: a bar on a terminal, log lines otherwise. */
import { createProgress, type Progress } from '../util/progress.js';
import { formatBytes } from './download-blob.js';
import type { ModelLogger } from './types.js';

/** Files under this size are fetched without a progress display of their own. */
const QUIET_BELOW = 1_000_000;

/**
 * Progress over `total` bytes, shown in MB; a small file only gets a debug line.
 *
 * @example const progress = downloadProgress('org/m onnx/model.onnx', 90e6, { logger, interactive: true });
 */
export function downloadProgress(
  label: string,
  total: number,
  options: { logger: ModelLogger; interactive: boolean },
): Progress {
  if (total < QUIET_BELOW) {
    options.logger.debug?.(`downloading ${label} (${formatBytes(total)})`);
    return { tick() {}, update() {}, done() {} };
  }
  const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
  const display = createProgress({
    label: `downloading ${label}`,
    total: mb(total),
    interactive: options.interactive,
    logger: { info: (message) => options.logger.info(message) },
    unit: 'MB',
  });
  return {
    tick: () => {},
    update: (value) => display.update(mb(value)),
    done: () => display.done(),
  };
}
