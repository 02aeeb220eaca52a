// The second example of docs/plugins.md, "Testing an engine": keep the two the same.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { BaseEngine, type SearchRequest } from 'irserve/plugin';
import { engineContext, tempDir } from 'irserve/testing';

/** The engine under test: documents from a JSONL file its config names, ranked by words in common. */
class KeywordFile extends BaseEngine {
  readonly #docs = new Map<string, string>();

  async start() {
    const path = join(this.context.configDir, String(this.config['path']));
    for (const line of (await readFile(path, 'utf8')).split('\n').filter(Boolean)) {
      const row = JSON.parse(line) as { id: string; text?: unknown };
      if (typeof row.text === 'string') this.#docs.set(row.id, row.text);
      else this.context.logger.warn({ id: row.id }, 'document without text skipped');
    }
    this.context.logger.info({ documents: this.#docs.size }, 'keywords loaded');
  }

  async searchBatch(requests: SearchRequest[]) {
    return requests.map(({ query }) => {
      const scores: Record<string, number> = {};
      for (const [id, text] of this.#docs) {
        const hits = query.split(' ').filter((word) => text.includes(word)).length;
        if (hits > 0) scores[id] = hits;
      }
      return scores;
    });
  }
}

it('skips a document without text and says which', async () => {
  const dir = await tempDir('keywords-');
  await dir.writeJsonl('docs.jsonl', [{ id: 'd1', text: 'jet engines' }, { id: 'd2' }]);
  const context = engineContext({ name: 'keywords', configDir: dir.path });
  const engine = new KeywordFile({ name: 'keywords', config: { path: 'docs.jsonl' }, context });
  await engine.start();
  expect(context.logs.messages('warn')).toEqual(['document without text skipped']);
  expect(context.logs.at('warn')[0]).toMatchObject({ service: 'keywords', id: 'd2' });
  expect(context.logs.find('keywords loaded')).toMatchObject({ level: 'info', documents: 1 });
  expect(await engine.searchBatch([{ query: 'jet', limit: 10 }])).toEqual([{ d1: 1 }]);
  await dir.remove();
});
