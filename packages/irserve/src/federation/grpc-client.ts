import {
  Metadata,
  connectivityState,
  credentials,
  status as GrpcCode,
  type Client,
  type ServiceError,
} from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { type ErrorCode, IrserveError, isPassedThroughCode } from '../errors.js';
import { RPC_OF_PATH, requestMessage, responseJson } from '../transports/grpc/client-codec.js';
import { REQUEST_ID_HEADER } from '../core/request-id.js';
import { ERROR_CODE_KEY } from '../transports/grpc/call-context.js';
import {
  DEFAULT_MAX_MESSAGE_MB,
  loadRoutirProto,
  messageSizeOptions,
} from '../transports/grpc/proto.js';
import { onAbort, reasonOf } from '../util/abort-scope.js';
import { backoffDelay, sleep } from '../util/backoff.js';
import { timeoutError } from '../util/deadline.js';
import { HOPS_HEADER } from '../core/hops.js';
import { type RemoteCallOptions, timeLeft } from './remote-client.js';
import type { RemoteTransport } from './remote-transport.js';

export interface GrpcClientOptions {
  /** `host:port`, optionally with a `grpc://` or `grpcs://` scheme. */
  target: string;
  /** TLS; default: true exactly when the target says `grpcs://`. */
  tls?: boolean;
  apiKey: string | undefined;
  /** Deadline of one attempt, in seconds (the relay `timeout`). */
  timeoutSeconds: number;
  /** Retries after the first attempt (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED). */
  retries: number;
  logger: Logger;
  maxMessageMb?: number;
}

/** Statuses that say "try again": the remote is down, slow or overloaded (RoutIR retries these). */
const RETRYABLE: ReadonlySet<number> = new Set([
  GrpcCode.UNAVAILABLE,
  GrpcCode.DEADLINE_EXCEEDED,
  GrpcCode.RESOURCE_EXHAUSTED,
]);

const CODE_NAMES = Object.fromEntries(Object.entries(GrpcCode).map(([k, v]) => [v, k]));

type Unary = (
  message: unknown,
  metadata: Metadata,
  options: { deadline: number },
  callback: (error: ServiceError | null, response?: Record<string, unknown>) => void,
) => { cancel(): void };

/** Splits `grpcs://host:port` into the channel target and whether TLS is asked for. */
function parseTarget(target: string): { address: string; tls: boolean } {
  const match = /^(grpcs?):\/\/(.*)$/i.exec(target);
  return match
    ? { address: match[2]!.replace(/\/+$/, ''), tls: match[1]!.toLowerCase() === 'grpcs' }
    : { address: target, tls: false };
}

/**
 * gRPC client for one remote instance with the REST client's surface: per-attempt deadline equal
 * to the relay timeout, retries with the same capped backoff, bearer key and request id in the
 * metadata, errors mapped back to the catalog (exactly, when the remote is irserve and sends its
 * code). While the channel is in TRANSIENT_FAILURE after a failure, calls fail fast.
 */
export class GrpcRemoteClient implements RemoteTransport {
  readonly endpoint: string;
  readonly #client: Client;
  readonly #options: GrpcClientOptions;
  #unreachableSince: number | undefined;

  private constructor(client: Client, endpoint: string, options: GrpcClientOptions) {
    this.#client = client;
    this.endpoint = endpoint;
    this.#options = options;
  }

  /** Loads the proto and opens a channel (lazily connected). */
  static async create(options: GrpcClientOptions): Promise<GrpcRemoteClient> {
    const { Client } = await loadRoutirProto();
    const { address, tls: schemeTls } = parseTarget(options.target);
    const tls = options.tls ?? schemeTls;
    const client = new Client(
      address,
      tls ? credentials.createSsl() : credentials.createInsecure(),
      {
        ...messageSizeOptions(options.maxMessageMb ?? DEFAULT_MAX_MESSAGE_MB),
        // Reconnect soon after a remote comes back (grpc-js waits up to 120 s by default).
        'grpc.initial_reconnect_backoff_ms': 200,
        'grpc.max_reconnect_backoff_ms': 5000,
      },
    );
    return new GrpcRemoteClient(client, `${tls ? 'grpcs' : 'grpc'}://${address}`, options);
  }

  get unreachableSince(): number | undefined {
    return this.#unreachableSince;
  }

  get(path: string, options: RemoteCallOptions = {}): Promise<unknown> {
    return this.post(path, {}, options);
  }

