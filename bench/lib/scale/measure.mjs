// What bench/scale.mjs measures and how: a command's wall time and peak RSS (GNU time, so the
// figure covers every thread of the process), the resident memory of the running process,
// bytes on disk, and query latencies.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TIME = '/usr/bin/time';

/**
 * Runs `command args` with stderr shown (progress bars, log lines) and stdout captured; resolves
 * to its wall seconds, peak RSS and stdout, or rejects naming the command and its exit code.
 */
export async function runMeasured(command, args, { env, cwd } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-scale-time-'));
  const out = join(dir, 'time');
  try {
    const child = spawn(TIME, ['-f', '%e %M', '-o', out, command, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
      cwd,
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const code = await new Promise((resolve, reject) => {
      child.on('error', (error) =>
        reject(new Error(`cannot run ${TIME} (GNU time; apt-get install time): ${error.message}`)),
      );
      child.on('close', resolve);
    });
    if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with code ${code}`);
    const [seconds, kib] = (await readFile(out, 'utf8')).trim().split('\n').at(-1).split(' ');
    return { seconds: Number(seconds), peakRssBytes: Number(kib) * 1024, stdout };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A command's build figures: wall seconds, peak RSS, and the bytes of what it wrote at `index`. */
export async function measuredBuild(command, args, index) {
  const built = await runMeasured(command, args);
  return {
    seconds: built.seconds,
    peakRssBytes: built.peakRssBytes,
    indexBytes: await diskBytes(index),
  };
}

/** What an engine measured in a child process is given: warnings to stderr, files in `work`. */
export async function engineContext(work) {
  const { pino } = await import('pino');
  return {
    logger: pino({ level: 'warn' }, process.stderr),
    cacheDir: work,
    configDir: work,
    interactive: false,
    collections: undefined,
  };
}

/** The last line of a child's stdout, parsed (children print their result as one JSON line). */
export function lastJsonLine(stdout) {
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

/** This process's resident memory now (VmRSS), in bytes. */
export function residentBytes() {
  const line = readFileSync('/proc/self/status', 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return line ? Number(line[1]) * 1024 : process.memoryUsage().rss;
}

/**
 * The memory_budget of a paged serving row: --memory_budget, else a quarter of the index (at
 * least 1 MiB), so that the row pages at every size.
 */
export function pagedBudget(options, indexBytes) {
  return options.memoryBudget ?? Math.max(2 ** 20, Math.floor(indexBytes / 4));
}

/** How a service was served, from its /health: `paged` or `mapped` under its budget, or `memory`. */
export function servedAs(health, asked) {
  const storage = health?.storage;
  if (storage === undefined) return asked;
  if (storage === 'memory') return storage;
  const budget = health.memory_budget_bytes;
  const served =
    budget === undefined ? storage : `${storage}, budget ${(budget / 2 ** 20).toFixed(0)} MiB`;
  // A mapped graph says how this start verified it: hashed, or by an earlier start's stamp.
  const verified = health.verified;
  if (typeof verified !== 'string') return served;
  return `${served}, ${verified.startsWith('stamp') ? 'verified by its stamp' : verified}`;
}

/** Bytes of a file, or of every file under a directory. */
export async function diskBytes(path) {
  const info = await stat(path);
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const entry of await readdir(path)) total += await diskBytes(join(path, entry));
  return total;
}

/**
 * Latency percentiles and queries/s of `search(query)` over `queries`, one at a time, after a
 * warm-up pass over the first `warmup` of them (compiled code, first-use costs); stops after
 * `maxSeconds` (the warm-up after a quarter of it) (an exhaustive search over a million vectors takes a while), reporting how many
 * queries were timed.
 */
export async function timeQueries(search, queries, { warmup = 50, maxSeconds = Infinity } = {}) {
  const warming = performance.now();
  for (const query of queries.slice(0, warmup)) {
    await search(query);
    if ((performance.now() - warming) / 1000 > maxSeconds / 4) break;
  }
  const times = [];
  const started = performance.now();
  for (const query of queries) {
    const t = performance.now();
    await search(query);
    times.push(performance.now() - t);
    if ((performance.now() - started) / 1000 > maxSeconds) break;
  }
  const seconds = (performance.now() - started) / 1000;
  const ms = Float64Array.from(times).sort();
  const at = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))];
  return { p50Ms: at(0.5), p99Ms: at(0.99), qps: ms.length / seconds, queries: ms.length };
}
