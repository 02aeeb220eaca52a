// bench/scale.mjs's PLAID rows: irserve-build-plaid-index over the generated token shards (its
// own process: build time and peak RSS are the build's; --memory_budget and --threads passed
// when the builder has them), then the index served by the PLAIDX engine from memory and, when
// the engine has memory_budget, under one.
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lastJsonLine, measuredBuild, pagedBudget, runMeasured, servedAs } from '../measure.mjs';

const BUILDER = new URL(
  '../../../../packages/plaidx/bin/irserve-build-plaid-index.js',
  import.meta.url,
).pathname;
const CHILD = new URL('./plaid-child.mjs', import.meta.url).pathname;
const QUERY_SECONDS = 60;
const NBITS = '2';

/** Whether the builder's --help lists `flag`. */
function builderHas(flag) {
  const help = spawnSync(process.execPath, [BUILDER, '--help'], { encoding: 'utf8' });
  return `${help.stdout}${help.stderr}`.includes(`--${flag}`);
}

/** Whether the PLAIDX engine's config takes `field`. */
async function engineHas(field) {
  const { plaidxConfigSchema } = await import(
    new URL('../../../../packages/plaidx/dist/index.js', import.meta.url).href
  );
  return Object.hasOwn(plaidxConfigSchema.shape ?? {}, field);
}

/** Centroids: about the square root of the tokens, a power of two from 256 to 4,096 (CPU k-means). */
const partitionsFor = (tokens) =>
  2 ** Math.min(12, Math.max(8, Math.round(Math.log2(Math.sqrt(tokens)))));

export const plaid = {
  name: 'plaid',
  corpus: 'tokens',
  async run({ corpus, work, ks, log, options }) {
    const index = join(work, 'plaid-index');
    const partitions = String(partitionsFor(corpus.tokens));
    const flags = ['--nbits', NBITS, '--partitions', partitions];
    if (options.memoryBudget && builderHas('memory_budget'))
      flags.push('--memory_budget', options.memoryBudget);
    if (options.threads && builderHas('threads')) flags.push('--threads', options.threads);
    log(`plaid: building (${corpus.tokens.toLocaleString('en')} tokens, ${flags.join(' ')})`);
    const args = [BUILDER, corpus.corpus, index, ...flags];
    const build = await measuredBuild(process.execPath, args, index);
    const budget = pagedBudget(options, build.indexBytes);
    const servings = [['memory', {}]];
    if (await engineHas('memory_budget'))
      servings.push([`paged ${budget}`, { memory_budget: budget }]);
    const rows = [];
    for (const [how, config] of servings) {
      log(`plaid: serving (${how})`);
      const spec = join(work, `plaid-${how.split(' ')[0]}.json`);
      const { queries } = corpus;
      const seconds = QUERY_SECONDS;
      await writeFile(spec, JSON.stringify({ index, queries, ks, config, work, seconds }));
      const measured = await runMeasured(process.execPath, [CHILD, spec]);
      const served = lastJsonLine(measured.stdout);
      const variant = `nbits ${NBITS}, ${partitions} centroids (${servedAs(served.health, how)})`;
      rows.push({ variant, build, ...served });
    }
    return rows;
  },
};
