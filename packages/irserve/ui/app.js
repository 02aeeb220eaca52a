// The playground page: two pipelines side by side on one query, their results, documents and
// traces, and nDCG@10 per query when qrels are loaded.
import { ApiError, avail, getKey, runPipeline, setKey } from './api.js';
import { createEditor } from './editor.js';
import { ndcgAt10, parseQrelsFile, parseQueriesFile } from './judgements.js';
import { drawResults } from './results.js';
import { drawTrace } from './trace.js';

const $ = (selector, root = document) => root.querySelector(selector);
const state = { avail: null, qrels: null, queries: [], names: [], scores: new Map() };

function setStatus(text, bad = false) {
  $('#status').textContent = text;
  $('#status').classList.toggle('bad', bad);
}

function serviceNames(listing) {
  const roles = ['search', 'score', 'fuse', 'decompose_query'];
  const names = roles.flatMap((role) => listing[role] ?? []);
  return [...new Set([...names, ...Object.keys(listing.pipeline_aliases ?? {})])].sort();
}

function showServices(listing) {
  const aside = $('#services');
  aside.replaceChildren();
  for (const role of ['search', 'score', 'fuse', 'decompose_query']) {
    const line = document.createElement('div');
    line.append(`${role}: `);
    for (const name of listing[role] ?? []) {
      const code = document.createElement('code');
      code.textContent = name;
      line.append(code);
    }
    aside.append(line);
  }
}

async function loadAvail() {
  try {
    state.avail = await avail();
  } catch (error) {
    const hint = error instanceof ApiError && error.status === 401 ? ': enter the API key' : '';
    setStatus(`${error.message}${hint}`, true);
    return;
  }
  state.names = serviceNames(state.avail);
  const select = $('#collection');
  const collections = Object.keys(state.avail.collection ?? {});
  select.replaceChildren(
    new Option('(none)', ''),
    ...collections.map((name) => new Option(name, name)),
  );
  if (collections.length > 0) select.value = collections[0];
  showServices(state.avail);
  const search = state.avail.search ?? [];
  if (state.prefilled) return setStatus(`${state.names.length} services and aliases`);
  state.prefilled = true;
  for (const [pane, fallback] of [
    [panes.a, search[0]],
    [panes.b, search.length > 1 ? `{${search.slice(0, 2).join(', ')}}RRF` : search[0]],
  ]) {
    if (!pane.editor.input.value && fallback) pane.editor.input.value = fallback;
  }
  setStatus(`${state.names.length} services and aliases`);
}

function createPane(root) {
  const pane = { root, lastScores: null };
  pane.editor = createEditor(root, { names: () => state.names, onSubmit: () => void runAll() });
  return pane;
}

const panes = { a: createPane($('#pane-a')), b: createPane($('#pane-b')) };

function currentJudgements() {
  const id = $('#query-id').value;
  return id && state.qrels ? state.qrels.get(id) : undefined;
}

async function runPane(pane, query) {
  const errorBox = $('.error', pane.root);
  const pipeline = pane.editor.input.value.trim();
  errorBox.hidden = true;
  if (!pipeline) return;
  const collection = $('#collection').value;
  try {
    const envelope = await runPipeline({
      pipeline,
      query,
      collection,
      limit: Number($('#limit').value) || 10,
    });
    pane.editor.setError(null);
    pane.lastScores = envelope.scores;
    drawTrace($('.trace-box', pane.root), envelope.explain, envelope.requestId);
    const judged = currentJudgements();
    drawResults($('.results', pane.root), {
      scores: envelope.scores,
      collection,
      relevance: judged,
    });
    const badge = $('.ndcg', pane.root);
    badge.hidden = !judged;
    if (judged)
      badge.textContent = `nDCG@10 ${(await ndcgAt10(envelope.scores, judged)).toFixed(4)}`;
  } catch (error) {
    if (typeof error.details?.column === 'number')
      pane.editor.setError({ column: error.details.column, message: error.message });
    errorBox.textContent = `${error.code ?? 'error'}: ${error.message}`;
    errorBox.hidden = false;
    $('.results', pane.root).replaceChildren();
    $('.trace-box', pane.root).replaceChildren();
  }
}

async function runAll() {
  const query = $('#query').value.trim();
  if (!query) return setStatus('type a query first', true);
  setStatus('running…');
  await Promise.all([runPane(panes.a, query), runPane(panes.b, query)]);
  setStatus(`ran "${query}"`);
}

function fillQueryIds() {
  const select = $('#query-id');
  const ids =
    state.queries.length > 0 ? state.queries.map((q) => q.id) : [...(state.qrels?.keys() ?? [])];
  select.replaceChildren(new Option('(none)', ''), ...ids.map((id) => new Option(id, id)));
}

async function scoreOf(pane, query, judged) {
  const pipeline = pane.editor.input.value.trim();
  if (!pipeline) return undefined;
  const envelope = await runPipeline({
    pipeline,
    query,
    collection: $('#collection').value,
    limit: 10,
  });
  return ndcgAt10(envelope.scores, judged);
}

async function runJudged() {
  const rows = $('#judged tbody');
  rows.replaceChildren();
  const judgedQueries = state.queries.filter((query) => state.qrels.has(query.id));
  const sums = { a: 0, b: 0 };
  for (const [index, query] of judgedQueries.entries()) {
    setStatus(`judged query ${index + 1} of ${judgedQueries.length}`);
    const judged = state.qrels.get(query.id);
    const [a, b] = await Promise.all([
      scoreOf(panes.a, query.text, judged).catch(() => undefined),
      scoreOf(panes.b, query.text, judged).catch(() => undefined),
    ]);
    sums.a += a ?? 0;
    sums.b += b ?? 0;
    const row = rows.insertRow();
    for (const value of [query.id, query.text, a?.toFixed(4) ?? '–', b?.toFixed(4) ?? '–'])
      row.insertCell().textContent = value;
    row.addEventListener('click', () => {
      $('#query').value = query.text;
      $('#query-id').value = query.id;
      void runAll();
    });
  }
  const count = Math.max(judgedQueries.length, 1);
  $('#judged .mean-a').textContent = (sums.a / count).toFixed(4);
  $('#judged .mean-b').textContent = (sums.b / count).toFixed(4);
  setStatus(`${judgedQueries.length} judged queries`);
}

async function loadFile(input, parse, apply) {
  const file = input.files?.[0];
  if (!file) return;
  try {
    apply(await parse(file));
    fillQueryIds();
    $('#judged').hidden = !(state.qrels && state.queries.length > 0);
    setStatus(`loaded ${file.name}`);
  } catch (error) {
    setStatus(`${file.name}: ${error.message}`, true);
  }
}

$('#api-key').value = getKey();
$('#api-key').addEventListener('change', (event) => {
  setKey(event.target.value.trim());
  void loadAvail();
});
$('#run').addEventListener('click', () => void runAll());
$('#query').addEventListener('keydown', (event) => event.key === 'Enter' && void runAll());
$('#run-all').addEventListener('click', () => void runJudged());
$('#qrels').addEventListener('change', (event) =>
  loadFile(event.target, parseQrelsFile, (qrels) => (state.qrels = qrels)),
);
$('#queries').addEventListener('change', (event) =>
  loadFile(event.target, parseQueriesFile, (queries) => (state.queries = queries)),
);
$('#query-id').addEventListener('change', () => {
  const query = state.queries.find((q) => q.id === $('#query-id').value);
  if (query) $('#query').value = query.text;
});
void loadAvail();
