import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '../../src/errors.js';

const GRPC_NAMES: Record<number, string> = {
  1: 'CANCELLED',
  3: 'INVALID_ARGUMENT',
  4: 'DEADLINE_EXCEEDED',
  5: 'NOT_FOUND',
  7: 'PERMISSION_DENIED',
  8: 'RESOURCE_EXHAUSTED',
  13: 'INTERNAL',
  14: 'UNAVAILABLE',
  16: 'UNAUTHENTICATED',
};

describe('docs/errors.md', () => {
  const doc = readFileSync(resolve(import.meta.dirname, '../../../../docs/errors.md'), 'utf8');
  const rows = new Map(
    [...doc.matchAll(/^\| `(ERR_[A-Z_]+)` \| (\d+) \| ([A-Z_]+) \|/gm)].map((m) => [
      m[1]!,
      { http: Number(m[2]), grpc: m[3]! },
    ]),
  );

  it('lists every code of the catalog with its HTTP and gRPC status', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOG)) {
      expect(rows.get(code), code).toEqual({ http: entry.http, grpc: GRPC_NAMES[entry.grpc] });
    }
  });

  it('lists no code that the catalog lacks', () => {
    for (const code of rows.keys()) expect(Object.keys(ERROR_CATALOG)).toContain(code);
  });
});
