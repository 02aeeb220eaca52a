// The playground as a research bench, in Chromium: paging through more than 10 results with
// numeric document ids, query terms marked safely, judged / unjudged marks, the view in the URL,
// the run exported as a TREC run file and as curl, what each stage returned, the services,
// aliases and collections listed and clickable, the collection following the pipeline.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { rankedList } from '../../src/core/ranked-list.js';
import { testApp } from '../helpers/app.js';
import { chromiumPath } from '../helpers/chromium.js';

const executablePath = chromiumPath();
const poll = <T>(read: () => T | Promise<T>) =>
  expect.poll(read, { timeout: 20_000, interval: 100 });
const KEY = 'bench-key';
/** A document whose text is markup: shown as characters, never run. */
const HOSTILE = '777';

/** 30 documents with integer-like ids whose ascending order is not their score order. */
function aeroDocs() {
  const docs = Array.from({ length: 29 }, (_, i) => ({
    id: String((i * 613 + 53) % 2011),
    title: `Report ${i}`,
    text: `${'Wing '.repeat(1 + (i % 4))}${i % 3 === 0 ? 'flutter ' : ''}${'panel '.repeat(i)}`,
  }));
  docs.push({
    id: HOSTILE,
    title: 'Markup <b>in</b> a title',
    text: '<script>window.__pwned = 1</script> Wing flutter <img src=x onerror="window.__pwned = 2">',
  });
  return docs;
}

/** A second collection, searched by its own service. */
const NOTES = [
  { id: '42', title: 'Note on wings', text: 'wing root bending' },
  { id: '5', title: 'Note on flutter', text: 'flutter of a wing panel' },
];

const lines = (rows: unknown[]) => rows.map((row) => JSON.stringify(row)).join('\n');

