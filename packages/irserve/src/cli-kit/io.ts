/**
 * Where a command writes, and how a command module knows it was run (rather than imported by a
 * test).
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where a command writes; tests pass their own to capture the lines. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  interactive?: boolean;
}

/** The console, with progress bars when stderr is a terminal. */
export function defaultIo(): CliIo {
  return {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    interactive: process.stderr.isTTY === true,
  };
}

/**
 * Whether the process was started on `moduleUrl` itself or on its `bin/` launcher (npm links
 * resolved), so a command module runs `main` only then and stays importable by tests.
 *
 * @example
 * if (isEntryPoint(import.meta.url, new URL('../../bin/irserve-encode.js', import.meta.url))) ...
 */
export function isEntryPoint(moduleUrl: string, launcherUrl: URL): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    const real = realpathSync(script);
    return real === fileURLToPath(moduleUrl) || real === realpathSync(fileURLToPath(launcherUrl));
  } catch {
    return false;
  }
}
