import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = resolve(import.meta.dirname, '../../src/cli/bin.ts');
const EXAMPLES = resolve(import.meta.dirname, '../../../../examples/plugins');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI from source; `untilOutput` sends SIGTERM once stdout contains it. */
function runCli(
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    untilOutput?: RegExp;
    onReady?: (out: string) => Promise<void>;
  } = {},
): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', BIN, ...args], {
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let triggered = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (options.untilOutput && !triggered && options.untilOutput.test(stdout)) {
        triggered = true;
        void (options.onReady?.(stdout) ?? Promise.resolve()).finally(() => child.kill('SIGTERM'));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
    setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
  });
}

describe('irserve command', () => {
  it('prints usage and version', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/irserve <config.json> \[--port 8000\]/);
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('prints the config JSON Schema', async () => {
    const run = await runCli(['--print-config-schema']);
    expect(JSON.parse(run.stdout)).toMatchObject({ type: 'object' });
  });

  it('exits 2 with a readable message (no stack trace) on a bad config', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'irserve-cli-'));
    await writeFile(join(dir, 'bad.json'), JSON.stringify({ servics: [] }));
    const run = await runCli([join(dir, 'bad.json')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/servics: unknown key \(did you mean "services"\?\)/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 on a bad flag', async () => {
    const run = await runCli(['x.json', '--port', 'eighty']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--port must be an integer/);
  });

  it('reports every problem of a config in one start: keys, engines, engine configs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'irserve-cli-'));
    const config = {
      timout: 5,
      services: [
        { name: 'a', engine: 'BM25', config: { collection: 'c', k1: 'high' } },
        { name: 'b', engine: 'BM25', config: { collection: 'c', kk1: 1.2 } },
        { name: 'c', engine: 'Postgres', config: { url: 'postgres://x', table: 't' } },
        { name: 'd', engine: 'BM52' },
      ],
    };
    await writeFile(join(dir, 'c.json'), JSON.stringify(config));
    const run = await runCli([join(dir, 'c.json')]);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe(`irserve: invalid configuration in ${join(dir, 'c.json')}:`);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^ {2}- timout: unknown key \(did you mean "timeout"\?\)$/),
      expect.stringMatching(/^ {2}- services\[0\]\.config\.k1: .*number/),
      expect.stringMatching(
        /^ {2}- services\[1\]\.config\.kk1: unknown key \(did you mean "k1"\?\)$/,
      ),
      expect.stringMatching(
        /^ {2}- services\[2\]\.config\.url: unknown key \(did you mean "connection_string"\?\)$/,
      ),
      '  - services[2].config.connection_string: set connection_string, or host and database',
      expect.stringMatching(
        /^ {2}- services\[3\]\.engine: unknown engine "BM52" \(did you mean "BM25"\?\)/,
      ),
    ]);
  });

  it('exits 1 naming an unknown engine', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'irserve-cli-'));
    await writeFile(
      join(dir, 'c.json'),
      JSON.stringify({ services: [{ name: 'a', engine: 'BM52' }] }),
    );
    const run = await runCli([join(dir, 'c.json')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown engine "BM52" \(did you mean "BM25"\?\)/);
  });

  it('serves a config with plugins, then drains and exits 0 on SIGTERM', async () => {
    let answer: unknown;
    const run = await runCli([join(EXAMPLES, 'config.json'), '--port', '0'], {
      env: { IRSERVE_API_KEY: 'k' },
      untilOutput: /irserve listening on (http:\/\/[^"\s]+)/,
      onReady: async (out) => {
        const base = /irserve listening on (http:\/\/[^"\s]+)/.exec(out)![1]!;
        const response = await fetch(`${base}/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
          body: JSON.stringify({ service: 'keywords', query: 'neural retrieval', limit: 2 }),
        });
        answer = await response.json();
      },
    });
    expect(run.code).toBe(0);
    expect(answer).toMatchObject({ scores: { d1: 2, d3: 1 }, service: 'keywords' });
    expect(run.stdout).not.toMatch(/"k"/);
  });
});
