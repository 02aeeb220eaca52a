// Start-up times of the `irserve` command, best of N, beside `node -e 0` in the same run.
//
//   npm run build && node bench/startup.mjs [--runs 10] [--config path/to/config.json]
//     [--baseline path/to/other/irserve/bin/irserve.js]
//
// Cases: `node -e 0` (the floor: starting Node itself), `irserve --version`, `irserve --help`,
// and a server with an empty config (`{}`) from spawn until it prints its "listening" line, which
// it does after the port is bound. `--config` adds a row for a config of your own. `--baseline`
// adds the same rows for another build (a checkout of an older commit), run by turns with this
// one, so that before and after are compared under the same load.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuMs } from './lib/proc-cpu.mjs';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    config: { type: 'string' },
    baseline: { type: 'string' },
  },
});
const runs = Number(values.runs);
const bin = fileURLToPath(new URL('../packages/irserve/bin/irserve.js', import.meta.url));

/** Wall and CPU ms from spawn until the child exits (or, with `until`, prints a matching line). */
function timeOnce(args, until) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const childrenBefore = cpuMs('self', true);
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk) => {
      output += chunk;
      if (until && until.test(output)) {
        const ms = performance.now() - started;
        const cpu = cpuMs(child.pid);
        child.kill('SIGTERM');
        child.once('exit', () => resolve({ ms, cpu }));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => {
      if (until) {
        if (!until.test(output)) reject(new Error(`exited ${code} before listening:\n${output}`));
        return;
      }
      const ms = performance.now() - started;
      const after = cpuMs('self', true);
      if (code !== 0) reject(new Error(`exit ${code}: ${output}`));
      else resolve({ ms, cpu: after === undefined ? undefined : after - childrenBefore });
    });
  });
}

function summary(runsDone) {
  const wall = runsDone.map((run) => run.ms).sort((a, b) => a - b);
  const cpu = runsDone
    .map((run) => run.cpu)
    .filter((ms) => ms !== undefined)
    .sort((a, b) => a - b);
  return { best: wall[0], median: wall[Math.floor(wall.length / 2)], cpu: cpu[0] };
}

/** Runs each case `runs` times, the cases by turns (one run of each, then again). */
async function bestOfEach(cases) {
  const done = cases.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [index, [, args, until]] of cases.entries())
      done[index].push(await timeOnce(args, until));
  }
  return done.map(summary);
}

const dir = mkdtempSync(join(tmpdir(), 'irserve-startup-'));
const emptyConfig = join(dir, 'empty.json');
writeFileSync(emptyConfig, '{}\n');
const listening = /listening on/;
const serve = (launcher, config) => [launcher, config, '--port', '0', '--log-level', 'info'];
const irserveCases = (launcher, suffix) => [
  [`irserve --version${suffix}`, [launcher, '--version']],
  [`irserve --help${suffix}`, [launcher, '--help']],
  [`irserve {} (until listening)${suffix}`, serve(launcher, emptyConfig), listening],
];
const cases = [['node -e 0', ['-e', '0']], ...irserveCases(bin, '')];
if (values.config) cases.push([`irserve ${values.config}`, serve(bin, values.config), listening]);
if (values.baseline) cases.push(...irserveCases(values.baseline, ' [baseline]'));

try {
  const rows = [];
  let floor;
  for (const [index, { best: ms, median, cpu }] of (await bestOfEach(cases)).entries()) {
    const name = cases[index][0];
    floor ??= ms;
    const over = ms - floor;
    rows.push(
      `| ${name} | ${ms.toFixed(0)} | ${median.toFixed(0)} | ${name === 'node -e 0' ? '' : `${over < 0 ? '' : '+'}${over.toFixed(0)}`} | ${cpu === undefined ? '-' : cpu.toFixed(0)} |`,
    );
  }
  console.log(`Node ${process.version}, best and median of ${runs} runs (ms)\n`);
  console.log('| case | best ms | median ms | over node -e 0 | best CPU ms |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const row of rows) console.log(row);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
