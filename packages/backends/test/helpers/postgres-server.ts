/**
 * A real PostgreSQL server from the Debian `postgresql` package, started by a test in a
 * temporary directory on a free loopback port. Postgres refuses to run as root: when the test
 * runs as root (CI does) the server runs as the `postgres` system user the package creates.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binaryAvailable, freePort } from './ports.js';
import { stopChild, untilReady } from './spawn-server.js';

/** The directory of `initdb` and `postgres`: Debian keeps them out of the PATH. */
function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, 'bin')).find((dir) => existsSync(join(dir, 'initdb')));
}

export function postgresAvailable(): boolean {
  const dir = binDir();
  return binaryAvailable(dir ? join(dir, 'postgres') : 'postgres', ['--version'], 'postgresql');
}

function systemUser(name: string): { uid: number; gid: number } | undefined {
  const uid = spawnSync('id', ['-u', name]).stdout?.toString().trim();
  const gid = spawnSync('id', ['-g', name]).stdout?.toString().trim();
  return uid && gid ? { uid: Number(uid), gid: Number(gid) } : undefined;
}

export class PostgresServer {
  port = 0;
  readonly user = 'irserve';
  readonly password: string;
  readonly #dir = mkdtempSync(join(tmpdir(), 'irserve-pg-'));
  #child: ChildProcess | undefined;
  #owner: { uid: number; gid: number } | undefined;

  constructor(password = 'pg-secret-Xy7') {
    this.password = password;
  }

  get url(): string {
    return `postgres://${this.user}@127.0.0.1:${this.port}/postgres`;
  }

  /** initdb (once), then the server; resolves when it accepts connections. */
  async start(): Promise<void> {
    const bin = binDir()!;
    if (this.port === 0) this.port = await freePort();
    const data = join(this.#dir, 'data');
    if (!existsSync(data)) this.#initdb(bin, data);
    const child = spawn(
      join(bin, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(this.port),
        '-k',
        this.#dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], ...(this.#owner ?? {}) },
    );
    this.#child = child;
    await untilReady(child, 'postgres', /ready to accept connections/, 30_000);
  }

  /** Runs SQL through psql over the Unix socket (trusted locally), in `database`. */
  psql(sqlText: string, database = 'postgres'): string {
    const result = spawnSync(
      'psql',
      [
        '-h',
        this.#dir,
        '-p',
        String(this.port),
        '-U',
        this.user,
        '-d',
        database,
        '-v',
        'ON_ERROR_STOP=1',
        '-At',
        '-c',
        sqlText,
      ],
      { encoding: 'utf8', ...(this.#owner ?? {}) },
    );
    if (result.status !== 0) throw new Error(`psql failed: ${result.stderr}`);
    return result.stdout;
  }

  /**
   * Freezes (`SIGSTOP`) or thaws (`SIGCONT`) the whole server, the postmaster and every backend
   * process it forked: it then accepts TCP connections (the kernel does) and answers nothing.
   */
  signalAll(signal: 'SIGSTOP' | 'SIGCONT'): void {
    const pid = this.#child?.pid;
    if (pid === undefined) throw new Error('the server is not running');
    const children = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
    const pids = [pid, ...children.stdout.split('\n').filter(Boolean).map(Number)];
    // Stopped parent first, so that it forks nothing in between; woken children first.
    for (const each of signal === 'SIGSTOP' ? pids : pids.reverse()) process.kill(each, signal);
  }

  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    await stopChild(child, 'SIGINT');
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #initdb(bin: string, data: string): void {
    if (process.getuid?.() === 0) {
      this.#owner = systemUser('postgres');
      if (!this.#owner)
        throw new Error('running as root, but there is no postgres system user to run the server');
      chownSync(this.#dir, this.#owner.uid, this.#owner.gid);
    }
    const pwfile = join(this.#dir, 'pw');
    writeFileSync(pwfile, this.password);
    if (this.#owner) chownSync(pwfile, this.#owner.uid, this.#owner.gid);
    const result = spawnSync(
      join(bin, 'initdb'),
      [
        '-D',
        data,
        '-U',
        this.user,
        '--pwfile',
        pwfile,
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
        '-E',
        'UTF8',
        '--locale=C',
      ],
      { encoding: 'utf8', ...(this.#owner ?? {}) },
    );
    if (result.status !== 0) throw new Error(`initdb failed: ${result.stderr}`);
  }
}
