// The playground page: two pipelines side by side on one query, their results (paged), documents
// with the query terms marked, traces, and judgements when qrels are loaded.
import { ApiError, avail, getKey, setKey } from './api.js';
import { createCompare } from './compare.js';
import { createEditor } from './editor.js';
import { wireExport } from './export.js';
import { queryTerms, termPattern } from './highlight.js';
import { parseQrelsFile, parseQueriesFile } from './judgements.js';
import { fillQueryIds, runJudged } from './judged-table.js';
import { createPane } from './pane.js';
import { collectionOf, serviceNames, showServices } from './services.js';
import { readUrlState, writeUrlState } from './url-state.js';

const $ = (selector, root = document) => root.querySelector(selector);
const hasOption = (select, value) => [...select.options].some((option) => option.value === value);
const state = { avail: null, qrels: null, queries: [], names: [], page: 1 };

function setStatus(text, bad = false) {
  $('#status').textContent = text;
  $('#status').classList.toggle('bad', bad);
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
  showServices($('#services'), state.avail, {
    onName: (name) => (state.activeEditor ?? panes.a.editor).insert(name),
    onCollection: (name) => pickCollection(name, `collection ${name}`),
  });
  setStatus(`${state.names.length} services and aliases`);
  if (state.fromUrl) return openUrlState(state.fromUrl);
  const search = state.avail.search ?? [];
  if (state.prefilled) return;
  state.prefilled = true;
  for (const [pane, fallback] of [
    [panes.a, search[0]],
    [panes.b, search.length > 1 ? `{${search.slice(0, 2).join(', ')}}RRF` : search[0]],
  ]) {
    if (!pane.editor.input.value && fallback) pane.editor.input.value = fallback;
  }
}

function pickCollection(name, why) {
  if (!hasOption($('#collection'), name) || $('#collection').value === name) return;
  $('#collection').value = name;
  setStatus(why);
}

/** A pipeline whose search service indexes a collection shows that collection's documents. */
function followCollection(pipeline, error) {
  const collection = !error && state.avail ? collectionOf(pipeline, state.avail) : undefined;
  if (collection) pickCollection(collection, `collection ${collection}: what ${pipeline} searches`);
}

function paneAt(selector) {
  const root = $(selector);
  const editor = createEditor(root, {
    names: () => state.names,
    onSubmit: () => void runAll(),
    onChange: followCollection,
  });
  editor.input.addEventListener('focus', () => (state.activeEditor = editor));
  const pane = createPane(root, editor);
  wireExport(root, {
    last: () => pane.last,
    queryId: () => $('#query-id').value,
    hasKey: () => Boolean(getKey()),
  });
  return pane;
}

const panes = { a: paneAt('#pane-a'), b: paneAt('#pane-b') };

/** What the panes show: the query, where documents come from, the page, the judgements. */
function currentView() {
  const id = $('#query-id').value;
  const query = $('#query').value.trim();
  return {
    query,
    collection: $('#collection').value,
    limit: Number($('#limit').value) || 10,
    page: state.page,
    relevance: id && state.qrels ? (state.qrels.get(id) ?? new Map()) : undefined,
    pattern: termPattern(queryTerms(query)),
    onPage: (page) => {
      state.page = page;
      redraw();
    },
  };
}

function saveUrlState() {
  writeUrlState({
    query: $('#query').value.trim(),
    pipelines: [panes.a, panes.b].map((pane) => pane.editor.input.value.trim()),
    collection: $('#collection').value,
    limit: Number($('#limit').value),
    page: state.page,
    queryId: $('#query-id').value,
  });
}

function redraw() {
  const view = currentView();
  for (const pane of Object.values(panes)) pane.draw(view);
  saveUrlState();
}

/** Puts a view read from the URL in the controls (the collection once /avail is known). */
function fillFromUrl(view) {
  $('#query').value = view.query;
  panes.a.editor.input.value = view.pipelines[0];
  panes.b.editor.input.value = view.pipelines[1];
  if (view.limit) {
    const limit = String(view.limit);
    if (!hasOption($('#limit'), limit)) $('#limit').append(new Option(limit, limit));
    $('#limit').value = limit;
  }
  if (hasOption($('#query-id'), view.queryId)) $('#query-id').value = view.queryId;
}

/** Opens the view of the URL: its collection, and its query run at its page. */
function openUrlState(view) {
  state.fromUrl = undefined;
  state.prefilled = true;
  state.pendingQueryId = view.queryId;
  if (view.collection !== undefined) {
    if (hasOption($('#collection'), view.collection)) $('#collection').value = view.collection;
    else setStatus(`no collection "${view.collection}" on this server`, true);
  }
  if (view.query) void runAll({ page: view.page });
}

async function runAll({ page = 1 } = {}) {
  const query = $('#query').value.trim();
  if (!query) return setStatus('type a query first', true);
  state.page = page;
  setStatus('running…');
  const view = currentView();
  await Promise.all([panes.a.run(view), panes.b.run(view)]);
  saveUrlState();
  setStatus(`ran "${query}"`);
}

async function loadFile(input, parse, apply) {
  const file = input.files?.[0];
  if (!file) return;
  try {
    apply(await parse(file));
    fillQueryIds(state.queries, state.qrels);
    choosePendingQueryId();
    $('#judged').hidden = !(state.qrels && state.queries.length > 0);
    setStatus(`loaded ${file.name}`);
  } catch (error) {
    setStatus(`${file.name}: ${error.message}`, true);
  }
}

/** A query id from the URL, chosen once the qrels or queries that hold it are picked. */
function choosePendingQueryId() {
  const id = state.pendingQueryId;
  if (!id || !hasOption($('#query-id'), id)) return;
  state.pendingQueryId = undefined;
  $('#query-id').value = id;
  redraw();
}

function openQuery(query) {
  $('#query').value = query.text;
  $('#query-id').value = query.id;
  void runAll();
}

$('#api-key').value = getKey();
$('#api-key').addEventListener('change', (event) => {
  setKey(event.target.value.trim());
  void loadAvail();
});
$('#run').addEventListener('click', () => void runAll());
$('#query').addEventListener('keydown', (event) => event.key === 'Enter' && void runAll());
$('#limit').addEventListener('change', () => void runAll());
$('#run-all').addEventListener('click', () =>
  runJudged({
    queries: state.queries,
    qrels: state.qrels,
    pipelines: [panes.a, panes.b].map((pane) => pane.editor.input.value.trim()),
    collection: $('#collection').value,
    onOpen: openQuery,
    setStatus,
  }),
);
$('#qrels').addEventListener('change', (event) =>
  loadFile(event.target, parseQrelsFile, (qrels) => (state.qrels = qrels)),
);
$('#queries').addEventListener('change', (event) =>
  loadFile(event.target, parseQueriesFile, (queries) => (state.queries = queries)),
);
$('#query-id').addEventListener('change', () => {
  const query = state.queries.find((q) => q.id === $('#query-id').value);
  if (query) openQuery(query);
  else redraw();
});
state.fromUrl = readUrlState();
if (state.fromUrl) fillFromUrl(state.fromUrl);
window.addEventListener('hashchange', () => {
  state.fromUrl = readUrlState();
  if (!state.fromUrl) return;
  fillFromUrl(state.fromUrl);
  if (state.avail) openUrlState(state.fromUrl);
});
createCompare($('#compare'), {
  pipelines: () => [panes.a, panes.b].map((pane) => pane.editor.input.value.trim()),
  collection: () => $('#collection').value,
  queries: () => state.queries,
  qrels: () => state.qrels,
  openQuery,
  setStatus,
});
void loadAvail();
