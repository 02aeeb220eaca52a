// bench/scale.mjs's Xapian rows (Debian's python3-xapian), beside BM25's: the same passages,
// the same analysis (bench/lib/scale/engines/xapian-child.py), the same queries and depths.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { diskBytes, lastJsonLine, runMeasured } from '../measure.mjs';

const CHILD = new URL('./xapian-child.py', import.meta.url).pathname;
const PYTHON = '/usr/bin/python3';

export const xapian = {
  name: 'xapian',
  corpus: 'text',
  async run({ corpus, work, ks, log }) {
    const spec = join(work, 'xapian.json');
    await writeFile(
      spec,
      JSON.stringify({ corpus: corpus.corpus, queries: corpus.queries, dir: work, ks }),
    );
    log('xapian: building');
    const built = await runMeasured(PYTHON, [CHILD, 'build', spec]);
    const build = {
      seconds: built.seconds,
      peakRssBytes: built.peakRssBytes,
      indexBytes: await diskBytes(join(work, 'xapian')),
    };
    log('xapian: serving');
    const served = await runMeasured(PYTHON, [CHILD, 'serve', spec]);
    return [{ variant: 'BM25 (python3-xapian)', build, ...lastJsonLine(served.stdout) }];
  },
};
