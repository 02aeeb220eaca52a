import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { createApp } from '../app.js';
import { loadConfigFile } from '../config/load.js';
import { tuneV8ForServing } from '../util/v8-tuning.js';
import { isLoopback, resolveApiKey } from './api-key.js';
import { createCliLogger } from './logger.js';
import { UsageError } from './usage-error.js';

function parsePort(value: string | undefined, fallback = 8000, flag = '--port'): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 0 || port > 65535)
    throw new UsageError(`${flag} must be an integer from 0 to 65535, got "${value}"`);
  return port;
}

/** `--grpc [--grpc_port 50051] [--grpc_max_message_mb 64]`; a gRPC option alone implies `--grpc`. */
function parseGrpc(values: {
  grpc?: boolean;
  grpc_port?: string;
  'grpc-port'?: string;
  grpc_max_message_mb?: string;
}): { port: number; maxMessageMb?: number } | undefined {
  const portText = values.grpc_port ?? values['grpc-port'];
  const mbText = values.grpc_max_message_mb;
  if (!values.grpc && portText === undefined && mbText === undefined) return undefined;
  const port = parsePort(portText, 50051, '--grpc_port');
  if (mbText === undefined) return { port };
  const mb = Number(mbText);
  if (!(mb > 0 && mb <= 2047))
    throw new UsageError(`--grpc_max_message_mb must be a number from 1 to 2047, got "${mbText}"`);
  return { port, maxMessageMb: mb };
}

/** The serve command's flags and its one positional argument, the config file. */
function parseServeArgs(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      api_key: { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
      'log-format': { type: 'string', default: 'auto' },
      metrics_port: { type: 'string' },
      grpc: { type: 'boolean' },
      grpc_port: { type: 'string' },
      // RoutIR's spelling, so its command lines work unchanged.
      'grpc-port': { type: 'string' },
      grpc_max_message_mb: { type: 'string' },
    },
  });
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? 'missing <config.json>'
        : `unexpected arguments: ${positionals.slice(1).join(' ')}`,
    );
  return { values, configPath: positionals[0]! };
}

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

/** `irserve <config.json> [--port] [--host] [--api_key] [--log-level] [--grpc ...]`: serves until a signal. */
export async function serveCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, configPath } = parseServeArgs(argv);
  const port = parsePort(values.port);
  const grpc = parseGrpc(values);
  const metricsPort =
    values.metrics_port === undefined
      ? undefined
      : parsePort(values.metrics_port, 0, '--metrics_port');
  const logger = await createCliLogger({
    level: values['log-level'],
    format: values['log-format'],
  });
  const apiKey = apiKeyFor(values.api_key, values.host, env, logger);
  const { config, configDir } = await loadConfigFile(configPath);
  if (tuneV8ForServing(env, process.execArgv))
    logger.debug('V8 allocation-site pretenuring off (IRSERVE_V8_PRETENURING=on keeps it)');
  const app = await createApp(config, {
    logger,
    configDir,
    ...(apiKey ? { apiKey } : {}),
    ...(grpc ? { grpc } : {}),
    ...(metricsPort === undefined ? {} : { metrics: { port: metricsPort } }),
    drainDelayMs: drainDelayMs(env.IRSERVE_DRAIN_DELAY),
  });
  const stopped = waitForSignal(logger, () => app.close());
  try {
    // app.listen logs the one "irserve listening on ..." line (HTTP, gRPC and metrics addresses).
    await app.listen({ port, host: values.host });
  } catch (error) {
    await app.close();
    throw error;
  }
  return stopped;
}

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

/** Resolves with exit code 0 after the first SIGINT/SIGTERM has drained the app; a second one forces exit 1. */
function waitForSignal(logger: Logger, close: () => Promise<void>): Promise<number> {
  return new Promise((resolveExit) => {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) {
        logger.warn(`${signal} again: exiting without waiting`);
        process.exit(1);
      }
      signalled = true;
      logger.info(`${signal}: draining in-flight requests`);
      close().then(
        () => resolveExit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'error while closing');
          resolveExit(1);
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
