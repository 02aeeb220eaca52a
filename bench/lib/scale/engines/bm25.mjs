// bench/scale.mjs's BM25 rows: the index built as a server's first start builds it (its own
// process, so build time and peak RSS are the build's), then served from memory and, when the
// engine is given a memory budget below the index, from its paged file.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { diskBytes, lastJsonLine, runMeasured } from '../measure.mjs';

const CHILD = new URL('./bm25-child.mjs', import.meta.url).pathname;

export const bm25 = {
  name: 'bm25',
  corpus: 'text',
  /** Builds once, then one row per way of serving. */
  async run({ corpus, work, ks, log }) {
    const dir = join(work, 'bm25');
    const spec = async (name, config = {}) => {
      const path = join(work, `bm25-${name}.json`);
      await writeFile(
        path,
        JSON.stringify({ corpus: corpus.corpus, queries: corpus.queries, dir, ks, config }),
      );
      return path;
    };
    log('bm25: building');
    const built = await runMeasured(process.execPath, [CHILD, 'build', await spec('build')]);
    const build = {
      seconds: built.seconds,
      peakRssBytes: built.peakRssBytes,
      indexBytes: await diskBytes(join(dir, 'idx')),
    };
    const rows = [];
    for (const [variant, config] of [['memory', {}]]) {
      log(`bm25: serving (${variant})`);
      const served = await runMeasured(process.execPath, [
        CHILD,
        'serve',
        await spec(variant, config),
      ]);
      rows.push({ variant, build, ...lastJsonLine(served.stdout) });
    }
    return rows;
  },
};
