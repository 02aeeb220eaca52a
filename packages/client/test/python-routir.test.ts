/**
 * The wire calls of RoutIR's Python client (REST transport), replayed with Python's standard
 * library against a real irserve server (test/python/routir_wire.py). pip cannot install
 * RoutIR here, so the script sends exactly what its RestTransport sends. Skips without
 * python3 locally; fails without it in CI.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY, startWorld, type World } from './world.js';

const run = promisify(execFile);
const SCRIPT = resolve(import.meta.dirname, 'python/routir_wire.py');

async function hasPython(): Promise<boolean> {
  try {
    await run('python3', ['--version']);
    return true;
  } catch {
    return false;
  }
}

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(() => world.close());

describe("RoutIR's Python client, on the wire", () => {
  it('gets the shapes it relies on', async (context) => {
    if (!(await hasPython())) {
      if (process.env.CI) throw new Error('python3 is required in CI for this test');
      console.warn('skipped: python3 not found');
      return context.skip();
    }
    const { stdout } = await run('python3', [SCRIPT, world.baseUrl, KEY], { timeout: 60_000 });
    expect(stdout.trim()).toBe('ok');
  });
});
