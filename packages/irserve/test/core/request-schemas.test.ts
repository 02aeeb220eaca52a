import { describe, expect, it } from 'vitest';
import { plainSearchRequest, searchRequestSchema } from '../../src/core/request-schemas.js';

const bodies: unknown[] = [
  { service: 'bm25', query: 'wing lift' },
  { service: 'bm25', query: '', limit: 10, subset: 'train', extra: [1, 2] },
  { service: 'bm25', query: 'q', limit: 2 ** 53 - 1 },
  { service: 'bm25', query: 'x'.repeat(1_000_000) },
  { service: 'bm25', query: 'x'.repeat(1_000_001) },
  { service: '', query: 'q' },
  { service: 7, query: 'q' },
  { query: 'q' },
  { service: 'bm25' },
  { service: 'bm25', query: null },
  { service: 'bm25', query: 'q', limit: 0 },
  { service: 'bm25', query: 'q', limit: -3 },
  { service: 'bm25', query: 'q', limit: 1.5 },
  { service: 'bm25', query: 'q', limit: 2 ** 53 },
  { service: 'bm25', query: 'q', limit: '10' },
  { service: 'bm25', query: 'q', limit: null },
  { service: 'bm25', query: 'q', subset: 3 },
  { service: 'bm25', query: 'q', subset: null },
  null,
  [],
  'text',
  42,
];

describe('plainSearchRequest (the hand-checked fast path of /search)', () => {
  it('accepts only what the schema accepts, and then returns the same fields', () => {
    for (const body of bodies) {
      const fast = plainSearchRequest(body);
      const parsed = searchRequestSchema.safeParse(body);
      if (fast !== undefined) {
        expect(parsed.success, JSON.stringify(body).slice(0, 80)).toBe(true);
        expect(fast).toEqual(parsed.data);
      }
    }
  });

  it('takes the common request without falling back to the schema', () => {
    expect(plainSearchRequest(bodies[0])).toBe(bodies[0]);
    expect(plainSearchRequest(bodies[1])).toBe(bodies[1]);
  });

  it('leaves every invalid body to the schema, which names the field', () => {
    for (const body of bodies.slice(4)) expect(plainSearchRequest(body)).toBeUndefined();
  });
});
