import { describe, expect, it } from 'vitest';
import { ModelCatalog } from '../../src/transports/compat/models.js';
import { providerError } from '../../src/transports/compat/provider-errors.js';
import {
  approximateTokens,
  normalizeVector,
  truncateVector,
} from '../../src/transports/compat/vectors.js';
import { IrserveError } from '../../src/errors.js';
import type { AppCore } from '../../src/core/app-core.js';

describe('compat helpers', () => {
  it('truncates and re-normalises; a zero vector stays zero', () => {
    expect(
      Array.from(truncateVector(Float32Array.of(3, 4, 12), 2)).map((x) => x.toFixed(3)),
    ).toEqual(['0.600', '0.800']);
    expect(Array.from(normalizeVector(new Float32Array(3)))).toEqual([0, 0, 0]);
  });

  it('counts words and punctuation as approximate tokens', () => {
    expect(approximateTokens('Hello, world!')).toBe(4);
    expect(approximateTokens('')).toBe(0);
    expect(approximateTokens('naïve café 42')).toBe(3);
  });

  it('maps errors to each provider`s shape and status', () => {
    const missing = new IrserveError('ERR_SERVICE_NOT_FOUND', 'no model', {
      details: { model: 'm' },
    });
    expect(providerError('openai', missing)).toMatchObject({
      status: 404,
      body: { error: { code: 'model_not_found', param: 'model' } },
    });
    expect(providerError('cohere', missing)).toEqual({
      status: 404,
      body: { message: 'no model' },
    });
    const overloaded = new IrserveError('ERR_OVERLOADED', 'busy');
    expect(providerError('tei', overloaded)).toEqual({
      status: 429,
      body: { error: 'busy', error_type: 'Overloaded' },
    });
    expect(providerError('tei', new IrserveError('ERR_ENGINE', 'x')).status).toBe(424);
    expect(providerError('openai', new IrserveError('ERR_ENGINE', 'x'))).toMatchObject({
      status: 500,
      body: { error: { type: 'server_error' } },
    });
  });

  it('a TEI route without compat.tei and several models asks to choose one', () => {
    const core = {
      services: { names: (role: string) => (role === 'embed' ? ['a', 'b'] : []), has: () => true },
    } as unknown as AppCore;
    const catalog = new ModelCatalog(
      { embeddings: {}, rerank: {}, sparse_embeddings: {}, expose_services: true, tei: {} },
      core,
    );
    expect(() => catalog.teiModel('embed')).toThrow(/compat.tei.embed/);
    expect(() => catalog.teiModel('rerank')).toThrow(/map one in compat.rerank/);
  });

  it('expose_services false serves only the mapped names', () => {
    const core = {
      services: { names: () => ['svc'], has: () => true },
    } as unknown as AppCore;
    const catalog = new ModelCatalog(
      {
        embeddings: { m: 'svc' },
        rerank: {},
        sparse_embeddings: {},
        expose_services: false,
        tei: {},
      },
      core,
    );
    expect(catalog.list().map((m) => m.id)).toEqual(['m']);
    expect(() => catalog.embedding('svc')).toThrow(/model 'svc' does not exist/);
    expect(catalog.teiModel('embed')).toBe('m');
  });
});
