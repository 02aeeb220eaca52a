/** Starting an app with the PLAIDX engine registered directly, and posting to it. */
import type { App } from 'irserve';
import { startTestApp } from 'irserve/testing';
import { PLAIDX } from '../../src/index.js';

export async function startApp(config: Record<string, unknown>, dir: string): Promise<App> {
  return (await startTestApp(config, { engines: [PLAIDX], dir })).app;
}

export { post } from 'irserve/testing';
