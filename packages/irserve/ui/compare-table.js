// Draws the A-against-B view: the summary line, the per-query table (sortable by any column,
// the difference first) and, for the selected query, the top k of A and B side by side.
import {
  comparisonRows,
  comparisonSummary,
  overlapAt,
  rankChanges,
  sortRows,
} from './compare-model.js';

const COLUMNS = [
  ['id', 'query id'],
  ['text', 'query'],
  ['a', 'A'],
  ['b', 'B'],
  ['diff', 'B − A'],
  ['overlap', 'overlap'],
];

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** `+0.1234`, `−0.1234` or `0.0000`. */
export function signed(value) {
  if (value > 1e-12) return `+${value.toFixed(4)}`;
  if (value < -1e-12) return `−${(-value).toFixed(4)}`;
  return (0).toFixed(4);
}

function outcome(diff) {
  return diff > 1e-12 ? 'win' : diff < -1e-12 ? 'loss' : 'tie';
}

/**
 * The rows of `view` (an experiment result, pipelines a and b, a measure, k, the live runs when
 * there are any), with the overlap of the top k where both rankings are known.
 */
export function viewRows(view) {
  const rows = comparisonRows(view.result, view.a, view.b, view.measure);
  if (!view.rankings) return rows;
  for (const row of rows) {
    const pair = view.rankings.get(row.id);
    if (pair) row.overlap = overlapAt(pair.a, pair.b, view.k);
  }
  return rows;
}

function summaryParts(summary, rows, view) {
  const { queries, meanA, meanB, difference, wins, losses, ties } = summary;
  const overlaps = rows.filter((row) => row.overlap !== undefined);
  const parts = [
    [`B against A on ${view.measure}, ${queries} queries: mean A `, meanA.toFixed(4), 'mean-a'],
    [', B ', meanB.toFixed(4), 'mean-b'],
    [', B − A ', signed(difference), 'difference'],
    ['. B wins ', String(wins), 'wins'],
    [', loses ', String(losses), 'losses'],
    [', ties ', String(ties), 'ties'],
    ['. Paired t-test p = ', summary.pT.toFixed(4), 'p-t'],
    [', randomisation p = ', summary.pRandom.toFixed(4), 'p-random'],
  ];
  if (overlaps.length > 0) {
    const mean = overlaps.reduce((sum, row) => sum + row.overlap, 0) / overlaps.length;
    parts.push([`. Mean overlap of the top ${view.k}: `, mean.toFixed(2), 'mean-overlap']);
  }
  parts.push([
    '. Failed queries (scored 0, as in irserve experiment): A ',
    String(summary.failedA),
    'failed-a',
  ]);
  parts.push([', B ', String(summary.failedB), 'failed-b']);
  return parts;
}

/** The summary line of `rows` into `box`. */
export function drawSummary(box, rows, view) {
  const summary = comparisonSummary(rows, view.result.settings);
  box.replaceChildren();
  for (const [label, value, className] of summaryParts(summary, rows, view))
    box.append(label, element('b', value, className));
  box.append('.');
}

function valueCell(row, value, failure) {
  const cell = element('td', failure === undefined ? value.toFixed(4) : 'failed', 'num');
  if (failure !== undefined) {
    cell.classList.add('failed');
    cell.title = failure;
  }
  return cell;
}

function tableRow(row, view, onPick) {
  const tr = element('tr');
  tr.dataset.queryId = row.id;
  if (row.id === view.selected) tr.classList.add('selected');
  tr.append(
    element('td', row.id),
    element('td', row.text ?? '(not in the queries file)', row.text === undefined ? 'muted' : ''),
    valueCell(row, row.a, row.failedA),
    valueCell(row, row.b, row.failedB),
    element('td', signed(row.diff), `num ${outcome(row.diff)}`),
    element('td', row.overlap === undefined ? '–' : String(row.overlap), 'num'),
  );
  tr.addEventListener('click', () => onPick(row));
  return tr;
}

/** The table head: a button per column that sorts by it (again: the other way). */
export function drawHead(thead, view, onSort) {
  const tr = element('tr');
  for (const [key, label] of COLUMNS) {
    const th = element('th');
    const text = key === 'overlap' ? `overlap@${view.k}` : label;
    const arrow = view.sort.key === key ? (view.sort.descending ? ' ▼' : ' ▲') : '';
    const button = element('button', text + arrow, 'sort');
    button.type = 'button';
    button.dataset.key = key;
    button.addEventListener('click', () => onSort(key));
    th.append(button);
    tr.append(th);
  }
  thead.replaceChildren(tr);
}

/** The rows sorted as `view.sort` says into `tbody`; `onPick(row)` on a click. */
export function drawBody(tbody, rows, view, onPick) {
  const sorted = sortRows(rows, view.sort.key, view.sort.descending);
  tbody.replaceChildren(...sorted.map((row) => tableRow(row, view, onPick)));
}

function docTable(caption, headers, lines) {
  const table = element('table', undefined, 'rank-table');
  table.append(element('caption', `${caption} (${lines.length})`));
  const head = table.createTHead().insertRow();
  for (const header of headers) head.append(element('th', header));
  const body = table.createTBody();
  for (const line of lines) {
    const tr = body.insertRow();
    for (const value of line) tr.append(element('td', value));
  }
  return table;
}

/** The documents of `side`'s top k that the other's top k lacks, with their rank in each. */
function onlyTable(side, other, docs, k, judged) {
  return docTable(
    `Only in ${side}'s top ${k}`,
    ['document', 'grade', `rank in ${side}`, `rank in ${other}`],
    docs.map((d) => [d.id, gradeOf(judged, d.id), String(d.rank), rankText(d.otherRank)]),
  );
}

const gradeOf = (judged, id) => (judged?.has(id) ? String(judged.get(id)) : '–');
const rankText = (rank) => (rank === undefined ? 'not retrieved' : String(rank));

/**
 * For the selected query: the documents both top k share, with their ranks in A and B and the
 * change (positive: B ranks it higher), and those only one of them has in its top k.
 */
export function drawDetail(box, row, view) {
  box.replaceChildren();
  if (!row) return;
  box.append(element('h3', `Query ${row.id}: ${row.text ?? ''}`));
  for (const [name, failure] of [
    ['A', row.failedA],
    ['B', row.failedB],
  ])
    if (failure !== undefined) box.append(element('p', `${name} failed: ${failure}`, 'failed'));
  const pair = view.rankings?.get(row.id);
  if (!pair) {
    const why = view.rankings
      ? 'this query did not run (no text in the queries file).'
      : 'an experiment result holds per-query values, not rankings: run the pipelines here (Compare on every judged query) for the overlap and the rank changes.';
    box.append(element('p', `No rankings: ${why}`, 'muted'));
    return;
  }
  const judged = view.qrels?.get(row.id);
  const changes = rankChanges(pair.a, pair.b, view.k);
  box.append(
    docTable(
      `In both top ${view.k}`,
      ['document', 'grade', 'rank in A', 'rank in B', 'change'],
      changes.shared.map((d) =>
        [
          d.id,
          gradeOf(judged, d.id),
          d.rankA,
          d.rankB,
          d.delta > 0 ? `+${d.delta}` : String(d.delta),
        ].map(String),
      ),
    ),
    onlyTable('A', 'B', changes.onlyA, view.k, judged),
    onlyTable('B', 'A', changes.onlyB, view.k, judged),
  );
}
