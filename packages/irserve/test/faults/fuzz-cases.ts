/**
 * Seeded generators of malformed requests: valid templates for every route, then mutations
 * (a field dropped, retyped, oversized, nulled or nested deep; unknown fields; broken JSON).
 */
import { random } from '../helpers/random.js';

export type Rand = () => number;

/** A valid body for each POST route (the services of fuzz-http.test.ts). */
export const TEMPLATES: Record<string, Record<string, unknown>> = {
  '/search': { service: 'const', query: 'wing lift', limit: 5 },
  '/query': { service: 'const', query: 'wing lift' },
  '/score': { service: 'overlap', query: 'wing', passages: ['wing lift', 'drag'] },
  '/fuse': { service: 'RRF', query: 'q', scores: [{ a: 1, b: 0.5 }, { b: 2 }] },
  '/decompose_query': { service: 'split', query: 'wing lift drag', limit: 2 },
  '/pipeline': { pipeline: '{const, const_b}RRF%5', query: 'wing', collection: 'docs' },
  '/content': { collection: 'docs', id: 'd0' },
  '/batch': {
    requests: [
      { endpoint: 'search', body: { service: 'const', query: 'q' } },
      { endpoint: 'score', body: { service: 'overlap', query: 'q', passages: ['q'] } },
    ],
  },
};

const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;

/** A hostile value: wrong types, extremes, huge or deep. */
export function hostileValue(rand: Rand): unknown {
  const kinds: (() => unknown)[] = [
    () => null,
    () => true,
    () => -1,
    () => 0,
    () => 1e308,
    () => -1e-308,
    () => 2 ** 53 + 1,
    () => 1.5,
    () => '',
    () => 'x'.repeat(Math.floor(rand() * 3_000_000)),
    () => '\u0000\ud800\uffff',
    () => '../../../etc/passwd',
    () => '{bm25}RRF%',
    () => [],
    () => [null, 1, 'a', {}],
    () => Array.from({ length: 2_000 }, () => 'p'),
    () => ({}),
    () => ({ __proto__: { polluted: true }, constructor: { prototype: {} } }),
    () => deep(Math.floor(rand() * 1_000)),
    () => ({ a: { b: [1, { c: 'd' }] } }),
  ];
  return pick(rand, kinds)();
}

function deep(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { nested: value };
  return value;
}

/** One malformed variant of `template`, or of its first nested body for /batch items. */
export function mutate(rand: Rand, template: Record<string, unknown>): unknown {
  const body: Record<string, unknown> = structuredClone(template);
  const keys = Object.keys(body);
  switch (Math.floor(rand() * 6)) {
    case 0:
      delete body[pick(rand, keys)];
      return body;
    case 1:
      body[pick(rand, keys)] = hostileValue(rand);
      return body;
    case 2:
      body[pick(rand, ['timeout', 'subset', 'limit', 'extra', 'service'])] = hostileValue(rand);
      return body;
    case 3:
      return hostileValue(rand);
    case 4: {
      const requests = body.requests;
      if (Array.isArray(requests) && requests.length > 0) {
        const item = requests[0] as { body: Record<string, unknown> };
        item.body[pick(rand, Object.keys(item.body))] = hostileValue(rand);
        return body;
      }
      body[pick(rand, keys)] = hostileValue(rand);
      return body;
    }
    default:
      for (const key of keys) if (rand() < 0.5) body[key] = hostileValue(rand);
      return body;
  }
}

/** A raw body that is not the JSON object it claims to be. */
export function brokenJson(rand: Rand, template: Record<string, unknown>): string {
  const text = JSON.stringify(template);
  return pick(rand, [
    text.slice(0, Math.floor(rand() * text.length)),
    text.replace(/"/g, "'"),
    `${text}${text}`,
    '',
    '[]',
    'null',
    '"string"',
    '\u0000',
    '{'.repeat(10_000),
    `{"service":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`,
  ]);
}

export { random };
