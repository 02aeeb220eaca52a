import type { RemoteCallOptions } from './remote-client.js';

/**
 * What relays and remote collections need from a connection to a remote instance, whichever
 * transport carries it (REST: `RemoteClient`; gRPC: `GrpcRemoteClient`). Bodies and answers are
 * in the REST JSON shape on both, so relay code does not know which one it has.
 */
export interface RemoteTransport {
  /** Where the remote is, for messages (`http://h:8000`, `grpc://h:50051`). */
  readonly endpoint: string;
  /** GET a JSON document (`/avail`, `/ping`). */
  get(path: string, options?: RemoteCallOptions): Promise<unknown>;
  /** POST a JSON body (`/search`, `/score`, `/fuse`, `/decompose_query`, `/content`, `/pipeline`). */
  post(path: string, body: unknown, options?: RemoteCallOptions): Promise<unknown>;
  /** When the remote became unreachable, or undefined while it answers. */
  readonly unreachableSince: number | undefined;
  close(): Promise<void>;
}

export type TransportKind = 'rest' | 'grpc';
