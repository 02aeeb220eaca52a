import {
  Metadata,
  Server,
  ServerCredentials,
  status as GrpcCode,
  type ServerUnaryCall,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { createBearerCheck } from '../../auth/bearer.js';
import type { AppCore } from '../../core/app-core.js';
import { IrserveError } from '../../errors.js';
import { REQUEST_ID_HEADER } from '../../core/request-id.js';
import { authorizationOf, hopsOf, requestIdOf } from './call-context.js';
import type { AppMetrics } from '../../metrics/prometheus.js';
import { serviceLabel } from '../service-label.js';
import { DEFAULT_MAX_MESSAGE_MB, loadRoutirProto, messageSizeOptions } from './proto.js';
import { OPEN_RPCS, RPCS, type Rpc, type RpcName } from './rpcs.js';
import { acceptLegacyMessages, undecodableReason } from './legacy-score.js';
import { toStatus } from './status.js';
import { failureLevel } from '../../util/error-logging.js';
import { AbortScope } from '../../util/abort-scope.js';

export interface GrpcServerOptions {
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /** Address to bind; default 127.0.0.1. */
  host?: string;
  /** Bearer token; undefined means no authentication. */
  apiKey: string | undefined;
  /** Largest message sent or received, in MiB (default 64, RoutIR's). */
  maxMessageMb?: number;
  logger: Logger;
  /** Seconds in-flight calls get to finish on close before they are cancelled (default 5). */
  graceSeconds?: number;
  /** Where each call is counted (`irserve_requests_total{transport="grpc"}`); absent: nowhere. */
  metrics?: AppMetrics;
}

export interface GrpcServerHandle {
  /** The port bound (useful with port 0). */
  readonly port: number;
  /** Stops accepting calls, lets in-flight ones finish within the grace period; idempotent. */
  close(): Promise<void>;
}

type Message = Record<string, unknown>;

interface CallDeps {
  core: AppCore;
  logger: Logger;
  check: ((header: string | undefined) => boolean) | undefined;
  port: () => number;
  metrics: AppMetrics | undefined;
}

const UNAUTHORIZED =
  'missing or invalid bearer token: send "authorization: Bearer <API_KEY>" metadata';
// HTTP/2 forbids a header value that starts or ends with a space (RFC 9113, 8.2.1) and Node drops
// such a field before grpc-js sees it: the key pasted with a trailing space that HTTP accepts.
const MISSING_OVER_HTTP2 = `${UNAUTHORIZED} (none arrived; if one was sent, note that HTTP/2 drops a value with leading or trailing spaces: trim the key)`;
const CODE_NAMES = Object.fromEntries(Object.entries(GrpcCode).map(([k, v]) => [v, k]));

/** One unary handler: request id, auth, cancellation, the RPC, status mapping, one log line. */
function unary(name: RpcName, rpc: Rpc, deps: CallDeps) {
  return (call: ServerUnaryCall<Message, Message>, callback: sendUnaryData<Message>): void => {
    const started = performance.now();
    const requestId = requestIdOf(call.metadata);
    // A cancelled call (client gone, deadline passed) stops waiting in batch queues.
    const scope = new AbortScope();
    call.on('cancelled', () =>
      scope.abort(new IrserveError('ERR_CLIENT_CLOSED', 'call cancelled by the client')),
    );
    runCall(name, rpc, deps, call, requestId, scope).then(
      (response) => {
        finishCall(name, deps, call, requestId, started, GrpcCode.OK);
        callback(null, response);
      },
      (error: unknown) => {
        const status = failureStatus(deps.logger, requestId, error);
        finishCall(name, deps, call, requestId, started, status.code);
        callback(status);
      },
    );
  };
}

// The per-call steps below take positional arguments rather than an object: they run on every
// call, and an arguments object would be one more allocation each time.

/** Checks the token and the message, then runs the RPC; a refusal is a rejection, as a failure. */
async function runCall(
  name: RpcName,
  rpc: Rpc,
  deps: CallDeps,
  call: ServerUnaryCall<Message, Message>,
  requestId: string,
  scope: AbortScope,
): Promise<Message> {
  if (deps.check && !OPEN_RPCS.has(name)) {
    const header = authorizationOf(call.metadata);
    if (!deps.check(header))
      throw new IrserveError(
        'ERR_UNAUTHORIZED',
        header === undefined ? MISSING_OVER_HTTP2 : UNAUTHORIZED,
      );
  }
  const undecodable = undecodableReason(call.request);
  if (undecodable !== undefined)
    throw new IrserveError('ERR_BAD_REQUEST', `request message does not decode: ${undecodable}`);
  const options = {
    requestId,
    hops: hopsOf(call.metadata),
    signal: scope,
    ...deadlineOf(call),
  };
  return rpc(deps.core, call.request, { options, grpcPort: deps.port() });
}

/** The failure's gRPC status, logged at the level its catalog code asks for. */
function failureStatus(logger: Logger, requestId: string, error: unknown) {
  const { mapped, status } = toStatus(error);
  const level = failureLevel(mapped);
  if (level === 'error')
    logger.error({ reqId: requestId, err: error, code: mapped.code }, mapped.message);
  else if (level === 'debug') logger.debug({ reqId: requestId, code: mapped.code }, mapped.message);
  return status;
}

/** Sends the request id back, writes the call's log line and counts it, just before the answer. */
function finishCall(
  name: RpcName,
  deps: CallDeps,
  call: ServerUnaryCall<Message, Message>,
  requestId: string,
  started: number,
  code: number,
): void {
  // Headers go out with the answer (one write), not ahead of it.
  const echo = new Metadata();
  echo.set(REQUEST_ID_HEADER, requestId);
  call.sendMetadata(echo);
  const ms = performance.now() - started;
  deps.logger.info(
    { reqId: requestId, rpc: name, status: CODE_NAMES[code], ms: Number(ms.toFixed(2)) },
    'grpc request',
  );
  deps.metrics?.observeRequest(
    {
      transport: 'grpc',
      route: name,
      service: serviceLabel(deps.core, call.request),
      status: CODE_NAMES[code] ?? String(code),
    },
    ms / 1000,
  );
}

/** The call's gRPC deadline as `{ deadline }` in `Date.now()` ms, or nothing when it has none. */
function deadlineOf(call: ServerUnaryCall<Message, Message>): { deadline?: number } {
  const raw = call.getDeadline();
  const ms = raw instanceof Date ? raw.getTime() : raw;
  return Number.isFinite(ms) ? { deadline: ms } : {};
}

function bindAddress(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Serves `routir.v1.Routir` over gRPC for an app core (the same registry and caches as HTTP).
 *
 * @example
 * const grpc = await startGrpcServer(app.core, { port: 50051, apiKey, logger });
 * // ... later
 * await grpc.close();
 */
export async function startGrpcServer(
  core: AppCore,
  options: GrpcServerOptions,
): Promise<GrpcServerHandle> {
  const { service } = await loadRoutirProto();
  const server = new Server(messageSizeOptions(options.maxMessageMb ?? DEFAULT_MAX_MESSAGE_MB));
  let boundPort = options.port;
  const deps: CallDeps = {
    core,
    logger: options.logger,
    check: options.apiKey === undefined ? undefined : createBearerCheck(options.apiKey),
    port: () => boundPort,
    metrics: options.metrics,
  };
  const implementation: UntypedServiceImplementation = {};
  for (const [name, rpc] of Object.entries(RPCS) as [RpcName, Rpc][])
    implementation[name] = unary(name, rpc, deps);
  acceptLegacyMessages(service, options.logger);
  server.addService(service, implementation);
  const host = options.host ?? '127.0.0.1';
  boundPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      bindAddress(host, options.port),
      ServerCredentials.createInsecure(),
      (error, port) => (error ? reject(error) : resolve(port)),
    ),
  );
  options.logger.debug(`irserve gRPC listening on ${bindAddress(host, boundPort)}`);
  let closing: Promise<void> | undefined;
  const graceMs = (options.graceSeconds ?? 5) * 1000;
  return {
    port: boundPort,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      })),
  };
}
