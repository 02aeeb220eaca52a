/**
 * The OpenAPI document comes from the routes: every registered route is in it with a unique
 * operationId, its schemas compile under Ajv's strict mode, and real responses of a running
 * app (and the document's own examples) validate against them.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';

interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}
interface Operation {
  operationId: string;
  requestBody?: { content: Record<string, { schema: { $ref?: string }; example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
}

let app: App;
let doc: Doc;

function validator(name: string) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats.default(ajv);
  // OpenAPI's refs point into components; the same schemas under $defs compile standalone.
  const defs = JSON.parse(
    JSON.stringify(doc.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'),
  );
  return ajv.compile({ $defs: defs, $ref: `#/$defs/${name}` });
}

function schemaName(ref: string | undefined): string {
  return ref!.replace('#/components/schemas/', '');
}

beforeAll(async () => {
  app = await testApp(undefined, {});
  doc = (await app.http.inject({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(() => app.close());

describe('OpenAPI document', () => {
  it('lists every route with a unique operationId', () => {
    for (const path of ['/ping', '/health', '/avail', '/search', '/score', '/fuse', '/pipeline'])
      expect(doc.paths[path], path).toBeDefined();
    expect(doc.paths['/content/{collection}/{id}']?.get?.operationId).toBe('contentRaw');
    const ids = Object.values(doc.paths).flatMap((ops) =>
      Object.values(ops).map((op) => op.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining(['search', 'score', 'fuse', 'decomposeQuery', 'batch', 'query']),
    );
    expect(ids).toEqual(
      expect.arrayContaining(['pipeline', 'content', 'avail', 'health', 'ping', 'openapi']),
    );
  });

  it('compiles every schema under Ajv strict mode', () => {
    for (const name of Object.keys(doc.components.schemas))
      expect(() => validator(name)).not.toThrow();
  });

  it('validates its own request examples against the request schemas', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const op of Object.values(ops)) {
        const media = op.requestBody?.content['application/json'];
        if (media?.example === undefined || !media.schema.$ref) continue;
        const validate = validator(schemaName(media.schema.$ref));
        expect(validate(media.example), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
    }
  });

  it('describes the responses a running app sends', async () => {
    const calls: [string, string, unknown, string][] = [
      ['GET', '/ping', undefined, 'PingResponse'],
      ['GET', '/health', undefined, 'HealthResponse'],
      ['GET', '/avail', undefined, 'AvailResponse'],
      ['POST', '/search', { service: 'const', query: 'q', limit: 3 }, 'SearchResponse'],
      [
        'POST',
        '/score',
        { service: 'overlap', query: 'a b', passages: ['a', 'c'] },
        'ScoreResponse',
      ],
      [
        'POST',
        '/fuse',
        { service: 'RRF', query: 'q', scores: [{ a: 1 }, { b: 2 }] },
        'FuseResponse',
      ],
      ['POST', '/decompose_query', { service: 'split', query: 'a b' }, 'DecomposeQueryResponse'],
      [
        'POST',
        '/pipeline',
        { pipeline: '{const, const}RRF', query: 'q', explain: true },
        'PipelineResponse',
      ],
      [
        'POST',
        '/batch',
        { requests: [{ endpoint: 'search', body: { service: 'const', query: 'q' } }] },
        'BatchResponse',
      ],
      ['POST', '/search', { service: 'nope', query: 'q' }, 'Error'],
    ];
    for (const [method, url, payload, name] of calls) {
      const response = await app.http.inject({
        method: method as 'GET',
        url,
        payload: payload as object,
      });
      const validate = validator(name);
      expect(validate(response.json()), `${url}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('rejects in its request schemas what the server rejects', () => {
    const validate = validator('SearchRequest');
    expect(validate({ service: 'const', query: 'q', limit: '5' })).toBe(false);
    expect(validate({ query: 'q' })).toBe(false);
    expect(
      validate({ service: 'const', query: 'q', instruction: 'extra fields reach the engine' }),
    ).toBe(true);
  });

  it('shows a route registered without a doc, with an operationId from its path', async () => {
    const { OpenApiBuilder } = await import('../../src/transports/http/openapi/document.js');
    const builder = new OpenApiBuilder();
    builder.collect({ method: ['GET', 'HEAD'], url: '/v1/models' });
    builder.collect({ method: 'POST', url: '/v1/embeddings' });
    builder.collect({ method: 'GET', url: '/secret', config: { openapi: { hidden: true } } });
    const built = await builder.document({ title: 't', version: '1', description: 'd' });
    expect(Object.keys(built.paths)).toEqual(['/v1/models', '/v1/embeddings']);
    expect(built.paths['/v1/embeddings']!.post).toMatchObject({ operationId: 'postV1Embeddings' });
    expect(Object.keys(built.paths['/v1/models']!)).toEqual(['get']);
  });

  it('refuses two operations with one operationId', async () => {
    const { OpenApiBuilder } = await import('../../src/transports/http/openapi/document.js');
    const builder = new OpenApiBuilder();
    builder.collect({ method: 'GET', url: '/a', config: { openapi: { operationId: 'x' } } });
    builder.collect({ method: 'GET', url: '/b', config: { openapi: { operationId: 'x' } } });
    await expect(builder.document({ title: 't', version: '1', description: 'd' })).rejects.toThrow(
      /used twice/,
    );
  });
});
