import { describe, expect, it } from 'vitest';
import {
  MAX_PIPELINE_LENGTH,
  pipelineRequestSchema,
  plainPipelineRequest,
} from '../../src/pipeline/request-schema.js';

const valid: unknown[] = [
  { pipeline: '{bm25%100, dense%100}RRF%100', query: 'wing lift', collection: 'docs' },
  { pipeline: 'bm25', query: '' },
  { pipeline: 'bm25 >> rerank', query: 'q', collection: 'c', explain: true, limit: 10 },
  { pipeline: 'bm25', query: 'q', explain: false, limit: 2 ** 53 - 1 },
  { pipeline: 'x'.repeat(MAX_PIPELINE_LENGTH), query: 'x'.repeat(1_000_000) },
];

const others: unknown[] = [
  // Valid, but with fields the fast path leaves to the schema.
  { pipeline: 'bm25', query: 'q', runtime_kwargs: { bm25: { limit: 5 } } },
  { pipeline: 'bm25', query: 'q', timeout: 2 },
  { pipeline: 'bm25', query: 'q', collection: null },
  // Invalid: missing, malformed, oversized and hostile values.
  { query: 'q' },
  { pipeline: 'bm25' },
  { pipeline: '', query: 'q' },
  { pipeline: 'x'.repeat(MAX_PIPELINE_LENGTH + 1), query: 'q' },
  { pipeline: 7, query: 'q' },
  { pipeline: 'bm25', query: 'x'.repeat(1_000_001) },
  { pipeline: 'bm25', query: ['q'] },
  { pipeline: 'bm25', query: 'q', collection: '' },
  { pipeline: 'bm25', query: 'q', collection: 3 },
  { pipeline: 'bm25', query: 'q', explain: 'yes' },
  { pipeline: 'bm25', query: 'q', limit: 0 },
  { pipeline: 'bm25', query: 'q', limit: -1 },
  { pipeline: 'bm25', query: 'q', limit: 1.5 },
  { pipeline: 'bm25', query: 'q', limit: 2 ** 53 },
  { pipeline: 'bm25', query: 'q', limit: '10' },
  { pipeline: 'bm25', query: 'q', extra: 1 },
  JSON.parse('{"pipeline": "bm25", "query": "q", "__proto__": {"limit": 1}}'),
  null,
  [],
  'bm25',
  42,
];

describe('plainPipelineRequest (the hand-checked fast path of /pipeline)', () => {
  it('accepts only what the schema accepts, and then returns the same fields', () => {
    for (const body of [...valid, ...others]) {
      const fast = plainPipelineRequest(body);
      if (fast === undefined) continue;
      const parsed = pipelineRequestSchema.safeParse(body);
      expect(parsed.success, JSON.stringify(body).slice(0, 80)).toBe(true);
      expect(fast).toEqual(parsed.data);
    }
  });

  it('takes the common bodies as they are, without the schema', () => {
    for (const body of valid) expect(plainPipelineRequest(body)).toBe(body);
  });

  it('leaves every other body to the schema, which names the field', () => {
    for (const body of others) expect(plainPipelineRequest(body)).toBeUndefined();
  });
});
