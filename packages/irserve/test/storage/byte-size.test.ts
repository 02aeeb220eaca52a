/**
 * One reading of sizes for configs (`memory_budget`) and command lines (`--memory_budget`):
 * K/M/G/T and KiB/MiB/GiB/TiB are powers of 1024, KB/MB/GB/TB powers of 1000.
 */
import { describe, expect, it } from 'vitest';
import { byteSizeOf, formatBytes, parseByteSize } from '../../src/storage/byte-size.js';
import { memoryBudgetField } from '../../src/engines/engine-fields.js';

describe('parseByteSize', () => {
  it.each([
    ['4096', 4096],
    [4096, 4096],
    ['64M', 64 * 2 ** 20],
    ['64MiB', 64 * 2 ** 20],
    ['64MB', 64e6],
    ['4G', 4 * 2 ** 30],
    ['4GiB', 4 * 2 ** 30],
    ['4 gib', 4 * 2 ** 30],
    ['1.5G', 1.5 * 2 ** 30],
    ['2T', 2 * 2 ** 40],
    ['1k', 1024],
    ['80KB', 80_000],
    ['10B', 10],
    ['1.5', 1],
  ])('%j is %d bytes', (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });

  it.each(['lots', '', '4 lots', '-1', '1e9', '4GG', '4 i'])('%j is not a size', (text) => {
    expect(parseByteSize(text)).toBeUndefined();
  });

  it('says which field is wrong and the accepted forms', () => {
    expect(() => byteSizeOf('64 lots', 'config.memory_budget')).toThrow(
      'config.memory_budget must be a size such as 4096 (bytes), 64M or 64MiB (2^20 bytes each), 64MB (10^6), 4G, 4GiB or 1.5G, got "64 lots"',
    );
  });

  it('is what a config field accepts', () => {
    const field = memoryBudgetField();
    expect(field.parse('64M')).toBe('64M');
    expect(parseByteSize(field.parse('64M'))).toBe(64 * 2 ** 20);
    expect(field.safeParse('64 lots').error?.issues[0]?.message).toMatch(/^a size such as 4096/);
  });

  it('writes sizes for people', () => {
    expect(formatBytes(1.5 * 2 ** 30)).toBe('1.5 GiB');
    expect(formatBytes(100)).toBe('100 B');
  });
});
