// bench/scale.mjs's learned-sparse rows: irserve-build-sparse-index over the encoded corpus
// (with the impact-ordered lists, so that every strategy can be served), then one serving run
// per strategy.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { diskBytes, lastJsonLine, runMeasured } from '../measure.mjs';

const BUILDER = new URL(
  '../../../../packages/sparse/bin/irserve-build-sparse-index.js',
  import.meta.url,
).pathname;
const CHILD = new URL('./sparse-child.mjs', import.meta.url).pathname;
const STRATEGIES = ['exhaustive', 'bmp', 'max-score', 'block-max', 'impact-ordered'];

export const sparse = {
  name: 'sparse',
  corpus: 'sparse',
  async run({ corpus, work, ks, log, options }) {
    const index = join(work, 'sparse-index');
    log('sparse: building');
    const built = await runMeasured(process.execPath, [
      BUILDER,
      corpus.corpus,
      index,
      '--impact_ordered',
      ...(options.memoryBudget ? ['--memory_budget', options.memoryBudget] : []),
    ]);
    const build = {
      seconds: built.seconds,
      peakRssBytes: built.peakRssBytes,
      indexBytes: await diskBytes(index),
    };
    const listed = options.strategies ?? STRATEGIES;
    const budget = options.memoryBudget;
    // Under the budget the index is served from its files (bmp prunes there when its bounds
    // fit); --paged_only serves every listed strategy so, for indexes larger than the RAM.
    const strategies = options.pagedOnly
      ? listed.map((search) => ({ search, memory_budget: budget }))
      : listed.map((search) => ({ search }));
    if (budget && !options.pagedOnly) strategies.push({ search: 'bmp', memory_budget: budget });
    const rows = [];
    for (const served of strategies) {
      const search = served.memory_budget
        ? `${served.search}, paged under ${served.memory_budget}`
        : served.search;
      log(`sparse: serving (${search})`);
      const spec = join(work, `sparse-${search.replaceAll(/[ ,]+/g, '-')}.json`);
      const config = { ...served, prepare: 'background' };
      await writeFile(spec, JSON.stringify({ index, queries: corpus.queries, ks, config, work }));
      const measured = await runMeasured(process.execPath, [CHILD, spec]);
      rows.push({ variant: search, build, ...lastJsonLine(measured.stdout) });
    }
    return rows;
  },
};
