import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { NUMERIC_RANKING } from '../helpers/engines.js';
import { chromiumPath } from '../helpers/chromium.js';

const executablePath = chromiumPath();
// Generous: the page waits on a server and a browser sharing a busy CI machine.
const poll = <T>(read: () => T | Promise<T>) =>
  expect.poll(read, { timeout: 20_000, interval: 100 });
const KEY = 'ui-key';
// A 1x1 red PNG: the bytes view of the "pics" collection.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);
const DOCS = [
  { id: 'd1', title: 'Neural retrieval', text: 'dense neural retrieval with transformers' },
  { id: 'd2', title: 'Sparse retrieval', text: 'bm25 and learned sparse retrieval' },
  { id: 'd3', title: 'Rivers', text: 'sediment in rivers and floods' },
];

async function corpusDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-ui-'));
  await writeFile(join(dir, 'docs.jsonl'), DOCS.map((doc) => JSON.stringify(doc)).join('\n'));
  await mkdir(join(dir, 'pics'));
  for (const doc of DOCS) await writeFile(join(dir, 'pics', `${doc.id}.png`), PNG);
  await writeFile(join(dir, 'qrels.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t1\n');
  await writeFile(
    join(dir, 'queries.jsonl'),
    JSON.stringify({ id: 'q1', text: 'neural retrieval' }),
  );
  return dir;
}

/** Where the error marker's caret is drawn, and where its column of the input starts (probes.js). */
function markerGeometry(page: Page, pane: string) {
  return page.evaluate<{ column: number; caretCenter: number; columnX: number; charWidth: number }>(
    `irserveProbes.markerGeometry(${JSON.stringify(pane)})`,
  );
}

/** The x of the reddest column of pixels in a PNG screenshot, found by the page's canvas. */
function reddestColumn(page: Page, png: Buffer) {
  return page.evaluate<number>(
    `irserveProbes.reddestColumn(${JSON.stringify(png.toString('base64'))})`,
  );
}

