import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Whether `binary` runs (`args` prints a version). CI must have it: there a missing binary fails
 * the suite instead of skipping it.
 */
export function binaryAvailable(binary: string, args: string[], debianPackage: string): boolean {
  const found = spawnSync(binary, args).status === 0;
  if (!found && process.env.CI)
    throw new Error(
      `${binary} is required in CI (.ci/run installs the Debian package ${debianPackage})`,
    );
  if (!found)
    console.warn(
      `skipping tests that need ${binary}: not installed (apt-get install ${debianPackage})`,
    );
  return found;
}

/** Polls `check` every 50 ms until it is true; fails after `ms`. */
export async function waitFor(check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
}
