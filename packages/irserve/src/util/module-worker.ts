import { Worker } from 'node:worker_threads';

/**
 * A worker running the module `name` (a `.js` file) beside the module at `callerUrl` (pass
 * `import.meta.url`). From TypeScript sources (tests), the `.ts` file beside it runs through
 * tsx's loader, registered inside the worker: Node 20 does not apply
 * `execArgv: ['--import', 'tsx']` to a worker's own entry module.
 *
 * @example const worker = startModuleWorker(import.meta.url, './build-worker.js', data);
 */
export function startModuleWorker(callerUrl: string, name: string, workerData?: unknown): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(name, callerUrl), { workerData });
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const entry = new URL(name.replace(/\.js$/, '.ts'), callerUrl).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}
