/**
 * The playground's "A against B per query" view and experiment reports, in Chromium. A fixture
 * with integer-like document ids (listed by a JavaScript object in ascending numeric order, not
 * by score) whose every number is computed here by hand from the rankings written out below;
 * and the bundled Cranfield set, where the page's live comparison must give the means of
 * `irserve experiment`, whose report it then opens. With IRSERVE_UPDATE_SCREENSHOT=1 it writes
 * docs/playground-compare.png.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createApp } from '../../src/app.js';
import { loadConfigFile } from '../../src/config/load.js';
import type { SearchRequest } from '../../src/engines/contract.js';
import { parseMeasures } from '../../src/eval/measure-name.js';
import { analyseExperiment, type PipelineRun } from '../../src/experiment/analyse.js';
import { writeExperimentOutputs } from '../../src/experiment/outputs.js';
import { testApp } from '../helpers/app.js';
import { chromiumPath } from '../helpers/chromium.js';
import { TEST_ENGINES } from '../helpers/engines.js';
import { quietLogger } from '../helpers/logger.js';
import { CRANFIELD_FLAGS, QUICKSTART_CONFIG, runIrserve } from '../helpers/run-cli.js';

const executablePath = chromiumPath();
const poll = <T>(read: () => T | Promise<T>) =>
  expect.poll(read, { timeout: 30_000, interval: 100 });
const SCREENSHOT = resolve(import.meta.dirname, '../../../../docs/playground-compare.png');
const BROWSER_ARGS = [
  ...['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
  ...['--disable-background-networking', '--disable-component-update', '--disable-sync'],
];

type Table = Record<string, Record<string, number>>;
/** Pipeline A's and B's answers by query text; B has none for "broken" (that query fails). */
const A_TABLE: Table = {
  one: { '643': 4.42, '749': 4.37, '1341': 4.5, '53': 3.86, '358': 4.02, '9': 1, '10': 1 },
  two: { '9': 1, '10': 2, '100': 3 },
  three: { '5': 9, '6': 8, '7': 7 },
  ten: { '1': 1 },
  broken: { '8': 1 },
};
const B_TABLE: Table = {
  one: { '358': 5, '53': 4, '1341': 3, '2': 2.5 },
  two: { '100': 5, '10': 4, '20': 3, '30': 2, '9': 1 },
  three: { '5': 9, '60': 8, '70': 7 },
  ten: { '2': 1 },
};
/** The same answers ranked by hand (score descending; 9 and 10 tie, 10 first as the server cuts). */
const RANKED: Record<'a' | 'b', Record<string, string[]>> = {
  a: {
    one: ['1341', '643', '749', '358', '53', '10', '9'],
    two: ['100', '10', '9'],
    three: ['5', '6', '7'],
    ten: ['1'],
    broken: ['8'],
  },
  b: {
    one: ['358', '53', '1341', '2'],
    two: ['100', '10', '20', '30', '9'],
    three: ['5', '60', '70'],
    ten: ['2'],
  },
};
/** Query 11 is judged but not in the queries file: not run, scored 0 (as irserve experiment). */
const QUERIES = [
  { id: '1', text: 'one' },
  { id: '2', text: 'two' },
  { id: '3', text: 'three' },
  { id: '4', text: 'broken' },
  { id: '10', text: 'ten' },
];
const QRELS: Record<string, Record<string, number>> = {
  '1': { '358': 2, '53': 1 },
  '2': { '9': 1 },
  '3': { '5': 1 },
  '4': { '8': 1 },
  '10': { '77': 1 },
  '11': { '5': 1 },
};
const QRELS_TREC = Object.entries(QRELS)
  .flatMap(([q, docs]) => Object.entries(docs).map(([d, rel]) => `${q} 0 ${d} ${rel}`))
  .join('\n');

/** nDCG@10 from its definition: Σ grade / log2(rank + 1) over the ideal sum. */
function ndcg10(ranking: readonly string[], judged: Record<string, number>): number {
  const dcg = (grades: number[]) =>
    grades.slice(0, 10).reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);
  const ideal = dcg(Object.values(judged).sort((x, y) => y - x));
  return ideal > 0 ? dcg(ranking.map((doc) => judged[doc] ?? 0)) / ideal : 0;
}

