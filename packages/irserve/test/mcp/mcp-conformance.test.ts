/**
 * The MCP project's own conformance suite (`@modelcontextprotocol/conformance`, pinned to
 * 0.1.8, the last release that runs on Node 20) against irserve's `/mcp` endpoint: the
 * scenarios that apply to any server (the initialization handshake, a valid tool listing). The
 * other scenarios exercise the suite's own test server's tools and capabilities irserve does not
 * declare (resources, logging, prompts, sampling).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { fixtureApp, fixtureCopy } from './helpers.js';

const require = createRequire(import.meta.url);
const runner = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);

let app: App;
let base: string;
let fixture: ReturnType<typeof fixtureCopy>;
let resultsDir: string;

beforeAll(async () => {
  fixture = fixtureCopy();
  ({ app, base } = await fixtureApp(fixture.dir));
  resultsDir = mkdtempSync(join(tmpdir(), 'irserve-mcp-conformance-'));
});
afterAll(async () => {
  await app?.close();
  fixture?.remove();
  rmSync(resultsDir, { recursive: true, force: true });
});

/** Runs one server scenario; resolves with its exit code and output. */
function scenario(name: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [runner, 'server', '--url', `${base}/mcp`, '--scenario', name],
      { cwd: resultsDir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('MCP conformance suite', () => {
  for (const name of ['server-initialize', 'tools-list']) {
    it(`passes ${name}`, async () => {
      const { code, output } = await scenario(name);
      expect(output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
      expect(code).toBe(0);
    }, 60_000);
  }
});
