import { Writable } from 'node:stream';
import { Metadata, credentials, type Client, type ServiceError } from '@grpc/grpc-js';
import { pino, type Logger } from 'pino';
import type { App } from '../../src/app.js';
import type { EngineClass, FuseRequest } from '../../src/engines/contract.js';
import { loadRoutirProto } from '../../src/transports/grpc/proto.js';
import { testApp } from '../helpers/app.js';
import { TEST_ENGINES } from '../helpers/engines.js';

type Message = Record<string, unknown>;

/** A plain gRPC client of `routir.v1.Routir`, as any RoutIR client would be. */
export interface RawClient {
  call(
    rpc: string,
    message: Message,
    options?: { key?: string; requestId?: string; deadlineMs?: number },
  ): Promise<{ response: Message; metadata: Metadata }>;
  close(): void;
}

export async function rawClient(port: number, maxMessageMb = 64): Promise<RawClient> {
  const { Client } = await loadRoutirProto();
  const bytes = maxMessageMb * 1024 * 1024;
  const client: Client = new Client(`127.0.0.1:${port}`, credentials.createInsecure(), {
    'grpc.max_receive_message_length': bytes,
    'grpc.max_send_message_length': bytes,
  });
  type Unary = (
    m: Message,
    md: Metadata,
    o: { deadline: number },
    cb: (e: ServiceError | null, r?: Message) => void,
  ) => { on(event: 'metadata', listener: (md: Metadata) => void): void };
  return {
    call(rpc, message, options = {}) {
      const metadata = new Metadata();
      if (options.key) metadata.set('authorization', `Bearer ${options.key}`);
      if (options.requestId) metadata.set('x-request-id', options.requestId);
      const method = (client as unknown as Record<string, Unary>)[rpc]!;
      return new Promise((resolve, reject) => {
        let headers = new Metadata();
        const deadline = Date.now() + (options.deadlineMs ?? 10_000);
        const call = method.call(client, message, metadata, { deadline }, (error, response) =>
          error ? reject(error) : resolve({ response: response ?? {}, metadata: headers }),
        );
        call.on('metadata', (md) => (headers = md));
      });
    },
    close: () => client.close(),
  };
}

/** A fusion rule for the Fuse RPC tests: sums the scores of each document. */
export class SumFuse {
  async fuseBatch(requests: FuseRequest[]) {
    return requests.map(({ rankings }) => {
      const out: Record<string, number> = {};
      for (const ranking of rankings)
        for (const [id, score] of Object.entries(ranking)) out[id] = (out[id] ?? 0) + score;
      return out;
    });
  }
}

/** A logger that keeps every line, to check what was logged (request ids). */
export function capturingLogger(): { logger: Logger; lines: Message[] } {
  const lines: Message[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Message);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

export interface GrpcInstance {
  app: App;
  url: string;
  grpcPort: number;
}

/** An app listening on loopback with HTTP and gRPC on free ports. */
export async function grpcInstance(
  config: Message,
  options: {
    apiKey?: string;
    maxMessageMb?: number;
    logger?: Logger;
    grpc?: boolean;
    engines?: EngineClass[];
  } = {},
): Promise<GrpcInstance> {
  const engines: EngineClass[] = [...TEST_ENGINES, SumFuse, ...(options.engines ?? [])];
  const app = await testApp(config, {
    engines,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.grpc === false
      ? {}
      : {
          grpc: {
            port: 0,
            ...(options.maxMessageMb ? { maxMessageMb: options.maxMessageMb } : {}),
          },
        }),
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const headers: Record<string, string> = options.apiKey
    ? { authorization: `Bearer ${options.apiKey}` }
    : {};
  const avail = (await (await fetch(`${url}/avail`, { headers })).json()) as { grpc_port?: number };
  return { app, url, grpcPort: avail.grpc_port ?? -1 };
}

/** The gRPC status code a call failed with (fails the test when it succeeded). */
export async function statusOf(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error('expected the call to fail');
}
