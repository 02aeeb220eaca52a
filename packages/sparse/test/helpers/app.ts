/** Starts an irserve app with the sparse engines for a test world. */
import type { App } from 'irserve';
import { startTestApp } from 'irserve/testing';
import { LSR, Sparse } from '../../src/index.js';

export async function startApp(config: Record<string, unknown>, dir: string): Promise<App> {
  return (await startTestApp(config, { engines: [LSR, Sparse], dir })).app;
}

export { post } from 'irserve/testing';
