/**
 * An irserve replica run the way a deployment runs it: the built `irserve` command (what the
 * container image's entry point runs, `packages/irserve/bin/irserve.js`) as a process of its own
 * on a free loopback port, with the back-end extras discovered from the installed workspaces.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const PACKAGES = resolve(import.meta.dirname, '../../..');
const BIN = resolve(PACKAGES, 'irserve/bin/irserve.js');
const LISTENING = /listening on (http:\/\/[^"\s]+)/;

/**
 * Whether the built command is there (`npm test` builds before it tests). CI must have it: there
 * a missing build fails instead of skipping.
 */
export function builtCommandAvailable(): boolean {
  const built = ['irserve/dist/cli/bin.js', 'backends/dist/index.js'].every((path) =>
    existsSync(resolve(PACKAGES, path)),
  );
  if (!built && process.env.CI) throw new Error('the packages must be built (npm run build)');
  if (!built) console.warn('skipping tests of the irserve command: run `npm run build` first');
  return built;
}

export class Replica {
  readonly #child: ChildProcess;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  url = '';
  #output = '';

  private constructor(config: string, env: Record<string, string>) {
    this.#child = spawn(process.execPath, [BIN, config, '--host', '127.0.0.1', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const keep = (chunk: Buffer) => (this.#output += chunk.toString());
    this.#child.stdout?.on('data', keep);
    this.#child.stderr?.on('data', keep);
    this.exited = new Promise((done) => this.#child.once('exit', (code) => done(code)));
  }

  /**
   * Starts `irserve <config>`; resolves once it says where it listens.
   *
   * @example
   * const replica = await Replica.start('config.json', { PGPASSWORD: 'secret' });
   */
  static async start(config: string, env: Record<string, string> = {}): Promise<Replica> {
    const replica = new Replica(config, env);
    replica.url = await replica.#listening(30_000);
    return replica;
  }

  /** Sends `signal` (a deployment's stop is SIGTERM); resolves with the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.#child.exitCode === null) this.#child.kill(signal);
    return this.exited;
  }

  #listening(ms: number): Promise<string> {
    return new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`irserve did not start: ${this.#output}`)), ms);
      const check = () => {
        const match = LISTENING.exec(this.#output);
        if (match === null) return;
        clearTimeout(timer);
        done(match[1]!);
      };
      this.#child.stdout?.on('data', check);
      this.#child.stderr?.on('data', check);
      void this.exited.then((code) => {
        clearTimeout(timer);
        fail(new Error(`irserve exited with ${code} before listening: ${this.#output}`));
      });
    });
  }
}
