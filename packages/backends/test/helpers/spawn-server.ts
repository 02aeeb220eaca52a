import type { ChildProcess } from 'node:child_process';

/**
 * Resolves once `child` prints `ready` on stdout or stderr; rejects with everything it printed
 * when it exits first or `ms` passes (the server under test failed to start).
 *
 * @example
 * const child = spawn('searchd', ['--config', path, '--nodetach'], { stdio: ['ignore', 'pipe', 'pipe'] });
 * await untilReady(child, 'searchd', /accepting connections/, 15_000);
 */
export function untilReady(
  child: ChildProcess,
  name: string,
  ready: RegExp,
  ms: number,
): Promise<void> {
  return new Promise<void>((resolveStart, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${output}`)), ms);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolveStart();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}: ${output}`));
    });
  });
}

/**
 * Stops a server started by a test: sends `signal` and resolves when it has exited (at once
 * when it is gone already).
 *
 * @example
 * await stopChild(child, 'SIGINT'); // PostgreSQL's fast shutdown
 */
export async function stopChild(
  child: ChildProcess | undefined,
  signal: NodeJS.Signals,
): Promise<void> {
  if (!child || child.exitCode !== null) return;
  await new Promise<void>((resolveStop) => {
    child.once('exit', () => resolveStop());
    child.kill(signal);
  });
}