/** Per query id, A's and B's nDCG@10 by hand (B failed on 4; 11 was not run). */
function handValues(): Map<string, { a: number; b: number }> {
  const values = new Map<string, { a: number; b: number }>();
  for (const id of Object.keys(QRELS)) {
    const text = QUERIES.find((q) => q.id === id)?.text;
    const of = (side: 'a' | 'b') => {
      const ranking = text === undefined ? undefined : RANKED[side][text];
      return ranking ? ndcg10(ranking, QRELS[id]!) : 0;
    };
    values.set(id, { a: of('a'), b: of('b') });
  }
  return values;
}

const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;

/** Answers from `config.table` by query text; a query it has no answer for fails. */
class TableSearch {
  readonly table: Table;
  constructor({ config }: { config: Record<string, unknown> }) {
    this.table = config.table as Table;
  }
  async searchBatch(requests: SearchRequest[]) {
    return requests.map(({ query }) => {
      const scores = this.table[query];
      if (!scores) throw new Error(`no answer for "${query}"`);
      return { ...scores };
    });
  }
}

async function fixtureDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-compare-'));
  await writeFile(join(dir, 'qrels.txt'), QRELS_TREC + '\n');
  await writeFile(join(dir, 'queries.jsonl'), QUERIES.map((q) => JSON.stringify(q)).join('\n'));
  // An experiment of the same two pipelines, written by irserve experiment's own output code.
  const run = (table: Table): PipelineRun['run'] =>
    new Map(QUERIES.filter((q) => table[q.text]).map((q) => [q.id, table[q.text]!]));
  const qrels = new Map(Object.entries(QRELS).map(([q, d]) => [q, new Map(Object.entries(d))]));
  const result = analyseExperiment(
    [
      { name: 'A', pipeline: 'a', run: run(A_TABLE), failed: new Map() },
      { name: 'B', pipeline: 'b', run: run(B_TABLE), failed: new Map([['4', 'no answer']]) },
    ],
    qrels,
    {
      measures: parseMeasures(['nDCG@10', 'RR']),
      baseline: 0,
      texts: new Map(QUERIES.map((q) => [q.id, q.text])),
    },
  );
  await writeExperimentOutputs(join(dir, 'experiment'), result, [], { title: 'A against B' });
  return dir;
}

/** A browser on the playground of `base`, once it lists `services` (`search: ...`). */
async function openPlayground(base: string, services: string): Promise<[Browser, Page]> {
  const browser = await chromium.launch({ executablePath, headless: true, args: BROWSER_ARGS });
  const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
  await page.goto(`${base}/ui/`);
  await page.locator('#services', { hasText: services }).waitFor();
  return [browser, page];
}

async function setPipelines(page: Page, a: string, b: string) {
  await page.fill('#pane-a input.pipeline', a);
  await page.fill('#pane-b input.pipeline', b);
}

/** The comparison table's rows as [id, text, A, B, B − A, overlap]. */
function tableRows(page: Page) {
  return page
    .locator('#compare .compare-table tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '')),
    );
}

const summaryValue = (page: Page, name: string) =>
  page.locator(`#compare .summary .${name}`).textContent();

