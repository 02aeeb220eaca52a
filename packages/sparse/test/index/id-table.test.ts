import { describe, expect, it } from 'vitest';
import { IdTable, idArray, idListOf, idsJson, scanIdOffsets } from '../../src/index/id-table.js';

const HOSTILE = [
  'p1',
  '',
  'a "quoted" id',
  'back\\slash\\',
  'ünïcödé 🎉 id',
  'tab\tand\nnewline',
  '\u0000nul',
  ',],["',
  'x'.repeat(10_000),
];

describe('ids decoded one at a time', () => {
  it('round-trips any string through the JSON array and its offsets', () => {
    const { json, offsets } = idsJson(HOSTILE);
    expect(JSON.parse(json.toString('utf8'))).toEqual(HOSTILE);
    const table = new IdTable(json, offsets);
    expect(table.length).toBe(HOSTILE.length);
    expect(idArray(table)).toEqual(HOSTILE);
    expect(scanIdOffsets(json, HOSTILE.length)).toEqual(offsets);
    expect(idArray(idListOf(json, HOSTILE.length, undefined, 'ids'))).toEqual(HOSTILE);
  });

  it('handles an empty list and out-of-range positions', () => {
    const { json, offsets } = idsJson([]);
    expect(json.toString()).toBe('[]');
    expect(scanIdOffsets(json, 0)).toEqual(offsets);
    const table = new IdTable(json, offsets);
    expect(table.length).toBe(0);
    expect(table.at(0)).toBeUndefined();
    const two = new IdTable(...(Object.values(idsJson(['a', 'b'])) as [Buffer, Uint32Array]));
    for (const position of [-1, 2, 1.5, Number.NaN]) expect(two.at(position)).toBeUndefined();
  });

  it('parses an array written by another tool (not compact) whole, and refuses a wrong one', () => {
    const spaced = Buffer.from('[ "a", "b",\n "c" ]');
    expect(scanIdOffsets(spaced, 3)).toBeUndefined();
    expect(idListOf(spaced, 3, undefined, 'ids.json')).toEqual(['a', 'b', 'c']);
    expect(() => idListOf(spaced, 4, undefined, 'ids.json')).toThrow(
      'ids.json is not a list of 4 strings',
    );
    expect(() => idListOf(Buffer.from('["a", 1]'), 2, undefined, 'ids.json')).toThrow(
      'is not a list of 2 strings',
    );
    expect(() => idListOf(Buffer.from('["a"'), 1, undefined, 'ids.json')).toThrow(
      'ids.json is not valid JSON',
    );
    expect(scanIdOffsets(Buffer.from('["a","b"]'), 1)).toBeUndefined();
    expect(scanIdOffsets(Buffer.from('["a"]'), 2)).toBeUndefined();
  });

  it('falls back to scanning when the offsets do not fit the array, and names damage it meets', () => {
    const { json, offsets } = idsJson(['alpha', 'beta']);
    expect(idArray(idListOf(json, 2, new Uint32Array([1, 3, 99]), 'ids'))).toEqual([
      'alpha',
      'beta',
    ]);
    const shifted = new IdTable(json, new Uint32Array([2, offsets[1]!, offsets[2]!]));
    expect(() => shifted.at(0)).toThrow('id 0 is not where its offsets file says');
    expect(shifted.at(1)).toBe('beta');
  });
});
