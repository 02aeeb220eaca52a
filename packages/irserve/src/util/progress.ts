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
  /** Milliseconds since some fixed point (tests pass a fake clock; default `performance.now`). */
  now?: () => number;
}

/**
 * Progress for long work: a bar on a terminal (stderr), plain log lines otherwise, so CI logs
 * and servers under a process manager stay readable. Both say the time left when the total is
 * known (from the rate so far).
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

/** `42s`, `3m 05s`, `1h 02m`: a duration as a progress line shows it. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

function logProgress({
  label,
  total,
  logger,
  unit = '',
  logEveryMs = 5000,
  now: clock = () => performance.now(),
}: ProgressOptions): Progress {
  const started = clock();
  let value = 0;
  let lastLog = started;
  const log = (final: boolean) => {
    const elapsed = (clock() - started) / 1000;
    const percent = total > 0 ? ` (${((100 * value) / total).toFixed(0)}%)` : '';
    const left =
      !final && total > 0 && value > 0 && value < total
        ? `, about ${formatDuration((elapsed * (total - value)) / value)} left`
        : '';
    logger.info(
      `${label}: ${value}${total > 0 ? '/' + total : ''}${unit ? ' ' + unit : ''}${percent} ${final ? 'done in' : 'after'} ${elapsed.toFixed(1)}s${left}`,
    );
  };
  const maybeLog = () => {
    const now = clock();
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
