/** Shared helpers of the format tests: fixture paths, expected-value decoding, temp dirs. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export function fixture(...parts: string[]): string {
  return join(FIXTURES, ...parts);
}

/** Reads a fixture JSON file (written by make-fixtures.py). */
export function expected<T>(...parts: string[]): T {
  return JSON.parse(readFileSync(fixture(...parts), 'utf8')) as T;
}

/** make-fixtures.py writes non-finite floats as strings. */
export function num(value: number | string): number {
  if (value === 'nan') return NaN;
  if (value === 'inf') return Infinity;
  if (value === '-inf') return -Infinity;
  return value as number;
}

/** A temporary directory removed after the file's tests. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'irserve-dense-formats-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** float32 rounding of expected values, for exact comparisons with Float32Array contents. */
export function f32(values: (number | string)[]): number[] {
  return values.map((v) => Math.fround(num(v)));
}

/** Debian's interpreter first: its numpy comes from python3-numpy, whatever is first on PATH. */
export function findPython(): string | null {
  for (const candidate of ['/usr/bin/python3', 'python3']) {
    const probe = spawnSync(candidate, ['-c', 'import numpy'], { encoding: 'utf8' });
    if (probe.status === 0) return candidate;
  }
  return null;
}
