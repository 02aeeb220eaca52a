/**
 * Stopping the server: SIGTERM lets an in-flight request finish before the process exits 0, and
 * SIGTERM to `npm start` reaches the server (the script `exec`s it, so no shell sits between
 * npm, which forwards the signal, and node). Both through real processes and sockets.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpClient } from '@irserve/client';

const ROOT = resolve(import.meta.dirname, '../../../..');
const BIN = resolve(ROOT, 'packages/irserve/src/cli/bin.ts');
const LISTENING = /listening on (http:\/\/[^"\s]+)/;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts a process; resolves with its base URL once it logs that it listens. */
function start(command: string, args: string[], cwd: string) {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  children.push(child);
  let output = '';
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const listening = new Promise<string>((done, fail) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = LISTENING.exec(output);
      if (match) done(match[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => fail(new Error(`exited ${code} before listening:\n${output}`)));
  });
  return { child, listening, exited, output: () => output };
}

function portOpen(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((done) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });
}

/** The pids of a process's descendants (Linux /proc), children first. */
function descendants(pid: number): number[] {
  const children = (parent: number): number[] => {
    try {
      return readdirSync(`/proc/${parent}/task`).flatMap((task) =>
        readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8')
          .split(' ')
          .filter(Boolean)
          .map(Number),
      );
    } catch {
      return [];
    }
  };
  return children(pid).flatMap((child) => [child, ...descendants(child)]);
}

/** Whether a process runs (a zombie counts as gone: it only waits for its parent to reap it). */
function alive(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('SIGTERM', () => {
  it('drains an in-flight request, then exits 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'irserve-signal-'));
    try {
      await writeFile(
        join(dir, 'slow.mjs'),
        // Marks its start in a file: the signal goes once the request is in the engine, however
        // slowly a loaded machine got it there (a fixed wait lost that race under load).
        "import { writeFileSync } from 'node:fs';\n" +
          "export class Slow { async searchBatch(requests) { writeFileSync(new URL('./entered', import.meta.url), ''); await new Promise((r) => setTimeout(r, 800)); return requests.map(() => ({ d1: 1 })); } }\n",
      );
      const config = { file_imports: ['slow.mjs'], services: [{ name: 'slow', engine: 'Slow' }] };
      await writeFile(join(dir, 'config.json'), JSON.stringify(config));
      const server = start(
        process.execPath,
        ['--import', 'tsx', BIN, join(dir, 'config.json'), '--port', '0'],
        ROOT,
      );
      const client = new HttpClient({ baseUrl: await server.listening });
      const inFlight = client.search({ service: 'slow', query: 'q' });
      await vi.waitFor(() => expect(existsSync(join(dir, 'entered'))).toBe(true), {
        timeout: 20_000,
        interval: 20,
      });
      server.child.kill('SIGTERM');
      expect((await inFlight).scores).toEqual({ d1: 1 });
      expect(await server.exited).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('to the pid of `npx irserve` stops the server and leaves no process behind', async () => {
    // npx runs `sh -c irserve ...` under npm: the signal ends npm and the shell, and the server,
    // re-parented, notices that its parent is gone and drains as on SIGTERM.
    const dir = await mkdtemp(join(tmpdir(), 'irserve-npx-'));
    try {
      await writeFile(
        join(dir, 'echo.mjs'),
        'export class Echo { async searchBatch(requests) { return requests.map(() => ({ d1: 1 })); } }\n',
      );
      const config = { file_imports: ['echo.mjs'], services: [{ name: 'echo', engine: 'Echo' }] };
      await writeFile(join(dir, 'config.json'), JSON.stringify(config));
      const npx = start('npx', ['irserve', join(dir, 'config.json'), '--port', '0'], ROOT);
      const base = await npx.listening;
      const tree = descendants(npx.child.pid!);
      expect(tree.length, 'npx runs the server in a child process').toBeGreaterThan(0);
      npx.child.kill('SIGTERM');
      await npx.exited;
      await vi.waitFor(async () => expect(await portOpen(base)).toBe(false), {
        timeout: 10_000,
        interval: 100,
      });
      await vi.waitFor(() => expect(tree.filter(alive)).toEqual([]), {
        timeout: 10_000,
        interval: 100,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('to `npm start` stops the server too', async () => {
    const npm = start('npm', ['start', '--silent', '--', '--port', '0'], ROOT);
    const base = await npm.listening;
    expect(await new HttpClient({ baseUrl: base }).ping()).toEqual({ status: 'pong' });
    npm.child.kill('SIGTERM');
    await npm.exited;
    for (let tries = 0; tries < 50 && (await portOpen(base)); tries += 1)
      await new Promise((r) => setTimeout(r, 100));
    expect(await portOpen(base), npm.output()).toBe(false);
  }, 60_000);
});
