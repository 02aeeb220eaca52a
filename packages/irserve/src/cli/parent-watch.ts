/**
 * Under `npx irserve` (`npm exec`), npm runs the command through `sh -c`: a supervisor's
 * SIGTERM to the npx pid ends npm and the shell, and the server, now an orphan, would go on
 * serving. So a server started by `npm exec` watches its parent and stops, as on SIGTERM, once
 * the parent is gone (the parent pid changes when the process is re-parented). Any other start
 * is left alone: a server that outlives the shell that started it on purpose (`nohup`, `&`)
 * keeps running.
 *
 * @example
 * const unwatch = stopWhenNpxExits(process.env, () => close('the npx process exited'));
 */
export function stopWhenNpxExits(
  env: NodeJS.ProcessEnv,
  stop: () => void,
  intervalMs = 250,
): () => void {
  if (env.npm_command !== 'exec') return () => {};
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