describe.skipIf(!executablePath)('A against B in the playground', { timeout: 120_000 }, () => {
  let app: App;
  let browser: Browser;
  let page: Page;
  let dir: string;

  beforeAll(async () => {
    dir = await fixtureDir();
    const service = (name: string, table: Table) => ({
      name,
      engine: 'TableSearch',
      batch_size: 1,
      max_wait_time: 0,
      config: { table },
    });
    app = await testApp(
      { services: [service('a', A_TABLE), service('b', B_TABLE)] },
      { engines: [...TEST_ENGINES, TableSearch], cacheDir: join(dir, 'cache') },
    );
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    [browser, page] = await openPlayground(base, 'search: ab');
    await setPipelines(page, 'a', 'b');
    await page.setInputFiles('#qrels', join(dir, 'qrels.txt'));
    await page.setInputFiles('#queries', join(dir, 'queries.jsonl'));
    await page
      .locator(`#query-id option[value="${QUERIES.at(-1)!.id}"]`)
      .waitFor({ state: 'attached' });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs every judged query and shows the values computed by hand, by difference', async () => {
    await page.click('#compare .run-compare');
    await poll(() => page.textContent('#compare .progress-text')).toBe('10 of 10 runs, 1 failed');
    await poll(() => page.locator('#compare .compare-table tbody tr').count()).toBe(6);
    const hand = handValues();
    const rows = await tableRows(page);
    // Sorted by B − A, largest first; equal differences in the qrels' order.
    expect(rows.map((row) => row[0])).toEqual(['1', '3', '10', '11', '2', '4']);
    for (const [id, text, a, b, diff] of rows) {
      const { a: handA, b: handB } = hand.get(id)!;
      expect(text).toBe(QUERIES.find((q) => q.id === id)?.text ?? '(not in the queries file)');
      expect(Number(a)).toBeCloseTo(handA, 4);
      expect(b).toBe(id === '4' ? 'failed' : handB.toFixed(4));
      expect(Number(diff!.replace('−', '-'))).toBeCloseTo(handB - handA, 4);
    }
    expect(rows[0]!.slice(2, 5)).toEqual(['0.4744', '1.0000', '+0.5256']);
    // The failed query says why; both pipelines scoring 0 (10) and 11 (not run) are ties.
    expect(
      await page.locator('#compare tr[data-query-id="4"] td.failed').getAttribute('title'),
    ).toMatch(/no answer for "broken"/);
    expect(rows.find((row) => row[0] === '10')!.slice(2, 5)).toEqual([
      '0.0000',
      '0.0000',
      '0.0000',
    ]);
  });

  it('counts wins, losses, ties and failures, with the means', async () => {
    const hand = [...handValues().values()];
    expect(await summaryValue(page, 'wins')).toBe('1');
    expect(await summaryValue(page, 'losses')).toBe('2');
    expect(await summaryValue(page, 'ties')).toBe('3');
    expect(await summaryValue(page, 'failed-a')).toBe('0');
    expect(await summaryValue(page, 'failed-b')).toBe('1');
    expect(await summaryValue(page, 'mean-a')).toBe(mean(hand.map((v) => v.a)).toFixed(4));
    expect(await summaryValue(page, 'mean-b')).toBe(mean(hand.map((v) => v.b)).toFixed(4));
  });

  it('measures the overlap of the top k', async () => {
    const overlap = async () =>
      Object.fromEntries((await tableRows(page)).map((row) => [row[0], row[5]]));
    // q1: {1341, 358, 53}; q2: B holds all of A's three; q4: B failed; 11 was not run.
    expect(await overlap()).toEqual({
      '1': '3',
      '2': '3',
      '3': '1',
      '4': '0',
      '10': '0',
      '11': '–',
    });
    await page.fill('#compare .k', '2');
    await page.dispatchEvent('#compare .k', 'change');
    await poll(overlap).toEqual({ '1': '0', '2': '2', '3': '1', '4': '0', '10': '0', '11': '–' });
    expect(await page.textContent('#compare thead')).toContain('overlap@2');
    await page.fill('#compare .k', '10');
    await page.dispatchEvent('#compare .k', 'change');
  });

  it('sorts by any column, both ways', async () => {
    const ids = async () => (await tableRows(page)).map((row) => row[0]);
    await page.click('#compare button.sort[data-key="id"]');
    await poll(ids).toEqual(['1', '2', '3', '4', '10', '11']);
    await page.click('#compare button.sort[data-key="id"]');
    await poll(ids).toEqual(['11', '10', '4', '3', '2', '1']);
    await page.click('#compare button.sort[data-key="diff"]');
    await poll(ids).toEqual(['1', '3', '10', '11', '2', '4']);
    await page.click('#compare button.sort[data-key="diff"]');
    await poll(ids).toEqual(['4', '2', '3', '10', '11', '1']);
    await page.click('#compare button.sort[data-key="diff"]');
  });

  it('shows the rank changes of a query and opens it side by side', async () => {
    await page.click('#compare tr[data-query-id="1"]');
    const table = (n: number) =>
      page
        .locator('#compare .detail .rank-table')
        .nth(n)
        .locator('tbody tr')
        .evaluateAll((rows) =>
          rows.map((row) => [...row.querySelectorAll('td')].map((c) => c.textContent)),
        );
    await poll(() => table(0)).toEqual([
      ['1341', '–', '1', '3', '-2'],
      ['358', '2', '4', '1', '+3'],
      ['53', '1', '5', '2', '+3'],
    ]);
    expect(await table(1)).toEqual([
      ['643', '–', '2', 'not retrieved'],
      ['749', '–', '3', 'not retrieved'],
      ['10', '–', '6', 'not retrieved'],
      ['9', '–', '7', 'not retrieved'],
    ]);
    expect(await table(2)).toEqual([['2', '–', '4', 'not retrieved']]);
    // The click opened query 1 in the panes, ranked by score (not by the ids' numeric order).
    expect(await page.inputValue('#query')).toBe('one');
    await poll(() => page.locator('#pane-a .result .docid').allTextContents()).toEqual(
      RANKED.a.one,
    );
    await poll(() => page.locator('#pane-b .result .docid').allTextContents()).toEqual(
      RANKED.b.one,
    );
  });

  it('switches the measure without running again', async () => {
    await page.selectOption('#compare .measure', 'RR');
    await poll(async () => (await tableRows(page)).find((row) => row[0] === '2')).toEqual([
      '2',
      'two',
      (1 / 3).toFixed(4),
      (1 / 5).toFixed(4),
      `−${(1 / 3 - 1 / 5).toFixed(4)}`,
      '3',
    ]);
    await page.selectOption('#compare .measure', 'nDCG@10');
  });

  it('opens the report.html of an experiment, and its results in the table', async () => {
    await page.setInputFiles('#compare .experiment-file', join(dir, 'experiment/report.html'));
    const frame = page.frameLocator('#compare iframe.report');
    await poll(() => frame.locator('h1').textContent()).toBe('A against B');
    const hand = [...handValues().values()];
    const meanA = mean(hand.map((v) => v.a)).toFixed(4);
    expect(await frame.locator('table').first().locator('tr').nth(1).textContent()).toContain(
      meanA,
    );
    expect(await page.locator('#compare iframe.report').getAttribute('sandbox')).toBe('');
    await poll(() => page.textContent('#compare .source')).toMatch(/Experiment report\.html/);
    const rows = await tableRows(page);
    expect(rows.map((row) => row[0])).toEqual(['1', '3', '10', '11', '2', '4']);
    expect(rows[0]!.slice(2, 6)).toEqual(['0.4744', '1.0000', '+0.5256', '–']);
    expect(await summaryValue(page, 'mean-a')).toBe(meanA);
    expect(await summaryValue(page, 'losses')).toBe('2');
  });

  it('renders the results.json of an experiment as its report', async () => {
    await page.setInputFiles('#compare .experiment-file', join(dir, 'experiment/results.json'));
    const frame = page.frameLocator('#compare iframe.report');
    await poll(() => frame.locator('h1').textContent()).toBe('results.json');
    const meanA = mean([...handValues().values()].map((v) => v.a)).toFixed(4);
    expect(await frame.locator('table').first().textContent()).toContain(meanA);
    expect(await frame.locator('svg').count()).toBeGreaterThan(0);
    await page.selectOption('#compare .pick-a', '1');
    await page.selectOption('#compare .pick-b', '0');
    await poll(() => summaryValue(page, 'wins')).toBe('2');
  });

  it('says what is wrong with a file that is not an experiment', async () => {
    await page.setInputFiles('#compare .experiment-file', join(dir, 'queries.jsonl'));
    await poll(() => page.textContent('#status')).toMatch(/^queries\.jsonl: not valid JSON/);
    await writeFile(join(dir, 'page.html'), '<!doctype html><title>t</title><p>hello</p>');
    await page.setInputFiles('#compare .experiment-file', join(dir, 'page.html'));
    await poll(() => page.textContent('#status')).toMatch(/^page\.html: no experiment results/);
    await writeFile(join(dir, 'old.json'), JSON.stringify({ version: 2 }));
    await page.setInputFiles('#compare .experiment-file', join(dir, 'old.json'));
    await poll(() => page.textContent('#status')).toBe(
      'old.json: not an irserve experiment result (version 2, expected 1)',
    );
    // The results shown before are kept.
    expect(await page.locator('#compare .compare-table tbody tr').count()).toBe(6);
  });
});

