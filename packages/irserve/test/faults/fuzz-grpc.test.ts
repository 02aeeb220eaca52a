/**
 * Every gRPC method under a seeded stream of damaged messages (valid encodings with bytes
 * flipped, cut short or replaced): each answer is OK or a client-side status (INVALID_ARGUMENT,
 * NOT_FOUND, RESOURCE_EXHAUSTED), never INTERNAL, UNKNOWN or UNAVAILABLE; the server answers a
 * valid call afterwards.
 */
import { Client, credentials, status as GrpcCode, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRoutirProto, type RoutirProto } from '../../src/transports/grpc/proto.js';
import { grpcInstance, type GrpcInstance } from '../grpc/helpers.js';
import { random } from '../helpers/random.js';

const SEED = 21;
const CASES_PER_RPC = 60;

const VALID: Record<string, Record<string, unknown>> = {
  Search: { service: 'const', query: 'wing', limit: 5 },
  Score: { service: 'overlap', query: 'wing', passages: [{ text: 'wing lift' }] },
  Fuse: { service: 'RRF', query: 'q', scores: [{ scores: { a: 1 } }] },
  DecomposeQuery: { service: 'split', query: 'a b c' },
  Content: { collection: 'nope', id: 'x' },
  Pipeline: { pipeline: 'const', query: 'q' },
  Avail: {},
  Ping: {},
};
const ALLOWED = new Set<number>([
  GrpcCode.OK,
  GrpcCode.INVALID_ARGUMENT,
  GrpcCode.NOT_FOUND,
  GrpcCode.RESOURCE_EXHAUSTED,
]);

let server: GrpcInstance;
let proto: RoutirProto;
let client: Client;

beforeAll(async () => {
  server = await grpcInstance({
    services: [
      { name: 'const', engine: 'ConstSearch', max_wait_time: 0.001 },
      { name: 'overlap', engine: 'OverlapScore', max_wait_time: 0.001 },
      { name: 'split', engine: 'SplitDecomposer', max_wait_time: 0.001 },
    ],
  });
  proto = await loadRoutirProto();
  client = new Client(`127.0.0.1:${server.grpcPort}`, credentials.createInsecure());
});
afterAll(async () => {
  client?.close();
  await server?.app.close();
});

/** Calls `rpc` with raw request bytes; resolves with the status code. */
function rawCall(rpc: string, bytes: Buffer): Promise<number> {
  const method = proto.service[rpc]!;
  return new Promise((resolve) =>
    client.makeUnaryRequest(
      method.path,
      (b: Buffer) => b,
      (b: Buffer) => method.responseDeserialize(b),
      bytes,
      { deadline: Date.now() + 10_000 },
      (error: ServiceError | null) => resolve(error ? error.code : GrpcCode.OK),
    ),
  );
}

function damage(rand: () => number, valid: Buffer): Buffer {
  const bytes = Buffer.from(valid);
  switch (Math.floor(rand() * 4)) {
    case 0:
      for (let i = 0; i < 1 + rand() * 4 && bytes.length > 0; i++) {
        const at = Math.floor(rand() * bytes.length);
        bytes[at] = Math.floor(rand() * 256);
      }
      return bytes;
    case 1:
      return bytes.subarray(0, Math.floor(rand() * bytes.length));
    case 2:
      return Buffer.from(Array.from({ length: Math.floor(rand() * 64) }, () => rand() * 256));
    default:
      return Buffer.concat([bytes, Buffer.from([Math.floor(rand() * 256), 0xff, 0x01])]);
  }
}

describe('gRPC fuzz', () => {
  for (const [rpc, message] of Object.entries(VALID)) {
    it(`${rpc}: ${CASES_PER_RPC} damaged messages, never INTERNAL`, async () => {
      const rand = random(SEED + rpc.length);
      const valid = proto.service[rpc]!.requestSerialize(message);
      for (let i = 0; i < CASES_PER_RPC; i++) {
        const bytes = damage(rand, valid);
        const code = await rawCall(rpc, bytes);
        expect(ALLOWED.has(code), `${rpc} ${bytes.toString('hex')} -> ${code}`).toBe(true);
      }
      expect(await rawCall('Ping', proto.service.Ping!.requestSerialize({}))).toBe(GrpcCode.OK);
    });
  }
});
