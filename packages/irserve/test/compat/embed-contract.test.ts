import { describe, expect, it } from 'vitest';
import { decodeValue, encodeValue } from '../../src/cache/kv-codec.js';
import {
  BaseEngine,
  capabilitiesOf,
  isEngineClass,
  type EmbedRequest,
} from '../../src/engines/contract.js';
import { cacheKeyFunction } from '../../src/processors/cache-key.js';
import { checkResults } from '../../src/processors/check-results.js';
import { unwrapItem } from '../../src/processors/item-failure.js';
import { EngineTypes } from '../../src/registry/engine-types.js';
import { CountSparse, HashEmbedder, TinyDense } from './engines.js';

class EmbedOnly extends BaseEngine {
  async embedBatch(requests: EmbedRequest[]) {
    return requests.map(() => new Float32Array([1]));
  }
}

describe('the embed capabilities of the engine contract', () => {
  it('an engine with only embedBatch or embedSparseBatch is an engine class', () => {
    expect(isEngineClass(HashEmbedder)).toBe(true);
    expect(isEngineClass(CountSparse)).toBe(true);
    expect(capabilitiesOf(HashEmbedder)).toEqual(['embed']);
    expect(capabilitiesOf(CountSparse)).toEqual(['embed_sparse']);
    expect(capabilitiesOf(TinyDense)).toEqual(['search', 'score', 'embed']);
    const types = new EngineTypes();
    types.register(TinyDense);
    expect(types.roles('TinyDense')).toEqual(['search', 'score', 'embed']);
  });

  it('BaseEngine reports canEmbed and canEmbedSparse', () => {
    const engine = new EmbedOnly({ name: 'e', config: {}, context: {} as never });
    expect(engine.canEmbed).toBe(true);
    expect(engine.canEmbedSparse).toBe(false);
    expect(engine.canSearch).toBe(false);
  });

  it('a class with none of the methods is refused with the list of methods', () => {
    expect(() => new EngineTypes().register(class Nothing {})).toThrow(
      /embedBatch, embedSparseBatch/,
    );
  });

  it('checks embed results: Float32Array of finite values, one per request', () => {
    const requests = [{ text: 'a', kind: 'query' as const }];
    // A malformed item fails alone (an ItemFailure in its slot); a wrong count fails the batch.
    const check = (role: 'embed' | 'embed_sparse', value: unknown) => () =>
      checkResults(role, 's', requests, [value]).map(unwrapItem);
    expect(check('embed', new Float32Array([1, 2]))).not.toThrow();
    expect(check('embed', [1, 2])).toThrow(/expected a non-empty Float32Array/);
    expect(check('embed', new Float32Array(0))).toThrow(/non-empty/);
    expect(check('embed', new Float32Array([NaN]))).toThrow(/non-finite/);
    expect(() => checkResults('embed', 's', requests, [])).toThrow(/0 results for a batch of 1/);
    expect(check('embed_sparse', { indices: [1, 2], values: [0.5] })).toThrow(
      /two number lists of one length/,
    );
    expect(check('embed_sparse', { indices: [-1], values: [0.5] })).toThrow(/non-negative integer/);
  });

  it('caches by every field but those excluded (cache_key_exclude)', () => {
    const key = cacheKeyFunction('embed', 'svc', ['trace']);
    expect(key({ text: 'a', kind: 'query' })).not.toBe(key({ text: 'a', kind: 'passage' }));
    expect(key({ text: 'a', kind: 'query', lang: 'en' })).not.toBe(
      key({ text: 'a', kind: 'query', lang: 'de' }),
    );
    expect(key({ text: 'a', kind: 'query', trace: 1 })).toBe(
      key({ text: 'a', kind: 'query', trace: 2 }),
    );
    expect(key({ text: 'a', kind: 'query' })).toMatch(/^svc:/);
  });

  it('vectors survive an external cache store exactly (the key-value codec)', () => {
    const vector = Float32Array.of(0.1, -2.5, 3e-8, 0);
    const decoded = decodeValue(encodeValue({ value: vector, timestamp: 1 })) as {
      value: Float32Array;
    };
    expect(decoded.value).toBeInstanceOf(Float32Array);
    expect(Array.from(decoded.value)).toEqual(Array.from(vector));
    const offset = new Float32Array(new ArrayBuffer(32), 8, 2);
    offset.set([7, 8]);
    expect(Array.from(decodeValue(encodeValue(offset)) as Float32Array)).toEqual([7, 8]);
  });
});
