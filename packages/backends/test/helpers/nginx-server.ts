/**
 * nginx from Debian (`nginx`) as a test's load balancer: a server block of the caller's (the
 * scale-out example's, with its addresses swapped) included from a main config of our own that
 * keeps the pid file, logs and temporary files in a temporary folder and runs one process in the
 * foreground, so that the test can stop it like any child.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binaryAvailable, freePort, waitFor } from './ports.js';
import { stopChild } from './spawn-server.js';

export function nginxAvailable(): boolean {
  return binaryAvailable('nginx', ['-v'], 'nginx');
}

function mainConfig(dir: string): string {
  return [
    'daemon off;',
    // One process as the user running the test: no worker switching to `nobody`.
    'master_process off;',
    `pid ${join(dir, 'nginx.pid')};`,
    'events {}',
    'http {',
    `  access_log ${join(dir, 'access.log')};`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
      (kind) => `  ${kind}_temp_path ${join(dir, kind)};`,
    ),
    `  include ${join(dir, 'site.conf')};`,
    '}',
    '',
  ].join('\n');
}

function log(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });
}

export class NginxServer {
  port = 0;
  readonly #dir = mkdtempSync(join(tmpdir(), 'irserve-nginx-'));
  #child: ChildProcess | undefined;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * Starts nginx with the server block `site(port)` returns; resolves once it accepts connections.
   *
   * @example
   * await nginx.start((port) => `server { listen 127.0.0.1:${port}; location / { return 204; } }`);
   */
  async start(site: (port: number) => string): Promise<void> {
    this.port = await freePort();
    writeFileSync(join(this.#dir, 'site.conf'), site(this.port));
    writeFileSync(join(this.#dir, 'nginx.conf'), mainConfig(this.#dir));
    const errorLog = join(this.#dir, 'error.log');
    const args = ['-p', this.#dir, '-c', join(this.#dir, 'nginx.conf'), '-e', errorLog];
    const child = spawn('nginx', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`nginx exited: ${output}${log(errorLog)}`);
      return accepts(this.port);
    }, 10_000);
  }

  async destroy(): Promise<void> {
    await stopChild(this.#child, 'SIGQUIT');
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