describe.skipIf(!executablePath)('the playground in Chromium', { timeout: 90_000 }, () => {
  let app: App;
  let browser: Browser;
  let page: Page;
  let dir: string;
  let base: string;

  beforeAll(async () => {
    dir = await corpusDir();
    app = await testApp(
      {
        collections: [
          {
            name: 'docs',
            views: {
              text: {
                kind: 'text',
                source: { source: 'text_jsonl', doc_path: 'docs.jsonl', title_field: 'title' },
              },
            },
          },
          {
            name: 'pics',
            views: {
              image: {
                source: {
                  source: 'local_path',
                  path_template: '{id}.png',
                  base_dir: 'pics',
                  mime: 'image/png',
                },
              },
            },
          },
        ],
        services: [
          { name: 'bm25', engine: 'BM25', config: { collection: 'docs' } },
          { name: 'bm25-title', engine: 'BM25', config: { collection: 'docs', fields: ['title'] } },
          { name: 'numeric', engine: 'NumericSearch' },
        ],
      },
      { apiKey: KEY, configDir: dir, cacheDir: join(dir, 'cache') },
    );
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.addInitScript({ path: join(import.meta.dirname, 'probes.js') });
    await page.goto(`${base}/ui`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('asks for the key, then lists the services', async () => {
    await poll(() => page.textContent('#status')).toMatch(/enter the API key/);
    await page.fill('#api-key', KEY);
    await page.dispatchEvent('#api-key', 'change');
    await poll(() => page.textContent('#services')).toMatch(
      /search: bm25 → docsbm25-title → docsnumeric/,
    );
    expect(await page.inputValue('#pane-a input.pipeline')).toBe('bm25');
  });

  it('completes service names', async () => {
    const input = page.locator('#pane-b input.pipeline');
    await input.fill('');
    await input.pressSequentially('{bm');
    await expect
      .poll(() => page.locator('#pane-b .completions li').allTextContents())
      .toEqual(['bm25', 'bm25-title']);
    await input.press('ArrowDown');
    await input.press('Tab');
    await input.pressSequentially(', bm');
    await input.press('Tab');
    await input.pressSequentially('}RRF');
    expect(await input.inputValue()).toBe('{bm25-title, bm25}RRF');
  });

  it('runs two pipelines side by side with documents and traces', async () => {
    await page.fill('#query', 'neural retrieval');
    await page.click('#run');
    await expect
      .poll(() => page.locator('#pane-a .result .docid').first().textContent())
      .toBe('d1');
    await expect
      .poll(() => page.locator('#pane-b .result .docid').first().textContent())
      .toBe('d1');
    await expect
      .poll(() => page.locator('#pane-a .result .doc-title').first().textContent())
      .toBe('Neural retrieval');
    expect(await page.locator('#pane-b svg.trace g.stage').count()).toBe(3);
    expect(await page.locator('#pane-b svg.trace .stage-merge rect').count()).toBe(1);
    expect(await page.textContent('#pane-b .trace-header')).toMatch(/request [0-9a-f-]{36}/);
  });

  // The ordering trap: the answer's scores object enumerates integer-like ids in ascending
  // numeric order (9, 10, 53, ..., 1341), so a page listing Object.entries shows 9 first.
  it('lists numeric document ids by score', async () => {
    await page.selectOption('#collection', '');
    await page.fill('#pane-a input.pipeline', 'numeric');
    await page.click('#run');
    await poll(() => page.locator('#pane-a .result .docid').allTextContents()).toEqual(
      NUMERIC_RANKING,
    );
    expect(await page.locator('#pane-a .result .rank').allTextContents()).toEqual(
      NUMERIC_RANKING.map((_, i) => String(i + 1)),
    );
    await page.selectOption('#collection', 'docs');
    await page.fill('#pane-a input.pipeline', 'bm25');
  });

  it('marks a syntax error under its column, in the DOM and in the pixels', async () => {
    const input = page.locator('#pane-a input.pipeline');
    await input.fill('{bm25, bm25-title');
    await poll(() => page.locator('#pane-a .marker').getAttribute('data-column')).toBe('18');
    expect(await page.textContent('#pane-a .marker .message')).toMatch(/column 18: expected/);
    const geometry = await markerGeometry(page, 'pane-a');
    expect(Math.abs(geometry.caretCenter - geometry.columnX)).toBeLessThan(geometry.charWidth);
    // The pixels of the marker's row (the red input border is above it, the message is dark red).
    const editor = (await page.locator('#pane-a .editor').boundingBox())!;
    const row = (await page.locator('#pane-a .marker').boundingBox())!;
    const shot = await page.screenshot({
      clip: { x: editor.x, y: row.y, width: editor.width, height: row.height },
    });
    const x = await reddestColumn(page, shot);
    expect(Math.abs(editor.x + x - geometry.columnX)).toBeLessThan(geometry.charWidth);
    await input.fill('bm25 >> ');
    await poll(() => page.locator('#pane-a .marker').getAttribute('data-column')).toBe('9');
    await input.fill('bm25');
    await poll(() => page.locator('#pane-a .marker').isHidden()).toBe(true);
  });

  it('shows an error from the server without crashing', async () => {
    await page.fill('#pane-a input.pipeline', 'nosuch');
    await page.click('#run');
    await poll(() => page.textContent('#pane-a .error')).toMatch(/ERR_/);
    await page.fill('#pane-a input.pipeline', 'bm25');
  });

  it('shows nDCG@10 per query for each pipeline once qrels are loaded', async () => {
    await page.setInputFiles('#qrels', join(dir, 'qrels.tsv'));
    await page.setInputFiles('#queries', join(dir, 'queries.jsonl'));
    await poll(() => page.isVisible('#judged')).toBe(true);
    await page.click('#run-all');
    await poll(() => page.locator('#judged tbody tr').count()).toBe(1);
    const cells = await page.locator('#judged tbody td').allTextContents();
    expect(cells[0]).toBe('q1');
    expect(Number(cells[2])).toBeGreaterThan(0.9);
    await page.selectOption('#query-id', 'q1');
    await page.click('#run');
    await poll(() => page.textContent('#pane-a .ndcg')).toMatch(/nDCG@10 \d\.\d{4}/);
    expect(await page.locator('#pane-a .judged.relevant').count()).toBeGreaterThan(0);
  });

  it('shows bytes views as images, then text again', async () => {
    await page.selectOption('#collection', 'pics');
    await page.click('#run');
    await poll(() => page.locator('#pane-a .doc img').count()).toBeGreaterThan(0);
    expect(await page.locator('#pane-a .doc img').first().getAttribute('src')).toMatch(
      /^data:image\/png;base64,/,
    );
    await page.selectOption('#collection', 'docs');
    await page.fill('#pane-b input.pipeline', '{bm25, bm25-title');
    await page.click('#run');
    await poll(() => page.locator('#pane-a .result .doc-text').count()).toBeGreaterThan(0);
    expect(await page.textContent('#pane-b .error')).toMatch(/ERR_PIPELINE_SYNTAX|syntax/i);
  });
});
