/**
 * Vitest global setup: every temporary file of a test run (the tests' `mkdtemp`, the servers and
 * commands they start) goes under one fresh directory, removed when the run ends, so a run leaves
 * nothing in the system's temp directory however a test ends. Workers and child processes inherit
 * `TMPDIR`, which `os.tmpdir()` reads on each call.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'irserve-test-run-'));
  // As open as the temp directory it stands for: servers the tests start as another user
  // (PostgreSQL's initdb and postgres run as `postgres` when the tests run as root) reach
  // their folders through it.
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}
