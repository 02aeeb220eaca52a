import type { Logger } from 'pino';
import { IrserveError } from '../errors.js';
import type { RemoteClient } from './remote-client.js';
import type { RemoteTransport, TransportKind } from './remote-transport.js';

/** The relay settings of one `server_imports` entry that choose its transport. */
export interface TransportEntry {
  endpoint: string;
  /** `host:port` or `grpc(s)://host:port`; default: the port the remote advertises in `/avail`. */
  grpcEndpoint?: string | undefined;
  transport: 'auto' | 'grpc' | 'rest';
  tls: boolean;
  apiKey: string | undefined;
  timeout: number;
  retries: number;
}

export interface SelectedTransport {
  transport: RemoteTransport;
  kind: TransportKind;
  /** The remote's `/avail` answer, read over the chosen transport. */
  avail: unknown;
}

/** The gRPC target a remote advertises: its REST host with the `grpc_port` of its `/avail`. */
function advertisedTarget(entry: TransportEntry, avail: unknown): string | undefined {
  const port = (avail as { grpc_port?: unknown } | null)?.grpc_port;
  if (typeof port !== 'number') return undefined;
  const url = new URL(entry.endpoint);
  return `${url.protocol === 'https:' || entry.tls ? 'grpcs' : 'grpc'}://${url.hostname}:${port}`;
}

/** True when a remote refused the credentials (auto transport selection must not fall back). */
function isAuthFailure(error: unknown): boolean {
  return error instanceof IrserveError && error.details?.grpc_status === 'UNAUTHENTICATED';
}

/** A gRPC client that has answered Avail (authenticated), or the error it failed with. */
async function tryGrpc(
  entry: TransportEntry,
  target: string,
  logger: Logger,
): Promise<SelectedTransport> {
  // Loaded only for remotes reached over gRPC: @grpc/grpc-js costs start-up time.
  const { GrpcRemoteClient } = await import('./grpc-client.js');
  const client = await GrpcRemoteClient.create({
    target,
    ...(entry.tls ? { tls: true } : {}),
    apiKey: entry.apiKey,
    timeoutSeconds: entry.timeout,
    retries: entry.retries,
    logger,
  });
  try {
    // Avail, not Ping: Ping needs no key, so only an authenticated call shows a bad key here.
    const avail = await client.get('/avail', { retries: 0 });
    return { transport: client, kind: 'grpc', avail };
  } catch (error) {
    await client.close();
    throw error;
  }
}

/**
 * Chooses how to reach a remote, as RoutIR's client does:
 * - `rest`: HTTP only;
 * - `grpc`: gRPC at `grpc_endpoint`, else at the port the remote advertises; failing that, fails;
 * - `auto`: gRPC when `grpc_endpoint` is set or a port is advertised, else HTTP; when gRPC does
 *   not answer, falls back to HTTP with a warning. A refused key is an error, never a fallback:
 *   it would hide a misconfiguration behind a slower transport.
 */
export async function selectTransport(
  entry: TransportEntry,
  rest: RemoteClient,
  logger: Logger,
): Promise<SelectedTransport> {
  const restAvail = () => rest.get('/avail', { retries: 0 });
  if (entry.transport === 'rest')
    return { transport: rest, kind: 'rest', avail: await restAvail() };
  let avail: unknown;
  let target = entry.grpcEndpoint;
  if (target === undefined) {
    avail = await restAvail();
    target = advertisedTarget(entry, avail);
  }
  if (target === undefined) {
    if (entry.transport === 'grpc') {
      throw new Error(
        `remote ${entry.endpoint} does not advertise grpc_port (started without --grpc?): set grpc_endpoint, or transport "rest" or "auto"`,
      );
    }
    return { transport: rest, kind: 'rest', avail };
  }
  if (entry.transport === 'grpc') return tryGrpc(entry, target, logger);
  try {
    return await tryGrpc(entry, target, logger);
  } catch (error) {
    if (isAuthFailure(error)) throw error;
    logger.warn(
      { grpc: target, reason: (error as Error).message },
      'gRPC transport not available: falling back to REST',
    );
    return { transport: rest, kind: 'rest', avail: avail ?? (await restAvail()) };
  }
}
