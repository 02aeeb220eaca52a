/**
 * RoutIR clients built with its first proto (`repeated string passages = 3` in ScoreRequest)
 * score through irserve; undecodable requests are logged, not only answered INTERNAL.
 */
import { Client, credentials, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upgradeLegacyScore } from '../../src/transports/grpc/legacy-score.js';
import { loadRoutirProto } from '../../src/transports/grpc/proto.js';
import { capturingLogger, grpcInstance, type GrpcInstance } from './helpers.js';

const log = capturingLogger();
let server: GrpcInstance;
beforeAll(async () => {
  server = await grpcInstance(
    { services: [{ name: 'overlap', engine: 'OverlapScore', cache: -1 }] },
    { logger: log.logger },
  );
});
afterAll(async () => {
  await server?.app.close();
});

/** Protobuf bytes of a length-delimited field (lengths under 128 here). */
const field = (n: number, bytes: Uint8Array | string) => {
  const body = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes);
  return Buffer.concat([Buffer.from([(n << 3) | 2, body.length]), body]);
};

/** Sends raw request bytes to Score and decodes the answer with the current proto. */
async function rawScore(request: Buffer): Promise<Record<string, unknown>> {
  const { service } = await loadRoutirProto();
  const client = new Client(`127.0.0.1:${server.grpcPort}`, credentials.createInsecure());
  try {
    return await new Promise((resolve, reject) =>
      client.makeUnaryRequest(
        '/routir.v1.Routir/Score',
        (bytes: Buffer) => bytes,
        (bytes: Buffer) => service.Score!.responseDeserialize(bytes) as Record<string, unknown>,
        request,
        (error: ServiceError | null, response?: Record<string, unknown>) =>
          error ? reject(error) : resolve(response ?? {}),
      ),
    );
  } finally {
    client.close();
  }
}

describe('Score with the first RoutIR proto', () => {
  it('reads passages sent as repeated string', async () => {
    const legacy = Buffer.concat([
      field(1, 'overlap'),
      field(2, 'neural ranking'),
      field(3, 'neural ranking models'),
      field(3, 'cooking pasta'),
    ]);
    const response = await rawScore(legacy);
    expect(response.scores).toEqual([2, 0]);
  });

  it('still reads the current shape, and a mix of both', async () => {
    const passage = (text: string) => field(3, field(1, text));
    const current = Buffer.concat([field(1, 'overlap'), field(2, 'a b'), passage('a b c')]);
    expect((await rawScore(current)).scores).toEqual([2]);
    const mixed = Buffer.concat([
      field(1, 'overlap'),
      field(2, 'a b'),
      passage('a'),
      field(3, 'b c'),
    ]);
    expect((await rawScore(mixed)).scores).toEqual([1, 1]);
  });

  it('logs a request that does not decode', async () => {
    const broken = Buffer.from([0x2a, 0x02, 0xff, 0xff]); // extras: a Struct that does not parse
    const error = await rawScore(broken).then(
      () => undefined,
      (e: ServiceError) => e,
    );
    expect(error).toBeDefined();
    expect(log.lines.some((line) => line.msg === 'gRPC request does not decode')).toBe(true);
  });

  it('leaves current requests byte for byte as they are', () => {
    const current = Buffer.concat([field(1, 's'), field(3, field(1, 'x'))]);
    expect(upgradeLegacyScore(current)).toBe(current);
  });
});
