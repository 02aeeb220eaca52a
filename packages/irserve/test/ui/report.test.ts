/**
 * The report of `irserve experiment` on Cranfield, opened from disk in Chromium with the network
 * cut off: its tables and charts render (with sizes), nothing is fetched. With
 * IRSERVE_UPDATE_SCREENSHOT=1 it writes docs/experiment-report.png.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath } from '../helpers/chromium.js';
import { runIrserve } from '../helpers/run-cli.js';

const executablePath = chromiumPath();
const quickstart = resolve(import.meta.dirname, '../../../../examples/quickstart');
const SCREENSHOT = resolve(import.meta.dirname, '../../../../docs/experiment-report.png');

describe.skipIf(!executablePath)('the experiment report in Chromium', { timeout: 120_000 }, () => {
  let dir: string;
  let browser: Browser;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'irserve-report-'));
    // Relative paths: the report's subtitle shows them (and the screenshot goes into docs/).
    const data = relative(process.cwd(), join(quickstart, 'data/cranfield'));
    const { code } = await runIrserve([
      'experiment',
      join(quickstart, 'config.json'),
      ...['--queries', join(data, 'queries.jsonl'), '--qrels', join(data, 'qrels.tsv')],
      ...['--collection', 'cranfield', '--pipeline', 'bm25'],
      ...['--pipeline', 'rrf={bm25, bm25-title}RRF%100'],
      ...['--pipeline', 'rrf-rerank={bm25, bm25-title}RRF%100 >> bm25'],
      ...['--measures', 'nDCG@10,AP,RR,R@1000', '--title', 'Cranfield: BM25 against RRF'],
      ...['--out', join(dir, 'out'), '--log_level', 'silent'],
    ]);
    expect(code).toBe(0);
    browser = await chromium.launch({
      executablePath,
      headless: true,
      args: [
        ...['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
        ...['--disable-background-networking', '--disable-component-update', '--disable-sync'],
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('renders its tables and charts offline', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const requests: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      requests.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    await page.goto(pathToFileURL(join(dir, 'out', 'report.html')).href);
    expect(await page.title()).toBe('Cranfield: BM25 against RRF');
    // Four interval charts, one difference chart (rrf-rerank's top 10 is BM25's: no
    // difference on nDCG@10, said in words), one recall chart.
    expect(await page.locator('svg').count()).toBe(6);
    expect(await page.textContent('body')).toContain(
      'rrf-rerank: the same nDCG@10 as the baseline on every query.',
    );
    for (const svg of await page.locator('svg').all()) {
      const box = (await svg.boundingBox())!;
      expect(box.width).toBeGreaterThan(300);
      expect(box.height).toBeGreaterThan(50);
    }
    // 225 bars per difference chart, three recall lines.
    expect(await page.locator('svg').nth(4).locator('rect').count()).toBe(225);
    expect(await page.locator('polyline').count()).toBe(3);
    const firstRow = await page.locator('table').first().locator('tr').nth(1).textContent();
    expect(firstRow).toMatch(/bm25 \(baseline\)0\.35100\.28790\.51240\.9518/);
    const data = JSON.parse((await page.locator('#experiment-results').textContent()) ?? '{}') as {
      measures: string[];
    };
    expect(data.measures).toEqual(['nDCG@10', 'AP', 'RR', 'R@1000']);
    expect(requests).toEqual([]);
    await page.screenshot({
      fullPage: true,
      ...(process.env.IRSERVE_UPDATE_SCREENSHOT ? { path: SCREENSHOT } : {}),
    });
    await context.close();
  });
});
