import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KvConnection } from '../../src/cache/kv-connection.js';
import { decodeValue, encodeValue } from '../../src/cache/kv-codec.js';
import { RedisStore } from '../../src/cache/redis-store.js';
import { cacheStoreSuite } from './cache-store.suite.js';
import { quietLogger } from '../helpers/logger.js';
import { RedisServer, redisAvailable } from '../helpers/redis.js';

describe('kv codec', () => {
  it('round-trips bytes, -0, NaN and infinities exactly', () => {
    const value = {
      b: new Uint8Array([0, 255, 7]),
      n: [-0, NaN, Infinity, -Infinity, 0.1 + 0.2],
      s: 'x',
      nested: [{ b: new Uint8Array([1]) }],
    };
    const decoded = decodeValue(encodeValue(value)) as typeof value;
    expect(decoded.b).toEqual(new Uint8Array([0, 255, 7]));
    expect(Object.is(decoded.n[0], -0)).toBe(true);
    expect(decoded.n.slice(1)).toEqual([NaN, Infinity, -Infinity, 0.1 + 0.2]);
    expect(decoded.nested[0]!.b).toEqual(new Uint8Array([1]));
  });
});

describe.runIf(redisAvailable())('RedisStore against a real redis-server', () => {
  const server = new RedisServer();
  const connections: KvConnection[] = [];
  let namespace = 0;

  beforeAll(async () => {
    await server.start();
  });
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.close()));
    await server.stop();
  });

  async function connect(): Promise<KvConnection> {
    const { Redis, Cluster } = await import('ioredis');
    const connection = new KvConnection(server.url, {}, quietLogger(), { Redis, Cluster });
    connections.push(connection);
    await new Promise<void>((resolve) =>
      connection.client.status === 'ready'
        ? resolve()
        : connection.client.once('ready', () => resolve()),
    );
    return connection;
  }

  cacheStoreSuite(
    'RedisStore',
    async (options) =>
      new RedisStore(await connect(), { ...options, namespace: `suite${namespace++}` }),
  );

  it('writes keys as servicecache:<service>:<hash> with their TTL', async () => {
    const connection = await connect();
    const store = new RedisStore(connection, {
      capacity: 10,
      ttlSeconds: 30,
      namespace: 'svc:search',
    });
    await store.put('svc:abc', { v: 1 });
    expect(await connection.client.get('servicecache:svc:abc')).toBe('{"v":1}');
    const ttl = await connection.client.pttl('servicecache:svc:abc');
    expect(ttl).toBeGreaterThan(25_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });
});
