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
