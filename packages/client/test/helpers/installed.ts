/** A project that installed the packed tarballs: its environment, manifests and server. */
import { execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** npm 11.16 is the first to read `allowScripts`; an older npm needs the environment variable. */
const ALLOW_SCRIPTS_SINCE = [11, 16];

export interface InstalledManifest {
  name: string;
  bin?: Record<string, string>;
  exports?: Record<string, unknown>;
  irserve?: { engineNames?: string[] };
}

function atLeast(version: string, minimum: number[]): boolean {
  const parts = version.split('.').map(Number);
  for (let i = 0; i < minimum.length; i++) {
    if (parts[i] !== minimum[i]) return (parts[i] ?? 0) > minimum[i]!;
  }
  return true;
}

/**
 * The environment of a user's shell: without the `npm_config_*` and `npm_package_*` variables
 * that `npm test` hands its children (they would configure the inner npm as the repository's),
 * and with `ONNXRUNTIME_NODE_INSTALL=skip` where npm is too old for `allowScripts`, as
 * docs/install.md says.
 */
export async function consumerEnv(): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_(config|package|lifecycle)_/i.test(key)) env[key] = value;
  }
  const { stdout } = await run('npm', ['--version'], { env });
  if (!atLeast(stdout.trim(), ALLOW_SCRIPTS_SINCE)) env.ONNXRUNTIME_NODE_INSTALL = 'skip';
  return env;
}

/** The package.json of the core and of every installed `@irserve` package. */
export async function installedManifests(project: string): Promise<InstalledManifest[]> {
  const names = ['irserve', 'onnx', 'dense', 'sparse', 'plaidx', 'gpu', 'backends', 'client'];
  return Promise.all(
    names.map(async (name) => {
      const folder = name === 'irserve' ? name : `@irserve/${name}`;
      const path = join(project, 'node_modules', folder, 'package.json');
      return JSON.parse(await readFile(path, 'utf8')) as InstalledManifest;
    }),
  );
}

export interface InstalledServer {
  url: string;
  /** Sends SIGTERM and answers the exit code. */
  stop: () => Promise<number | null>;
}

/** Starts the installed `irserve` command; resolves once it listens. */
export function serveInstalled(project: string, args: string[]): Promise<InstalledServer> {
  const child = spawn(join(project, 'node_modules/.bin/irserve'), args, {
    cwd: project,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((done) => child.on('close', done));
  let output = '';
  return new Promise((done, fail) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^"\s]+)/.exec(output);
      if (!match) return;
      done({
        url: match[1]!,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => fail(new Error(`irserve exited ${code}:\n${output}`)));
  });
}
