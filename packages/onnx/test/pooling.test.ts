import { describe, expect, it } from 'vitest';
import {
  clsPool,
  l2Normalize,
  lastTokenPool,
  maxPool,
  meanPool,
  pool,
  rowsOf,
} from '@irserve/onnx';

// Two rows of three tokens, dim 2; row 0 has two real tokens (right padding), row 1 has two
// real tokens (left padding).
const states = {
  dims: [2, 3, 2],
  data: Float32Array.of(1, 2, 3, 4, 99, 99, /* row 1 */ 99, 99, 5, 6, 7, 0),
};
const mask = BigInt64Array.of(1n, 1n, 0n, 0n, 1n, 1n);

describe('pooling', () => {
  it('cls takes the first real token, whatever the padding side', () => {
    expect(clsPool(states, mask).map((v) => [...v])).toEqual([
      [1, 2],
      [5, 6],
    ]);
  });

  it('last_token takes the last real token', () => {
    expect(lastTokenPool(states, mask).map((v) => [...v])).toEqual([
      [3, 4],
      [7, 0],
    ]);
  });

  it('mean averages the real tokens only', () => {
    expect(meanPool(states, mask).map((v) => [...v])).toEqual([
      [2, 3],
      [6, 3],
    ]);
  });

  it('max takes the element-wise maximum of the real tokens only', () => {
    expect(maxPool(states, mask).map((v) => [...v])).toEqual([
      [3, 4],
      [7, 6],
    ]);
  });

  it('a row with no real token pools to zeros, never NaN', () => {
    const empty = BigInt64Array.of(0n, 0n, 0n, 1n, 1n, 1n);
    for (const name of ['cls', 'mean', 'max', 'last_token'] as const)
      expect([...pool(name, states, empty)[0]!]).toEqual([0, 0]);
  });

  it('none takes a [batch, dim] output as it is and refuses other ranks', () => {
    expect(rowsOf({ dims: [2, 2], data: Float32Array.of(1, 2, 3, 4) }).map((v) => [...v])).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(() => pool('none', states, mask)).toThrow(/\[batch, dim\]/);
    expect(() => meanPool({ dims: [2, 2], data: new Float32Array(4) }, mask)).toThrow(
      /\[batch, sequence, hidden\]/,
    );
  });

  it('l2Normalize scales to unit length and leaves zero vectors alone', () => {
    const [a, b] = l2Normalize([Float32Array.of(3, 4), Float32Array.of(0, 0)]);
    expect([...a!].map((x) => Math.round(x * 1e6) / 1e6)).toEqual([0.6, 0.8]);
    expect([...b!]).toEqual([0, 0]);
  });
});
