import { describe, expect, it } from 'vitest';
import { IrserveError } from '../../src/errors.js';
import { equalNodes } from '../../src/pipeline/ast.js';
import { parsePipeline } from '../../src/pipeline/parser.js';
import { printPipeline } from '../../src/pipeline/print.js';
import { random } from '../helpers/random.js';

/** Pieces biased towards the grammar, so many strings get deep before they fail (or parse). */
const PIECES = [
  'a',
  'bm25',
  'b-2',
  'c_d',
  'RRF',
  'E',
  '>>',
  '>',
  '{',
  '}',
  ',',
  '[',
  ']',
  '@',
  '%',
  '3',
  '0',
  '100',
  ' ',
  '\t',
  '\n',
  '.',
  '-',
  '_',
  'é',
  '"',
  '\\',
  '\u0000',
  '{a,b}M',
  'x[y]@z%2',
];

function randomString(next: () => number): string {
  const length = Math.floor(next() * 24);
  let out = '';
  for (let i = 0; i < length; i++) {
    out +=
      next() < 0.85
        ? PIECES[Math.floor(next() * PIECES.length)]
        : String.fromCharCode(Math.floor(next() * 0x2fff));
  }
  return out;
}

describe('fuzz: random strings never throw anything but a syntax error', () => {
  it.each([1, 2, 3, 4])('seed %i: 5000 strings', (seed) => {
    const next = random(seed);
    let parsed = 0;
    for (let i = 0; i < 5000; i++) {
      const source = randomString(next);
      try {
        const ast = parsePipeline(source);
        parsed += 1;
        // Whatever parses prints canonically and round-trips.
        const again = parsePipeline(printPipeline(ast));
        expect(equalNodes(again, ast), source).toBe(true);
      } catch (error) {
        expect(error, JSON.stringify(source)).toBeInstanceOf(IrserveError);
        const e = error as IrserveError;
        expect(e.code, JSON.stringify(source)).toBe('ERR_PIPELINE_SYNTAX');
        expect(e.message).toMatch(/^pipeline syntax error at column \d+: expected .+, found .+/);
        const column = e.details?.column as number;
        expect(column).toBeGreaterThanOrEqual(1);
        expect(column).toBeLessThanOrEqual(source.length + 1);
      }
    }
    // The generator is meant to reach valid pipelines too, not only trivial failures.
    expect(parsed).toBeGreaterThan(50);
  });

  it('deep nesting and long inputs fail cleanly', () => {
    for (const source of ['{'.repeat(10_000), 'a >> '.repeat(5_000), '['.repeat(10_000)]) {
      expect(() => parsePipeline(source)).toThrow(/pipeline syntax error/);
    }
    expect(
      parsePipeline(Array.from({ length: 2000 }, (_, i) => `s${i}`).join(' >> ')).stages,
    ).toHaveLength(2000);
  });
});
