import cliProgress from 'cli-progress';

/** Where progress and summary lines go when no bar is drawn. */
export interface BuildLogger {
  info(message: string): void;
}

export interface Progress {
  /** Sets the absolute position. */
  update(value: number): void;
  /** Finishes the bar or writes the closing line. */
  done(): void;
}

export interface ProgressOptions {
  label: string;
  /** Total units; 0 when unknown. */
  total: number;
  /** Draw a bar (stderr is a terminal); otherwise log a line every `logEveryMs`. */
  interactive: boolean;
  logger: BuildLogger;
  unit?: string;
  logEveryMs?: number;
}

/**
 * A bar on a terminal, plain log lines otherwise (CI logs and batch jobs stay readable). The
 * same approach as the core's util/progress.ts, which the core does not export, with a plain
 * logger so the builder does not need pino.
 */
export function createProgress(options: ProgressOptions): Progress {
  return options.interactive ? barProgress(options) : logProgress(options);
}

function barProgress({ label, total, unit = '' }: ProgressOptions): Progress {
  const bar = new cliProgress.SingleBar(
    {
      format: `${label.padEnd(8)} [{bar}] {percentage}% | {value}/{total}${unit ? ' ' + unit : ''} | {duration_formatted} / ETA {eta_formatted}`,
      stream: process.stderr,
      hideCursor: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(Math.max(total, 1), 0);
  let value = 0;
  return {
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

function logProgress(options: ProgressOptions): Progress {
  const { label, total, logger, unit = '', logEveryMs = 5000 } = options;
  const started = performance.now();
  let value = 0;
  let lastLog = started;
  const log = (final: boolean) => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const percent = total > 0 ? ` (${((100 * value) / total).toFixed(0)}%)` : '';
    const of = total > 0 ? `/${total}` : '';
    logger.info(
      `${label}: ${value}${of}${unit ? ' ' + unit : ''}${percent} ${final ? 'done in' : 'after'} ${seconds}s`,
    );
  };
  return {
    update(v) {
      value = v;
      const now = performance.now();
      if (now - lastLog >= logEveryMs) {
        lastLog = now;
        log(false);
      }
    },
    done() {
      log(true);
    },
  };
}