describe.skipIf(!executablePath)('A against B on Cranfield', { timeout: 240_000 }, () => {
  let app: App;
  let browser: Browser;
  let page: Page;
  let out: string;
  const data = resolve(dirname(QUICKSTART_CONFIG), 'data/cranfield');
  const RRF = '{bm25, bm25-title}RRF%100';

  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), 'irserve-compare-cranfield-'));
    const { code } = await runIrserve([
      ...['experiment', QUICKSTART_CONFIG, ...CRANFIELD_FLAGS],
      ...['--collection', 'cranfield', '--pipeline', 'bm25', '--pipeline', `rrf=${RRF}`],
      ...['--measures', 'nDCG@10,P@10,AP,RR,R@100', '--out', out],
    ]);
    expect(code).toBe(0);
    const { config, configDir } = await loadConfigFile(QUICKSTART_CONFIG);
    app = await createApp(config, { logger: quietLogger(), configDir, interactive: false });
    await app.start();
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    [browser, page] = await openPlayground(base, 'search: bm25');
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await rm(out, { recursive: true, force: true });
  });

  it('gives the means of irserve experiment for each measure', async () => {
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as {
      pipelines: { means: Record<string, { mean: number }> }[];
    };
    await setPipelines(page, 'bm25', RRF);
    await page.setInputFiles('#qrels', join(data, 'qrels.tsv'));
    await page.setInputFiles('#queries', join(data, 'queries.jsonl'));
    await page.click('#compare .run-compare');
    await poll(() => page.textContent('#compare .progress-text')).toBe('450 of 450 runs');
    for (const measure of ['nDCG@10', 'P@10', 'AP', 'RR', 'R@100']) {
      await page.selectOption('#compare .measure', measure);
      await poll(() => summaryValue(page, 'mean-a')).toBe(
        results.pipelines[0]!.means[measure]!.mean.toFixed(4),
      );
      expect(await summaryValue(page, 'mean-b')).toBe(
        results.pipelines[1]!.means[measure]!.mean.toFixed(4),
      );
    }
    await page.selectOption('#compare .measure', 'nDCG@10');
    expect(await summaryValue(page, 'mean-a')).toBe('0.3510');
  });

  it("shows a query's rank changes, and takes the docs screenshot", async () => {
    const first = page.locator('#compare .compare-table tbody tr').first();
    await first.click();
    await poll(() => page.locator('#compare .detail .rank-table').count()).toBe(3);
    await poll(() => page.locator('#pane-a .result').count()).toBeGreaterThan(0);
    const section = page.locator('#compare');
    await section.scrollIntoViewIfNeeded();
    const shot = await section.screenshot({
      ...(process.env.IRSERVE_UPDATE_SCREENSHOT ? { path: SCREENSHOT } : {}),
    });
    expect(shot.subarray(1, 4).toString()).toBe('PNG');
  });

  it('opens the report of that experiment', async () => {
    await page.setInputFiles('#compare .experiment-file', join(out, 'report.html'));
    const frame = page.frameLocator('#compare iframe.report');
    await poll(() => frame.locator('table').first().locator('tr').nth(1).textContent()).toMatch(
      /bm25 \(baseline\)0\.3510/,
    );
    expect(await summaryValue(page, 'mean-a')).toBe('0.3510');
  });
});
