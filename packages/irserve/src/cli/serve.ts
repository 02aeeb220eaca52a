import type { Logger } from 'pino';
import { createAppFromFile } from '../app/from-file.js';
import { UsageError } from '../cli-kit/index.js';
import { tuneV8ForServing } from '../util/v8-tuning.js';
import { isLoopback, resolveApiKey } from './api-key.js';
import { stopWhenNpxExits } from './parent-watch.js';
import type { CommandRun } from './command-run.js';
import { createCliLogger } from './logger.js';
import type { SERVE } from './usage.js';

/** The API key from `--api_key` or the environment, warning of an open port without one. */
function apiKeyFor(flag: string | undefined, host: string, env: NodeJS.ProcessEnv, logger: Logger) {
  const { apiKey, warnings } = resolveApiKey(flag, env);
  for (const warning of warnings) logger.warn(warning);
  if (!apiKey && !isLoopback(host)) {
    logger.warn(
      `listening on ${host} without an API key: anyone who can reach this port can use the server (set IRSERVE_API_KEY)`,
    );
  }
  return apiKey;
}

/** `--grpc [--grpc_port 50051] [--grpc_max_message_mb 64]`; a gRPC option alone implies `--grpc`. */
function grpcOptions(flags: {
  grpc?: boolean | undefined;
  grpc_port?: number | undefined;
  grpc_max_message_mb?: number | undefined;
}): { port: number; maxMessageMb?: number } | undefined {
  const { grpc, grpc_port: port = 50051, grpc_max_message_mb: maxMessageMb } = flags;
  if (!grpc && flags.grpc_port === undefined && maxMessageMb === undefined) return undefined;
  return maxMessageMb === undefined ? { port } : { port, maxMessageMb };
}

/** `irserve [serve] <config.json> [--port] [--host] [--api_key] [--log_level] [--grpc ...]`: serves until a signal. */
export const serveCommand: CommandRun<typeof SERVE.flags> = async ({ flags, positionals }, env) => {
  const [configPath] = positionals;
  const port = flags.port;
  const grpc = grpcOptions(flags);
  const metricsPort = flags.metrics_port;
  const logger = await createCliLogger({ level: flags.log_level, format: flags.log_format });
  const apiKey = apiKeyFor(flags.api_key, flags.host, env, logger);
  if (tuneV8ForServing(env, process.execArgv))
    logger.debug('V8 allocation-site pretenuring off (IRSERVE_V8_PRETENURING=on keeps it)');
  const app = await createAppFromFile(configPath!, {
    logger,
    ...(apiKey ? { apiKey } : {}),
    ...(grpc ? { grpc } : {}),
    ...(metricsPort === undefined ? {} : { metrics: { port: metricsPort } }),
    drainDelayMs: drainDelayMs(env.IRSERVE_DRAIN_DELAY),
    ...(flags.offline ? { offline: true } : {}),
  });
  const stopped = waitForSignal(logger, () => app.close(), env);
  try {
    // app.listen logs the one "irserve listening on ..." line (HTTP, gRPC and metrics addresses).
    await app.listen({ port, host: flags.host });
  } catch (error) {
    await app.close();
    throw error;
  }
  return stopped;
};

/** `IRSERVE_DRAIN_DELAY`: seconds `/health` says "draining" before the listeners close (default 0). */
function drainDelayMs(value: string | undefined): number {
  if (value === undefined || value === '') return 0;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 600)
    throw new UsageError(
      `IRSERVE_DRAIN_DELAY must be a number of seconds from 0 to 600, got "${value}"`,
    );
  return seconds * 1000;
}

/**
 * Resolves with exit code 0 after the first SIGINT/SIGTERM has drained the app (or, under
 * `npx`, once the npx process is gone); a second signal forces exit 1.
 */
function waitForSignal(
  logger: Logger,
  close: () => Promise<void>,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  return new Promise((resolveExit) => {
    let signalled = false;
    const drain = (reason: string) => {
      signalled = true;
      logger.info(`${reason}: draining in-flight requests`);
      close().then(
        () => resolveExit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'error while closing');
          resolveExit(1);
        },
      );
    };
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) {
        logger.warn(`${signal} again: exiting without waiting`);
        process.exit(1);
      }
      drain(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    stopWhenNpxExits(env, () => {
      if (!signalled) drain('the npx (npm exec) process that started irserve exited');
    });
  });
}
