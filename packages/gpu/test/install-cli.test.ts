/**
 * `irserve-gpu-install`: bad arguments give the usage, and a fetch that fails (no npm, no
 * registry: a bare GPU host) is one line naming the package and the offline route, exit 1,
 * never a stack trace.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install, type InstallPlan } from '../src/cli/install-backend.js';
import { formatHelp } from 'irserve/plugin';
import { GPU_INSTALL, installCli, type InstallSteps } from '../src/cli/install-cli.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-gpu-install-test-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

function plan(): InstallPlan {
  return {
    backend: 'vulkan',
    version: '3.22.1',
    targets: [
      { spec: '@node-llama-cpp/linux-x64-vulkan@3.22.1', dir: join(dir, 'linux-x64-vulkan') },
    ],
  };
}

function cli(steps: Partial<InstallSteps>, args: string[]) {
  const lines = { log: [] as string[], error: [] as string[] };
  const io = { out: (l: string) => lines.log.push(l), err: (l: string) => lines.error.push(l) };
  const all: InstallSteps = {
    planInstall: plan,
    install: () => {},
    verify: () => Promise.resolve(true),
    ...steps,
  };
  return installCli(args, all, io).then((code) => ({ code, ...lines }));
}

describe('irserve-gpu-install', () => {
  it('refuses a missing or unknown backend and unknown options with the usage', async () => {
    const usage = 'usage: irserve-gpu-install cuda|vulkan [--dry_run]';
    const missing = await cli({}, []);
    expect(missing.code).toBe(2);
    expect(missing.error[0]).toBe(
      `irserve-gpu-install: expected cuda|vulkan, got 0 arguments\n${usage}\nRun "irserve-gpu-install --help" for every option.`,
    );
    const unknownBackend = await cli({}, ['rocm']);
    expect(unknownBackend.code).toBe(2);
    expect(unknownBackend.error[0]).toMatch(
      /^irserve-gpu-install: the backend must be cuda or vulkan, got rocm\nusage: /,
    );
    const unknown = await cli({}, ['cuda', '--force']);
    expect(unknown.code).toBe(2);
    expect(unknown.error[0]).toMatch(/^irserve-gpu-install: unknown option --force\nusage: /);
  });

  it('prints its help for --help', async () => {
    expect(await cli({}, ['--help'])).toMatchObject({ code: 0, log: [formatHelp(GPU_INSTALL)] });
  });

  it('--dry_run (or --dry-run) shows the plan and installs nothing', async () => {
    let installed = false;
    const result = await cli({ install: () => void (installed = true) }, ['vulkan', '--dry_run']);
    expect(result.code).toBe(0);
    expect(result.log[0]).toMatch(
      /^@node-llama-cpp\/linux-x64-vulkan@3\.22\.1 -> .*linux-x64-vulkan$/,
    );
    const hyphen = await cli({ install: () => void (installed = true) }, ['--dry-run', 'vulkan']);
    expect(hyphen).toMatchObject({ code: 0, log: result.log });
    expect(installed).toBe(false);
  });

  it('a failed fetch is one line and exit 1; a backend that does not load is exit 1', async () => {
    const failed = await cli(
      {
        install: () => {
          throw new Error('cannot fetch @node-llama-cpp/linux-x64-vulkan@3.22.1: npm ...');
        },
      },
      ['vulkan'],
    );
    expect(failed.code).toBe(1);
    expect(failed.error).toEqual([
      'irserve-gpu-install: cannot fetch @node-llama-cpp/linux-x64-vulkan@3.22.1: npm ...',
    ]);
    expect((await cli({ verify: () => Promise.resolve(false) }, ['vulkan'])).code).toBe(1);
  });

  it('without npm on the PATH, install names the package and the offline route', () => {
    const path = process.env.PATH;
    process.env.PATH = join(dir, 'no-such-bin');
    try {
      expect(() => install(plan())).toThrow(
        /cannot fetch @node-llama-cpp\/linux-x64-vulkan@3\.22\.1: npm could not be started .*npm pack @node-llama-cpp\/linux-x64-vulkan@3\.22\.1 where the registry is reachable.*tar -xzf <file>\.tgz -C .*linux-x64-vulkan --strip-components=1/,
      );
    } finally {
      process.env.PATH = path;
    }
  });
});
