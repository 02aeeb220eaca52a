/**
 * Vitest global setup: every temporary file of a test run (the tests' `mkdtemp`, the servers and
 * commands they start) goes under one fresh directory, removed when the run ends, so a run leaves
 * nothing in the system's temp directory however a test ends. Workers and child processes inherit
 * `TMPDIR`, which `os.tmpdir()` reads on each call.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'irserve-test-run-'));
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}
