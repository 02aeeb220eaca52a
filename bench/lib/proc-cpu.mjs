// CPU time of processes from /proc, for benchmarks on a shared machine.
import { readFileSync } from 'node:fs';

/**
 * CPU milliseconds (user + system) from /proc (Linux; undefined elsewhere): of a live process, or
 * with `children`, of this process's waited-for children. On a shared machine wall time swings
 * with the load; CPU time much less.
 */
export function cpuMs(pid, children = false) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const [user, system] = children ? [fields[13], fields[14]] : [fields[11], fields[12]];
    return ((Number(user) + Number(system)) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}
