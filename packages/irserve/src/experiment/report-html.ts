/**
 * The experiment report: one self-contained HTML page (inline CSS and SVG, no script, no
 * external file) that opens offline and prints. It holds the means with their confidence
 * intervals, each pipeline against the baseline, per-query differences, recall against depth,
 * the per-query values, failures and settings, and the results JSON itself (in a
 * `<script type="application/json" id="experiment-results">` element, for tools and the
 * playground). Pure: the playground renders it too.
 */
import type { ExperimentResult } from './analyse.js';
import { differenceBars, escapeXml, intervalChart, logLines, PALETTE } from './svg-charts.js';
import { TIE_EPSILON } from './stats.js';
import { ALPHA, byPipeline, formatP } from './table.js';

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#1a1a1a;padding:0 16px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 10px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
td:first-child,th:first-child{text-align:left}code{font-size:12px;background:#f4f4f4;padding:1px 4px}
.sig{font-weight:600}.win{color:#1b9e77}.loss{color:#d95f02}.muted{color:#666}.chart{margin:8px 0 20px}
details{margin:8px 0}summary{cursor:pointer}.charts{display:flex;flex-wrap:wrap;gap:8px 24px}`;

export interface ReportOptions {
  title?: string;
  /** A line under the title: when, where, on what. */
  subtitle?: string;
}

/**
 * The report page of `result`.
 *
 * @example
 * await writeFile('report.html', experimentReportHtml(result, { title: 'Cranfield' }));
 */
export function experimentReportHtml(
  result: ExperimentResult,
  options: ReportOptions = {},
): string {
  const title = options.title ?? 'irserve experiment';
  const sections = [
    `<h1>${escapeXml(title)}</h1>`,
    options.subtitle ? `<p class="muted">${escapeXml(options.subtitle)}</p>` : '',
    summary(result),
    `<h2>Means with 95% confidence intervals</h2>${meansSection(result)}`,
    result.comparisons.length > 0
      ? `<h2>Against the baseline</h2>${comparisonSection(result)}`
      : '',
    result.comparisons.length > 0
      ? `<h2>Per-query difference against the baseline</h2>${differenceSection(result)}`
      : '',
    `<h2>Recall against depth</h2>${recallSection(result)}`,
    `<h2>Per query</h2>${perQuerySection(result)}`,
    failureSection(result),
    `<h2>Pipelines and settings</h2>${settingsSection(result)}`,
  ];
  const data = JSON.stringify(result).replace(/</g, '\\u003c');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeXml(title)}</title><style>${STYLE}</style></head><body>${sections.join('\n')}<script type="application/json" id="experiment-results">${data}</script></body></html>`;
}

function colorOf(index: number): string {
  return PALETTE[index % PALETTE.length]!;
}

function nameCell(result: ExperimentResult, index: number): string {
  const base = index === result.baseline ? ' <span class="muted">(baseline)</span>' : '';
  return `<td><span style="color:${colorOf(index)}">■</span> ${escapeXml(result.pipelines[index]!.name)}${base}</td>`;
}

function summary(result: ExperimentResult): string {
  const failed = result.pipelines.reduce((n, p) => n + p.failed.length, 0);
  return `<p>${result.queries.length} judged queries, ${result.pipelines.length} pipelines, baseline <b>${escapeXml(result.pipelines[result.baseline]!.name)}</b>${failed > 0 ? `, <b class="loss">${failed} failed queries</b> (scored 0)` : ''}.</p>`;
}

function meansSection(result: ExperimentResult): string {
  const header = `<tr><th>pipeline</th>${result.measures.map((m) => `<th>${escapeXml(m)}</th>`).join('')}</tr>`;
  const rows = result.pipelines.map((pipeline, index) => {
    const cells = result.measures.map((measure) => {
      const { mean, low, high } = pipeline.means[measure]!;
      const c = result.comparisons.find((x) => x.pipeline === index && x.measure === measure);
      const mark = c && c.pTHolm < ALPHA ? '<span class="sig">*</span>' : '';
      return `<td title="95% CI ${low.toFixed(4)}–${high.toFixed(4)}">${mean.toFixed(4)}${mark}</td>`;
    });
    return `<tr>${nameCell(result, index)}${cells.join('')}</tr>`;
  });
  const charts = result.measures
    .map((measure) =>
      intervalChart(
        result.pipelines.map((p, i) => ({
          label: p.name,
          color: colorOf(i),
          ...p.means[measure]!,
        })),
        { title: `${measure}: mean and 95% confidence interval` },
      ),
    )
    .map(
      (chart, i) => `<div class="chart"><b>${escapeXml(result.measures[i]!)}</b><br>${chart}</div>`,
    );
  return `<table>${header}${rows.join('')}</table><p class="muted">* p &lt; ${ALPHA}: paired t-test against the baseline, Holm-Bonferroni over the pipelines for each measure.</p>${charts.join('')}`;
}

function comparisonSection(result: ExperimentResult): string {
  const header =
    '<tr><th>pipeline</th><th>measure</th><th>mean</th><th>diff</th><th>p (t)</th><th>p (t, Holm)</th><th>p (rand.)</th><th>p (rand., Holm)</th><th>d</th><th>wins</th><th>losses</th><th>ties</th></tr>';
  const rows = byPipeline(result.comparisons).map((c) => {
    const cls = c.difference > 0 ? 'win' : c.difference < 0 ? 'loss' : '';
    return `<tr>${nameCell(result, c.pipeline)}<td>${escapeXml(c.measure)}</td><td>${c.mean.toFixed(4)}</td><td class="${cls}">${c.difference >= 0 ? '+' : ''}${c.difference.toFixed(4)}</td><td>${formatP(c.pT)}</td><td class="${c.pTHolm < ALPHA ? 'sig' : ''}">${formatP(c.pTHolm)}</td><td>${formatP(c.pRandom)}</td><td class="${c.pRandomHolm < ALPHA ? 'sig' : ''}">${formatP(c.pRandomHolm)}</td><td>${Number.isFinite(c.effectSize) ? c.effectSize.toFixed(3) : String(c.effectSize)}</td><td>${c.wins}</td><td>${c.losses}</td><td>${c.ties}</td></tr>`;
  });
  const { trials, seed } = result.settings;
  return `<table>${header}${rows.join('')}</table><p class="muted">Randomisation test: ${trials} random sign flips of the per-query differences, seed ${seed}. d: Cohen's d for paired samples (mean difference over the standard deviation of the differences).</p>`;
}

function differenceSection(result: ExperimentResult): string {
  const measure = result.measures[0]!;
  const base = result.pipelines[result.baseline]!.perQuery[measure]!;
  return result.pipelines
    .map((pipeline, index) => {
      if (index === result.baseline) return '';
      const items = pipeline.perQuery[measure]!.map((value, q) => ({
        label: `query ${result.queries[q]!.id}`,
        value: value - base[q]!,
      }));
      if (items.every((item) => Math.abs(item.value) <= TIE_EPSILON))
        return `<p><b>${escapeXml(pipeline.name)}</b>: the same ${escapeXml(measure)} as the baseline on every query.</p>`;
      const chart = differenceBars(items, {
        title: `${pipeline.name} minus the baseline, ${measure}, per query (sorted)`,
      });
      return `<div class="chart"><b>${escapeXml(pipeline.name)}</b>: ${escapeXml(measure)} minus the baseline's, per query, sorted<br>${chart}</div>`;
    })
    .join('');
}

function recallSection(result: ExperimentResult): string {
  const series = result.pipelines.map((p, i) => ({
    label: p.name,
    color: colorOf(i),
    points: p.recall.map((r) => ({ x: r.depth, y: r.value })),
  }));
  return `<div class="chart">${logLines(series, { title: 'Mean recall against depth', xLabel: 'depth (log scale)', yLabel: 'recall' })}</div>`;
}

function perQuerySection(result: ExperimentResult): string {
  const measure = result.measures[0]!;
  const header = `<tr><th>query</th><th>text</th>${result.pipelines.map((p) => `<th>${escapeXml(p.name)}</th>`).join('')}</tr>`;
  const rows = result.queries.map((query, q) => {
    const cells = result.pipelines.map((p) => `<td>${p.perQuery[measure]![q]!.toFixed(4)}</td>`);
    return `<tr><td>${escapeXml(query.id)}</td><td style="text-align:left;white-space:normal">${escapeXml(query.text ?? '')}</td>${cells.join('')}</tr>`;
  });
  return `<details><summary>${escapeXml(measure)} of every query (${result.queries.length})</summary><table>${header}${rows.join('')}</table></details>`;
}

function failureSection(result: ExperimentResult): string {
  const rows = result.pipelines.flatMap((p) =>
    p.failed.map(
      (f) =>
        `<tr><td>${escapeXml(p.name)}</td><td>${escapeXml(f.query)}</td><td style="text-align:left">${escapeXml(f.message)}</td></tr>`,
    ),
  );
  if (rows.length === 0) return '';
  return `<h2>Failed queries</h2><p>Each scored 0 on every measure (as a query missing from a run does in trec_eval -c).</p><table><tr><th>pipeline</th><th>query</th><th>error</th></tr>${rows.join('')}</table>`;
}

function settingsSection(result: ExperimentResult): string {
  const rows = result.pipelines.map(
    (p, i) =>
      `<tr>${nameCell(result, i)}<td style="text-align:left"><code>${escapeXml(p.pipeline)}</code></td></tr>`,
  );
  return `<table>${rows.join('')}</table><p class="muted">Measures as trec_eval defines them (ir_measures names); means over every judged query; 95% t confidence intervals. Generated by irserve.</p>`;
}
