// The "A against B per query" section: runs pipelines A and B of the panes over every judged
// query (4 requests at a time, with progress; a failed query is shown, counted and scored 0, as
// `irserve experiment` does, and the run goes on), measures them with irserve's own measure and
// experiment code, and shows the comparison (compare-table.js). It also opens the report or
// results of an `irserve experiment` run (report-view.js) into the same table.
import { runPipeline } from './api.js';
import { drawBody, drawDetail, drawHead, drawSummary, viewRows } from './compare-table.js';
import { analyseExperiment } from './lib/experiment/analyse.js';
import { parseMeasures, splitMeasureList } from './lib/eval/measure-name.js';
import { liveReportHtml, readExperimentFile, showReport } from './report-view.js';

/** Requests in flight at once during a run. */
const CONCURRENCY = 4;
const DEFAULT_MEASURES = 'nDCG@10, P@10, AP, RR, R@100';

const MARKUP = `
<h2>A against B per query</h2>
<div class="compare-bar">
  <label class="grow">Measures <input class="measures" spellcheck="false" value="${DEFAULT_MEASURES}" /></label>
  <button class="run-compare" type="button">Compare on every judged query</button>
  <label>Experiment <input class="experiment-file" type="file" accept=".html,.htm,.json" /></label>
</div>
<div class="compare-bar">
  <label>A <select class="pick-a"></select></label>
  <label>B <select class="pick-b"></select></label>
  <label>Measure <select class="measure"></select></label>
  <label>Top k <input class="k" type="number" min="1" value="10" /></label>
  <button class="show-report" type="button" disabled>Show report</button>
  <span class="progress-line" hidden><progress></progress> <span class="progress-text"></span></span>
</div>
<p class="source muted">Pick a Qrels and a Queries file above and run every judged query, or open the report.html or results.json of irserve experiment.</p>
<p class="summary"></p>
<div class="compare-scroll"><table class="compare-table"><thead></thead><tbody></tbody></table></div>
<div class="detail"></div>
<iframe class="report" title="experiment report" sandbox="" hidden></iframe>`;

/** Runs `work` on every item, `width` at a time, until done or `signal` aborts. */
async function inPool(items, width, work, signal) {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal.aborted) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

/**
 * Builds the section in `root`. `app` gives what the rest of the page holds: `pipelines()` (the
 * expressions of A and B), `collection()`, `queries()`, `qrels()`, `openQuery({ id, text })`
 * and `setStatus(text, bad)`.
 */
