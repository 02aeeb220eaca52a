import { createRequire } from 'node:module';
import type CliProgress from 'cli-progress';

/**
 * cli-progress (17 CommonJS files) is required only when a bar is drawn, on a terminal: a
 * server's start-up, which logs lines instead, never loads it.
 */
function loadCliProgress(): typeof CliProgress {
  return createRequire(import.meta.url)('cli-progress') as typeof CliProgress;
}

export interface Progress {
  /** Advances by `n` units (default 1). */
  tick(n?: number): void;
  /** Sets the absolute position. */
  update(value: number): void;
  /** Finishes the bar or writes the closing log line. */
  done(): void;
}

/** Where progress lines go when no bar is drawn (a pino logger fits). */
export interface ProgressLogger {
  info(message: string): void;
}

export interface ProgressOptions {
  label: string;
  /** Total units (bytes, documents); 0 when unknown. */
  total: number;
  /** Draw a bar (a terminal is attached); otherwise log a line every `logEveryMs`. */
  interactive: boolean;
  logger: ProgressLogger;
  unit?: string;
  logEveryMs?: number;
}

/**
 * Progress for long work: a bar on a terminal (stderr), plain log lines otherwise, so CI logs
 * and servers under a process manager stay readable.
 */
export function createProgress(options: ProgressOptions): Progress {
  return options.interactive ? barProgress(options) : logProgress(options);
}

function barProgress({ label, total, unit = '' }: ProgressOptions): Progress {
  const units = unit ? ' ' + unit : '';
  // An unknown total (0) shows a count and the time, never "84000/1" and a full bar.
  const format =
    total > 0
      ? `${label} [{bar}] {percentage}% | {value}/{total}${units} | {duration_formatted} / ETA {eta_formatted}`
      : `${label} {value}${units} | {duration_formatted}`;
  const cliProgress = loadCliProgress();
  const bar = new cliProgress.SingleBar(
    {
      format,
      stream: process.stderr,
      hideCursor: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let value = 0;
  bar.start(Math.max(total, 1), 0);
  return {
    tick(n = 1) {
      value += n;
      bar.update(value);
    },
    update(v) {
      value = v;
      bar.update(v);
    },
    done() {
      bar.update(Math.max(total, value));
      bar.stop();
    },
  };
}

function logProgress({
  label,
  total,
  logger,
  unit = '',
  logEveryMs = 5000,
}: ProgressOptions): Progress {
  const started = performance.now();
  let value = 0;
  let lastLog = started;
  const log = (final: boolean) => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const percent = total > 0 ? ` (${((100 * value) / total).toFixed(0)}%)` : '';
    logger.info(
      `${label}: ${value}${total > 0 ? '/' + total : ''}${unit ? ' ' + unit : ''}${percent} ${final ? 'done in' : 'after'} ${seconds}s`,
    );
  };
  const maybeLog = () => {
    const now = performance.now();
    if (now - lastLog >= logEveryMs) {
      lastLog = now;
      log(false);
    }
  };
  return {
    tick(n = 1) {
      value += n;
      maybeLog();
    },
    update(v) {
      value = v;
      maybeLog();
    },
    done() {
      log(true);
    },
  };
}
