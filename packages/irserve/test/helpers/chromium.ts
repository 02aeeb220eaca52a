import { existsSync } from 'node:fs';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/**
 * The path of a Chromium to drive with playwright-core (IRSERVE_CHROMIUM, else Debian's), or
 * undefined with a message naming what to install. CI must have it: there a missing browser
 * fails instead of skipping.
 */
export function chromiumPath(): string | undefined {
  const path = [process.env.IRSERVE_CHROMIUM, ...CANDIDATES].find(
    (candidate) => candidate !== undefined && existsSync(candidate),
  );
  if (!path && process.env.CI)
    throw new Error('chromium is required in CI (apt-get install chromium)');
  if (!path)
    console.warn(
      'skipping browser tests: no Chromium found (apt-get install chromium, or set IRSERVE_CHROMIUM)',
    );
  return path;
}
