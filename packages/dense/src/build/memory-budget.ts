/**
 * `--memory_budget`'s default, half of the machine's memory (or of the container's limit, when
 * one is set), and sizes for messages.
 */
import { totalmem } from 'node:os';

/** Half of the memory this process may use: the machine's, or the container's limit. */
export function defaultMemoryBudget(): number {
  const limit = process.constrainedMemory?.() ?? 0;
  const total = limit > 0 ? Math.min(limit, totalmem()) : totalmem();
  return Math.floor(total / 2);
}

/** A size for messages: `1.5 GiB`, `300.0 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 2 ** 30) return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  return `${(bytes / 2 ** 10).toFixed(1)} KiB`;
}
