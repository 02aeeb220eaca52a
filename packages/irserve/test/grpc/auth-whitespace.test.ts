/**
 * Bearer keys and whitespace: a key configured with surrounding whitespace (read from a file
 * with its newline) works over HTTP and gRPC; a key sent with a trailing space, which HTTP
 * accepts but HTTP/2 drops before the server sees it, gets an answer that says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcInstance, rawClient, statusOf, type GrpcInstance, type RawClient } from './helpers.js';

let instance: GrpcInstance;
let client: RawClient;

beforeAll(async () => {
  instance = await grpcInstance(
    { services: [{ name: 'c', engine: 'ConstSearch', cache: -1 }] },
    { apiKey: ' secret\n' },
  );
  client = await rawClient(instance.grpcPort);
});
afterAll(async () => {
  client?.close();
  await instance?.app.close();
});

const search = { service: 'c', query: 'a' };

describe('bearer keys and whitespace', () => {
  it('a configured key with surrounding whitespace matches the bare key on both transports', async () => {
    const { response } = await client.call('Search', search, { key: 'secret' });
    expect(response).toBeDefined();
    const http = await fetch(`${instance.url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer  secret ' },
      body: JSON.stringify(search),
    });
    expect(http.status).toBe(200);
  });

  it('a key sent with a trailing space over gRPC is refused with a message saying why', async () => {
    const failure = await statusOf(client.call('Search', search, { key: 'secret ' }));
    expect(failure.code).toBe(16); // UNAUTHENTICATED
    expect(failure.details).toMatch(/HTTP\/2 drops a value with leading or trailing spaces/);
    const wrong = await statusOf(client.call('Search', search, { key: 'other' }));
    expect(wrong.details).not.toMatch(/HTTP\/2/);
  });
});