export function createCompare(root, app) {
  root.innerHTML = MARKUP;
  const $ = (selector) => root.querySelector(selector);
  const view = {
    result: null,
    a: 0,
    b: 1,
    measure: '',
    k: 10,
    sort: { key: 'diff', descending: true },
  };
  const live = { runs: null, texts: null, controller: null };

  function draw() {
    const table = $('.compare-table');
    if (!view.result) return;
    const rows = viewRows(view);
    drawSummary($('.summary'), rows, view);
    drawHead(table.tHead, view, (key) => {
      const same = view.sort.key === key;
      view.sort = { key, descending: same ? !view.sort.descending : key === 'diff' };
      draw();
    });
    drawBody(table.tBodies[0], rows, view, (row) => {
      view.selected = row.id;
      draw();
      if (row.text !== undefined) app.openQuery({ id: row.id, text: row.text });
    });
    drawDetail(
      $('.detail'),
      rows.find((row) => row.id === view.selected),
      view,
    );
  }

  function fillPickers(names) {
    const options = (select) =>
      select.replaceChildren(...names.map((name, i) => new Option(name, String(i))));
    options($('.pick-a'));
    options($('.pick-b'));
    $('.pick-a').value = String(view.a);
    $('.pick-b').value = String(view.b);
    const measure = $('.measure');
    measure.replaceChildren(...view.result.measures.map((m) => new Option(m, m)));
    if (!view.result.measures.includes(view.measure)) view.measure = view.result.measures[0];
    measure.value = view.measure;
    $('.show-report').disabled = false;
  }

  function setResult(result, { a, b, rankings, qrels, source }) {
    Object.assign(view, { result, a, b, rankings, qrels, selected: undefined });
    const names = result.pipelines.map((p) => `${p.name}: ${p.pipeline}`);
    fillPickers(names);
    // Live runs have two pipelines, A and B; an experiment's can be paired any way.
    $('.pick-a').disabled = $('.pick-b').disabled = rankings !== undefined;
    $('.source').textContent = source;
    draw();
  }

  function measureSpecs() {
    return parseMeasures(splitMeasureList($('.measures').value));
  }

  function analyseLive() {
    const result = analyseExperiment(live.runs, live.qrels, {
      measures: measureSpecs(),
      baseline: 0,
      texts: live.texts,
    });
    const rankings = new Map();
    for (const [id, a] of live.runs[0].run)
      rankings.set(id, { a, b: live.runs[1].run.get(id) ?? {} });
    const skipped = result.queries.length - rankings.size;
    setResult(result, {
      a: 0,
      b: 1,
      rankings,
      qrels: live.qrels,
      source: `Live: pipelines A and B of the panes on ${result.queries.length} judged queries${skipped > 0 ? ` (${skipped} not in the queries file: not run, scored 0, as in irserve experiment)` : ''}.`,
    });
  }

  function progress(done, total, failed) {
    $('.progress-line').hidden = false;
    $('progress').max = total;
    $('progress').value = done;
    $('.progress-text').textContent =
      `${done} of ${total} runs${failed > 0 ? `, ${failed} failed` : ''}`;
  }

  function liveInputs() {
    const qrels = app.qrels();
    const queries = (app.queries() ?? []).filter((query) => qrels?.has(query.id));
    if (!qrels || queries.length === 0)
      throw new Error(
        qrels
          ? 'no query of the queries file has judgements in the qrels (are the ids the same?)'
          : 'pick a Qrels and a Queries file first',
      );
    const pipelines = app.pipelines();
    if (pipelines.some((pipeline) => !pipeline)) throw new Error('write pipelines A and B first');
    measureSpecs(); // a bad measure name fails before any query runs
    return { qrels, queries, pipelines };
  }

  async function runLive() {
    if (live.controller) return live.controller.abort();
    let inputs;
    try {
      inputs = liveInputs();
    } catch (error) {
      return app.setStatus(error.message, true);
    }
    const { qrels, queries, pipelines } = inputs;
    const controller = (live.controller = new AbortController());
    $('.run-compare').textContent = 'Stop';
    const runs = pipelines.map((pipeline, i) => ({
      name: i === 0 ? 'A' : 'B',
      pipeline,
      run: new Map(),
      failed: new Map(),
    }));
    const tasks = queries.flatMap((query) => runs.map((run) => ({ query, run })));
    const collection = app.collection();
    let done = 0;
    let failed = 0;
    progress(0, tasks.length, 0);
    const runOne = async ({ query, run }) => {
      try {
        const envelope = await runPipeline(
          { pipeline: run.pipeline, query: query.text, collection, explain: false },
          controller.signal,
        );
        run.run.set(query.id, envelope.scores ?? {});
      } catch (error) {
        if (controller.signal.aborted) return;
        failed++;
        run.run.set(query.id, {});
        run.failed.set(query.id, `${error.code ?? 'error'}: ${error.message}`);
      }
      progress(++done, tasks.length, failed);
    };
    try {
      await inPool(tasks, CONCURRENCY, runOne, controller.signal);
    } finally {
      live.controller = null;
      $('.run-compare').textContent = 'Compare on every judged query';
    }
    if (controller.signal.aborted)
      return app.setStatus(`stopped after ${done} of ${tasks.length} runs`, true);
    Object.assign(live, { runs, qrels, texts: new Map(queries.map((q) => [q.id, q.text])) });
    analyseLive();
    app.setStatus(
      `${queries.length} judged queries run through A and B${failed > 0 ? `, ${failed} runs failed` : ''}`,
      failed > 0,
    );
  }

  async function openExperiment(input) {
    const file = input.files?.[0];
    if (!file) return;
    try {
      const { result, html } = await readExperimentFile(file);
      const b = result.pipelines.findIndex((_, i) => i !== result.baseline);
      live.runs = null;
      setResult(result, {
        a: result.baseline,
        b: b < 0 ? result.baseline : b,
        rankings: undefined,
        qrels: undefined,
        source: `Experiment ${file.name}: ${result.pipelines.length} pipelines, ${result.queries.length} judged queries (per-query values; the rankings are in its runs/ folder, not in the file).`,
      });
      view.html = html;
      showReport($('.report'), html);
      $('.show-report').textContent = 'Hide report';
      app.setStatus(`opened ${file.name}`);
    } catch (error) {
      app.setStatus(error.message, true);
    }
  }

  function toggleReport() {
    const frame = $('.report');
    if (!frame.hidden) {
      frame.hidden = true;
      $('.show-report').textContent = 'Show report';
      return;
    }
    if (live.runs) view.html = liveReportHtml(view.result, 'A against B');
    showReport(frame, view.html);
    $('.show-report').textContent = 'Hide report';
  }

  $('.run-compare').addEventListener('click', () => void runLive());
  $('.experiment-file').addEventListener('change', (event) => void openExperiment(event.target));
  $('.show-report').addEventListener('click', toggleReport);
  $('.measures').addEventListener('change', () => {
    if (!live.runs) return;
    try {
      analyseLive();
    } catch (error) {
      app.setStatus(error.message, true);
    }
  });
  $('.measure').addEventListener(
    'change',
    (event) => ((view.measure = event.target.value), draw()),
  );
  $('.pick-a').addEventListener(
    'change',
    (event) => ((view.a = Number(event.target.value)), draw()),
  );
  $('.pick-b').addEventListener(
    'change',
    (event) => ((view.b = Number(event.target.value)), draw()),
  );
  $('.k').addEventListener('change', (event) => {
    view.k = Math.max(1, Math.floor(Number(event.target.value)) || 10);
    draw();
  });
}
