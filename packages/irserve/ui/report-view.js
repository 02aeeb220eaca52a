// An `irserve experiment` run opened in the page: its report.html as written (in a sandboxed
// frame: the report is one page with inline CSS and SVG and no script, so the frame allows
// none), or its results.json rendered into the same report by irserve's own report code. Either
// way the results (results.json, which the report embeds) feed the A-against-B table, so any
// two pipelines of the run can be compared query by query offline.
import { checkExperimentResult } from './compare-model.js';
import { experimentReportHtml } from './lib/experiment/report-html.js';

/** The results embedded in a report page (`<script type="application/json" id="experiment-results">`). */
function embeddedResults(html, name) {
  const page = new DOMParser().parseFromString(html, 'text/html');
  const data = page.getElementById('experiment-results');
  if (!data)
    throw new Error(
      `${name}: no experiment results in it (pick the report.html or results.json that irserve experiment wrote)`,
    );
  return parseJson(data.textContent, name);
}

function parseJson(text, name) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${name}: not valid JSON (${error.message})`);
  }
}

/**
 * Reads a picked file: `report.html` (kept as it is) or `results.json` (rendered with the report
 * code). Resolves with `{ result, html }`; rejects with an Error naming the file and the problem.
 */
export async function readExperimentFile(file) {
  const text = await file.text();
  const isJson = /\.json$/i.test(file.name) || /^\s*\{/.test(text);
  const result = checkExperimentResult(
    isJson ? parseJson(text, file.name) : embeddedResults(text, file.name),
    file.name,
  );
  const html = isJson ? experimentReportHtml(result, { title: file.name }) : text;
  return { result, html };
}

/** Shows a report page in `frame` (sandboxed: no script, no access to the playground). */
export function showReport(frame, html) {
  frame.setAttribute('sandbox', '');
  frame.srcdoc = html;
  frame.hidden = false;
}

/** The report of a live A-against-B run, made by the code `irserve experiment` uses. */
export function liveReportHtml(result, title) {
  return experimentReportHtml(result, { title });
}