describe.skipIf(!executablePath)(
  'the playground as a bench, in Chromium',
  { timeout: 90_000 },
  () => {
    let app: App;
    let browser: Browser;
    let page: Page;
    let dir: string;
    let base: string;

    /** The server's own ranking of a pipeline (the test sorts the answer itself). */
    async function serverRanking(pipeline: string, query: string, limit: number) {
      const response = await fetch(`${base}/pipeline`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ pipeline, query, collection: 'aero', limit }),
      });
      const body = (await response.json()) as { scores: Record<string, number> };
      return rankedList(body.scores);
    }

    const shown = (pane: string, part: string, on = page) =>
      on.locator(`#${pane} .result .${part}`).allTextContents();

    async function logIn(on: Page) {
      await on.fill('#api-key', KEY);
      await on.dispatchEvent('#api-key', 'change');
    }

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'irserve-bench-ui-'));
      await writeFile(join(dir, 'aero.jsonl'), lines(aeroDocs()));
      await writeFile(join(dir, 'notes.jsonl'), lines(NOTES));
      await writeFile(join(dir, 'qrels.txt'), '');
      app = await testApp(
        {
          collections: [
            {
              name: 'aero',
              views: {
                text: {
                  kind: 'text',
                  source: { source: 'text_jsonl', doc_path: 'aero.jsonl', title_field: 'title' },
                },
              },
            },
            {
              name: 'notes',
              views: {
                text: {
                  kind: 'text',
                  source: { source: 'text_jsonl', doc_path: 'notes.jsonl', title_field: 'title' },
                },
              },
            },
          ],
          pipeline_aliases: { hybrid: '{bm25, bm25-title}RRF' },
          services: [
            { name: 'bm25-notes', engine: 'BM25', config: { collection: 'notes' } },
            { name: 'bm25', engine: 'BM25', config: { collection: 'aero' } },
            {
              name: 'bm25-title',
              engine: 'BM25',
              config: { collection: 'aero', fields: ['title'] },
            },
            { name: 'overlap', engine: 'OverlapScore' },
          ],
        },
        { apiKey: KEY, configDir: dir, cacheDir: join(dir, 'cache') },
      );
      base = await app.listen({ port: 0, host: '127.0.0.1' });
      browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        permissions: ['clipboard-read', 'clipboard-write'],
      });
      page = await context.newPage();
      await page.goto(`${base}/ui`);
      await logIn(page);
      await page.waitForFunction(
        "/services and aliases/.test(document.querySelector('#status').textContent)",
      );
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await app?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('pages through more than 10 results, ranked by score, with ranks counted across pages', async () => {
      const expected = await serverRanking('bm25', 'wing flutter', 20);
      expect(expected.map((doc) => doc.id)).not.toEqual(
        expected.map((doc) => doc.id).sort((a, b) => Number(a) - Number(b)),
      );
      await page.fill('#pane-a input.pipeline', 'bm25');
      await page.fill('#query', 'wing flutter');
      await page.selectOption('#limit', '20');
      await page.click('#run');
      await poll(() => shown('pane-a', 'docid')).toEqual(expected.slice(0, 10).map((d) => d.id));
      expect(await shown('pane-a', 'rank')).toEqual(expected.slice(0, 10).map((d) => `${d.rank}`));
      expect(await page.textContent('#pane-a .pager-label')).toBe('ranks 1–10 of 20 · page 1 of 2');
      await page.click('#pane-a .pager button:has-text("next")');
      await poll(() => shown('pane-a', 'docid')).toEqual(expected.slice(10).map((d) => d.id));
      expect(await shown('pane-a', 'rank')).toEqual(expected.slice(10).map((d) => `${d.rank}`));
      expect(await shown('pane-a', 'score')).toEqual(
        expected.slice(10).map((d) => d.score.toFixed(4)),
      );
      // Both panes turn the page together.
      expect(await page.textContent('#pane-b .pager-label')).toMatch(/^ranks 11–20 of /);
      await page.selectOption('#limit', '50');
      await poll(() => page.textContent('#pane-a .pager-label')).toBe(
        'ranks 1–10 of 30 · page 1 of 3',
      );
    });

    it('marks the query terms in titles and texts, and never runs markup from a document', async () => {
      // "in" and "a" (stop words, in the hostile document's title) are not marked.
      await page.fill('#query', 'WING report in a');
      await page.click('#run');
      await poll(() => page.locator('#pane-a .doc-text mark').count()).toBeGreaterThan(0);
      const marked = await page.locator('#pane-a .doc mark').allTextContents();
      expect(new Set(marked.map((text) => text.toLowerCase()))).toEqual(
        new Set(['wing', 'report']),
      );
      // "panel" is not a query term: a longer word holding one is not marked either.
      expect(marked).not.toContain('panel');
      await page.fill('#query', 'flutter script img');
      await page.click('#run');
      const hostile = page.locator(`#pane-a .result:has(.docid:text-is("${HOSTILE}"))`);
      await poll(() => hostile.locator('.doc-text').textContent()).toBe(aeroDocs().at(-1)!.text);
      expect(await hostile.locator('.doc-text mark').allTextContents()).toEqual([
        'script',
        'script',
        'flutter',
        'img',
      ]);
      expect(await hostile.locator('.doc-title').textContent()).toBe('Markup <b>in</b> a title');
      expect(await hostile.locator('script, img, b').count()).toBe(0);
      expect(await page.evaluate('window.__pwned')).toBeUndefined();
    });

    it('marks judged, relevant and unjudged documents once a query id is chosen, and re-runs', async () => {
      const expected = await serverRanking('bm25', 'wing flutter', 100);
      const [best, second] = expected;
      await writeFile(join(dir, 'qrels.txt'), `7 0 ${best!.id} 2\n7 0 ${second!.id} 0\n7 0 1 1\n`);
      await writeFile(
        join(dir, 'queries.jsonl'),
        lines([
          { id: '7', text: 'wing flutter' },
          { id: '12', text: 'panel' },
        ]),
      );
      await page.fill('#query', 'something else');
      await page.setInputFiles('#qrels', join(dir, 'qrels.txt'));
      await page.setInputFiles('#queries', join(dir, 'queries.jsonl'));
      await page.selectOption('#query-id', '7');
      await poll(() => page.inputValue('#query')).toBe('wing flutter');
      await poll(() => shown('pane-a', 'docid')).toEqual(expected.slice(0, 10).map((d) => d.id));
      await poll(() => shown('pane-a', 'judgement')).toEqual([
        'rel 2',
        'rel 0',
        ...Array(8).fill('unjudged'),
      ]);
      expect(await page.locator('#pane-a .result').first().locator('.relevant').count()).toBe(1);
      expect(await page.locator('#pane-a .result').nth(1).locator('.relevant').count()).toBe(0);
      const colors = await page.evaluate<string[]>(
        `[...document.querySelectorAll('#pane-a .judgement')].slice(0, 3).map((mark) => getComputedStyle(mark).borderStyle)`,
      );
      expect(colors[2]).toBe('dashed');
      expect(colors[1]).not.toBe('dashed');
      await poll(() => page.textContent('#pane-a .ndcg')).toMatch(/^nDCG@10 \d\.\d{4}$/);
    });

    it('keeps the view in the URL: a copied URL opens the same view and runs it', async () => {
      await page.selectOption('#limit', '20');
      await poll(() => page.textContent('#pane-a .pager-label')).toMatch(/of 20 /);
      await page.click('#pane-a .pager button:has-text("next")');
      await poll(() => page.textContent('#pane-a .pager-label')).toMatch(/^ranks 11–20/);
      const url = page.url();
      expect(new URL(url).hash).toMatch(/q=wing\+flutter/);
      expect(new URL(url).hash).toMatch(/&page=2&qid=7$/);
      const shownThere = await shown('pane-a', 'docid');
      const other = await browser.newPage();
      try {
        await other.goto(url);
        await logIn(other);
        await poll(() => shown('pane-a', 'docid', other)).toEqual(shownThere);
        expect(await shown('pane-a', 'rank', other)).toEqual(
          Array.from({ length: 10 }, (_, i) => String(i + 11)),
        );
        expect(await other.inputValue('#query')).toBe('wing flutter');
        expect(await other.inputValue('#pane-a input.pipeline')).toBe('bm25');
        expect(await other.inputValue('#limit')).toBe('20');
        expect(await other.inputValue('#collection')).toBe('aero');
        // The query id waits for the qrels that hold it.
        await other.setInputFiles('#qrels', join(dir, 'qrels.txt'));
        await poll(() => other.inputValue('#query-id')).toBe('7');
        // A URL written by hand, with a limit the list does not offer.
        const expected = await serverRanking('bm25', 'panel', 30);
        await other.goto(`${base}/ui/#q=panel&a=bm25&b=&collection=aero&limit=30&page=3`);
        await poll(() => shown('pane-a', 'docid', other)).toEqual(
          expected.slice(20, 30).map((d) => d.id),
        );
        expect(await other.inputValue('#limit')).toBe('30');
        expect(await other.locator('#pane-b .result').count()).toBe(0);
      } finally {
        await other.close();
      }
    });

    it('exports the run as a TREC run file, ranked by score', async () => {
      const expected = await serverRanking('bm25', 'wing flutter', 20);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.click('#pane-a .export-run'),
      ]);
      expect(download.suggestedFilename()).toBe('irserve-pane-a-7.trec');
      const run = await readFile(await download.path(), 'utf8');
      expect(run.trimEnd().split('\n')).toEqual(
        expected.map((doc) => `7 Q0 ${doc.id} ${doc.rank} ${doc.score} bm25`),
      );
    });

    it('copies the equivalent curl command, which gives the same ranking from a shell', async () => {
      const query = `pilot's "wing" flutter $HOME \`id\` \\ panel`;
      await page.fill('#query', query);
      await page.fill('#pane-b input.pipeline', '{bm25, bm25-title}RRF');
      await page.click('#run');
      await poll(() => page.locator('#pane-b .result').count()).toBe(10);
      await page.click('#pane-b .copy-curl');
      await poll(() => page.textContent('#pane-b .curl .copied')).toBe('copied to the clipboard');
      const command = (await page.textContent('#pane-b .curl code'))!;
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(command);
      expect(command).toContain('$IRSERVE_API_KEY');
      expect(command).not.toContain(KEY);
      const { stdout } = await promisify(execFile)('/bin/sh', ['-c', command], {
        env: { ...process.env, IRSERVE_API_KEY: KEY },
      });
      const answer = JSON.parse(stdout) as { query: string; scores: Record<string, number> };
      expect(answer.query).toBe(query);
      const ranked = rankedList(answer.scores);
      expect(ranked).toHaveLength(20);
      expect(await shown('pane-b', 'docid')).toEqual(ranked.slice(0, 10).map((d) => d.id));
      expect(await shown('pane-b', 'score')).toEqual(
        ranked.slice(0, 10).map((d) => d.score.toFixed(4)),
      );
    });

    it('shows what each stage returned, ranked by score, and opens a stage from its bar', async () => {
      const pipeline = '{bm25, bm25-title}RRF >> overlap';
      await page.fill('#query', 'wing flutter');
      await page.fill('#pane-b input.pipeline', pipeline);
      await page.click('#run');
      await poll(() => page.locator('#pane-b .stage-results').count()).toBe(4);
      const summaries = await page.locator('#pane-b .stage-results summary').allTextContents();
      expect(summaries.map((text) => text.replace(/ returned \d+$/, '')).sort()).toEqual(
        ['RRF (merge)', 'bm25 (search)', 'bm25-title (search)', 'overlap (rerank)'].sort(),
      );
      const stageRows = async (name: string) => {
        const fold = page.locator('#pane-b .stage-results', { hasText: `${name} (` }).first();
        return fold
          .locator('tbody tr')
          .evaluateAll((rows) => rows.map((row) => [...row.children].map((td) => td.textContent)));
      };
      // A click on the bm25 bar unfolds bm25's list.
      await page
        .locator('#pane-b svg.trace g.stage', { hasText: 'bm25 (search)' })
        .locator('rect')
        .click();
      await poll(() => page.locator('#pane-b .stage-results[open]').count()).toBe(1);
      const bm25 = await stageRows('bm25');
      const alone = await serverRanking('bm25', 'wing flutter', 10);
      expect(bm25.slice(0, 10)).toEqual(
        alone.map((doc) => [String(doc.rank), doc.id, doc.score.toFixed(4)]),
      );
      for (const name of ['RRF', 'overlap']) {
        await page.locator('#pane-b .stage-results summary', { hasText: `${name} (` }).click();
        const rows = await stageRows(name);
        expect(rows.map((row) => row[0])).toEqual(rows.map((_, i) => String(i + 1)));
        const scores = rows.map((row) => Number(row[2]));
        expect(scores).toEqual([...scores].sort((a, b) => b - a));
      }
      // The last stage's list is the answer.
      expect((await stageRows('overlap')).slice(0, 10).map((row) => row[1])).toEqual(
        await shown('pane-b', 'docid'),
      );
    });

    it('lists services, aliases and collections; a click puts a name in the pipeline or picks the collection', async () => {
      await poll(() => page.textContent('#services .role-search')).toBe(
        'search: bm25-notes → notesbm25 → aerobm25-title → aero',
      );
      expect(await page.textContent('#services .aliases')).toBe('aliases: hybrid');
      expect(await page.getAttribute('#services .aliases code', 'title')).toBe(
        'hybrid = {bm25, bm25-title}RRF',
      );
      expect(await page.textContent('#services .collections')).toBe('collections: aeronotes');
      await page.click('#services .collections code:text-is("notes")');
      expect(await page.inputValue('#collection')).toBe('notes');
      await page.fill('#pane-a input.pipeline', '');
      await page.focus('#pane-a input.pipeline');
      await page.click('#services .aliases code:text-is("hybrid")');
      expect(await page.inputValue('#pane-a input.pipeline')).toBe('hybrid');
      await page.keyboard.type(' >> ');
      await page.click('#services .role-score code:text-is("overlap")');
      expect(await page.inputValue('#pane-a input.pipeline')).toBe('hybrid >> overlap');
      // hybrid's services search aero: the collection follows.
      await poll(() => page.inputValue('#collection')).toBe('aero');
    });

    it('shows the collection the pipeline searches', async () => {
      await page.fill('#pane-a input.pipeline', 'bm25-notes');
      await poll(() => page.inputValue('#collection')).toBe('notes');
      await page.fill('#pane-b input.pipeline', '');
      await page.click('#run');
      await poll(() => page.locator('#pane-a .doc-title').allTextContents()).toEqual([
        'Note on flutter',
        'Note on wings',
      ]);
      await page.fill('#pane-a input.pipeline', '{bm25, bm25-title}RRF');
      await poll(() => page.inputValue('#collection')).toBe('aero');
    });
  },
);
