import { describe, expect, test } from 'vitest';
import { decodeFloat16, halfToFloat, toFloat16Bits } from '../../src/formats/float16.js';

describe('float16', () => {
  test('special values', () => {
    expect(halfToFloat(0x3c00)).toBe(1);
    expect(halfToFloat(0xc000)).toBe(-2);
    expect(halfToFloat(0x7bff)).toBe(65504);
    expect(halfToFloat(0x0001)).toBe(2 ** -24);
    expect(halfToFloat(0x03ff)).toBe(1023 * 2 ** -24);
    expect(halfToFloat(0x7c00)).toBe(Infinity);
    expect(halfToFloat(0xfc00)).toBe(-Infinity);
    expect(halfToFloat(0x7e00)).toBeNaN();
    expect(Object.is(halfToFloat(0x8000), -0)).toBe(true);
  });

  test('every non-NaN pattern survives decode then encode', () => {
    const all = Uint16Array.from({ length: 65536 }, (_, i) => i);
    const back = toFloat16Bits(decodeFloat16(all));
    const isNaN16 = (h: number) => (h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0;
    // Compare in bulk: 65,536 separate expects take seconds.
    const want = Array.from(all, (h) => (isNaN16(h) ? 'nan' : h));
    expect(Array.from(back, (h) => (isNaN16(h) ? 'nan' : h))).toEqual(want);
  });

  test('encoding rounds to nearest even and overflows to infinity', () => {
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties go to the even mantissa (1).
    expect(
      Array.from(toFloat16Bits(new Float32Array([1 + 2 ** -11, 1 + 3 * 2 ** -11, 65520, 1e-9]))),
    ).toEqual([0x3c00, 0x3c02, 0x7c00, 0]);
  });
});