  async post(path: string, body: unknown, options: RemoteCallOptions = {}): Promise<unknown> {
    const rpc = RPC_OF_PATH[path];
    if (rpc === undefined) throw new IrserveError('ERR_INTERNAL', `no gRPC call for ${path}`);
    const message = requestMessage(rpc, (body ?? {}) as Record<string, unknown>);
    const retries = options.retries ?? this.#options.retries;
    const what = `remote ${this.endpoint}${path}`;
    const { signal } = options;
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw reasonOf(signal);
      this.#failFast(path);
      timeLeft(options.deadline, what);
      try {
        const answer = await this.#attempt(rpc, message, options);
        this.#reachable();
        return responseJson(rpc, answer);
      } catch (error) {
        if (signal?.aborted) throw reasonOf(signal); // our own cancel: nothing about the remote
        const code = (error as ServiceError).code;
        if (code === GrpcCode.DEADLINE_EXCEEDED && pastDeadline(options.deadline))
          throw timeoutError(what);
        if (!RETRYABLE.has(code) || attempt >= retries) throw this.#finalError(error, path);
        this.#options.logger.debug(
          { grpc: this.endpoint, path, attempt, reason: (error as Error).message },
          'retrying remote call',
        );
        await sleep(backoffDelay(attempt), signal);
      }
    }
  }

  async close(): Promise<void> {
    this.#client.close();
  }

  #attempt(
    rpc: string,
    message: unknown,
    options: RemoteCallOptions,
  ): Promise<Record<string, unknown>> {
    const metadata = new Metadata();
    if (this.#options.apiKey)
      metadata.set('authorization', `Bearer ${this.#options.apiKey.trim()}`);
    if (options.requestId) metadata.set(REQUEST_ID_HEADER, options.requestId);
    metadata.set(HOPS_HEADER, String((options.hops ?? 0) + 1));
    const method = (this.#client as unknown as Record<string, Unary>)[rpc]!;
    const own = Date.now() + this.#options.timeoutSeconds * 1000;
    // The caller's deadline travels natively: the remote sees it as the call's gRPC deadline.
    const deadline = options.deadline === undefined ? own : Math.min(own, options.deadline);
    return new Promise((resolve, reject) => {
      const call = method.call(this.#client, message, metadata, { deadline }, (error, response) => {
        stopListening?.();
        if (error) reject(error);
        else resolve(response ?? {});
      });
      // A caller that left cancels the call: the remote sees CANCELLED and drops the work.
      const stopListening = options.signal && onAbort(options.signal, () => call.cancel());
    });
  }

  #failFast(path: string): void {
    if (this.#unreachableSince === undefined) return;
    // Asking for the state also starts a reconnect when the channel is idle.
    const state = this.#client.getChannel().getConnectivityState(true);
    if (state !== connectivityState.TRANSIENT_FAILURE) return;
    const since = new Date(this.#unreachableSince).toISOString();
    throw new IrserveError(
      'ERR_UPSTREAM',
      `remote ${this.endpoint}${path}: unreachable (since ${since}); reconnecting in the background`,
      { details: { remote: this.endpoint } },
    );
  }

  #reachable(): void {
    if (this.#unreachableSince === undefined) return;
    this.#unreachableSince = undefined;
    this.#options.logger.info({ grpc: this.endpoint }, 'remote reachable again');
  }

  #finalError(error: unknown, path: string): IrserveError {
    if (error instanceof IrserveError) return error;
    const { code, details, metadata } = error as ServiceError;
    const name = CODE_NAMES[code] ?? String(code);
    const remoteCode = metadata?.get(ERROR_CODE_KEY)[0];
    const extra = { details: { remote: this.endpoint, grpc_status: name } };
    if (code === GrpcCode.UNAVAILABLE) this.#markUnreachable(details);
    if (code === GrpcCode.UNAUTHENTICATED || code === GrpcCode.PERMISSION_DENIED)
      return new IrserveError(
        'ERR_UPSTREAM',
        `remote ${this.endpoint}${path}: authentication failed: ${details}`,
        extra,
      );
    const passed = typeof remoteCode === 'string' ? remoteCode : undefined;
    if (isPassedThroughCode(passed))
      return new IrserveError(passed, `remote ${this.endpoint}${path}: ${details}`, extra);
    const local: ErrorCode | undefined =
      code === GrpcCode.INVALID_ARGUMENT
        ? 'ERR_BAD_REQUEST'
        : code === GrpcCode.NOT_FOUND
          ? 'ERR_SERVICE_NOT_FOUND'
          : undefined;
    if (local) return new IrserveError(local, `remote ${this.endpoint}${path}: ${details}`, extra);
    return new IrserveError(
      code === GrpcCode.DEADLINE_EXCEEDED ? 'ERR_UPSTREAM_TIMEOUT' : 'ERR_UPSTREAM',
      `remote ${this.endpoint}${path} failed: gRPC ${name}: ${details}`,
      extra,
    );
  }

  #markUnreachable(reason: string): void {
    const state = this.#client.getChannel().getConnectivityState(false);
    if (this.#unreachableSince !== undefined || state !== connectivityState.TRANSIENT_FAILURE)
      return;
    this.#unreachableSince = Date.now();
    this.#options.logger.warn(
      { grpc: this.endpoint, reason },
      'remote unreachable: its services fail fast until it returns',
    );
  }
}

/** Whether `deadline` (the caller's, `Date.now()` ms) has passed, give or take a millisecond. */
function pastDeadline(deadline: number | undefined): boolean {
  return deadline !== undefined && Date.now() >= deadline - 1;
}
