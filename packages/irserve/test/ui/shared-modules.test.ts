/**
 * The compiled modules the playground imports from /ui/lib/ (SHARED_MODULES) must be served
 * together with everything they import, and import nothing a browser lacks (node:*, packages).
 * Read from the sources: type-only imports are erased by the compiler and do not count.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_MODULES } from '../../src/transports/http/routes/ui.js';

const src = join(import.meta.dirname, '../../src');
const IMPORT = /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;

describe('modules shared with the playground', () => {
  it('import only each other', () => {
    const listed = new Set(SHARED_MODULES);
    for (const module of SHARED_MODULES) {
      const text = readFileSync(join(src, module.replace(/\.js$/, '.ts')), 'utf8');
      for (const [, specifier] of text.matchAll(IMPORT)) {
        expect(specifier, `${module} imports ${specifier}`).toMatch(/^\.\.?\//);
        const target = normalize(join(dirname(module), specifier!));
        expect(listed.has(target), `${module} imports ${target}, which is not served`).toBe(true);
      }
    }
  });
});
