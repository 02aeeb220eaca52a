/**
 * Vitest global setup: every temporary file of a test run (the tests' `mkdtemp`, the servers and
 * commands they start) goes under one fresh directory, removed when the run ends, so a run leaves
 * nothing in the system's temp directory however a test ends. Workers and child processes inherit
 * `TMPDIR`, which `os.tmpdir()` reads on each call.
 *
 * No test reaches the real Hugging Face Hub nor touches the user's cache: a model name that is
 * not a path resolves offline against an empty cache of the run (tests of the hub give their
 * apps an `env` pointing HF_ENDPOINT at a local stand-in).
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
  const hub = {
    HF_HUB_OFFLINE: '1',
    HF_HUB_CACHE: join(dir, 'hf-hub'),
    HF_ENDPOINT: 'http://127.0.0.1:9',
  };
  const before = Object.fromEntries(Object.keys(hub).map((name) => [name, process.env[name]]));
  Object.assign(process.env, hub);
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    for (const [name, value] of Object.entries(before))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}
