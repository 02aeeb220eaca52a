// docs/playground.png, taken from the quickstart's own server and the bundled Cranfield judgements:
// ranked results with the query terms marked and judgement marks, and each stage's list folded.
// `IRSERVE_UPDATE_SCREENSHOT=1 npx vitest run packages/irserve/test/ui/screenshot.test.ts` writes it.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { chromiumPath } from '../helpers/chromium.js';

const executablePath = chromiumPath();
const poll = <T>(read: () => T | Promise<T>) =>
  expect.poll(read, { timeout: 20_000, interval: 100 });
const ROOT = resolve(import.meta.dirname, '../../../..');
const QUICKSTART = join(ROOT, 'examples/quickstart');
const CRANFIELD = join(QUICKSTART, 'data/cranfield');
const SCREENSHOT = join(ROOT, 'docs/playground.png');

describe.skipIf(!executablePath)(
  'the docs screenshot of the playground',
  { timeout: 120_000 },
  () => {
    let app: App;
    let browser: Browser;
    let cache: string;
    let base: string;

    beforeAll(async () => {
      cache = await mkdtemp(join(tmpdir(), 'irserve-shot-'));
      const config = JSON.parse(await readFile(join(QUICKSTART, 'config.json'), 'utf8'));
      app = await testApp(config, { configDir: QUICKSTART, cacheDir: cache });
      base = await app.listen({ port: 0, host: '127.0.0.1' });
      browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
    }, 90_000);

    afterAll(async () => {
      await browser?.close();
      await app?.close();
      await rm(cache, { recursive: true, force: true });
    });

    it('shows Cranfield query 1 ranked, marked and judged, by a link', async () => {
      const page = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
      const view = new URLSearchParams({
        q: 'what similarity laws must be obeyed when constructing aeroelastic models of heated high speed aircraft .',
        a: 'bm25',
        b: '{bm25, bm25-title}RRF',
        collection: 'cranfield',
        limit: '100',
        qid: '1',
      });
      await page.goto(`${base}/ui/#${view.toString()}`);
      await poll(() => page.locator('#pane-b .result').count()).toBe(10);
      await page.setInputFiles('#qrels', join(CRANFIELD, 'qrels.tsv'));
      await page.setInputFiles('#queries', join(CRANFIELD, 'queries.jsonl'));
      await poll(() => page.inputValue('#query-id')).toBe('1');
      await poll(() => page.locator('#pane-a .judgement.relevant').count()).toBeGreaterThan(0);
      await poll(() => page.locator('#pane-a .doc-text mark').count()).toBeGreaterThan(5);
      await poll(() => page.textContent('#pane-b .ndcg')).toMatch(/^nDCG@10 0\.\d{4}$/);
      expect(await page.locator('#pane-a .judgement.unjudged').count()).toBeGreaterThan(0);
      expect(await page.locator('#pane-a .result .rank').allTextContents()).toEqual(
        Array.from({ length: 10 }, (_, i) => String(i + 1)),
      );
      expect(await page.locator('#pane-b .stage-results').count()).toBe(3);
      await page.evaluate('window.scrollTo(0, 0)');
      const shot = await page.screenshot({
        fullPage: false,
        ...(process.env.IRSERVE_UPDATE_SCREENSHOT ? { path: SCREENSHOT } : {}),
      });
      expect(shot.subarray(1, 4).toString()).toBe('PNG');
      await page.close();
    });
  },
);
