// What each stage of a pipeline returned: the ranked list of every search, rerank and merge
// stage, from the `explain` trace (`stages[].results`), best first, one folded list per stage.
import { compareRanked } from './lib/core/ranked-list.js';

const SHOWN = 100;

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
}

/** The stage's documents as a table: rank, id, score (the first SHOWN, with a note of the rest). */
function stageTable(results) {
  const ranked = [...results].sort(compareRanked);
  const table = document.createElement('table');
  table.className = 'stage-table';
  const head = table.createTHead().insertRow();
  for (const name of ['rank', 'id', 'score']) {
    const th = document.createElement('th');
    th.textContent = name;
    head.append(th);
  }
  const body = table.createTBody();
  ranked.slice(0, SHOWN).forEach((doc, index) => {
    const row = body.insertRow();
    cell(row, String(index + 1), 'rank');
    cell(row, doc.id, 'docid');
    cell(row, Number(doc.score).toFixed(4), 'score');
  });
  if (ranked.length > SHOWN) {
    const more = body.insertRow();
    cell(more, `… ${ranked.length - SHOWN} more`);
    more.cells[0].colSpan = 3;
  }
  return table;
}

/**
 * Appends one folded list per stage that returned documents to `container`; a click on a stage's
 * bar in the trace picture (`svg`) unfolds its list. The table is built when first unfolded.
 */
export function drawStages(container, explain, svg) {
  const stages = explain?.stages ?? [];
  const box = document.createElement('div');
  box.className = 'stages';
  const folds = stages.map((stage) => {
    if (!Array.isArray(stage.results)) return undefined;
    const fold = document.createElement('details');
    fold.className = `stage-results stage-${stage.role}`;
    const summary = document.createElement('summary');
    summary.textContent = `${stage.stage} (${stage.role}) returned ${stage.results.length}`;
    fold.append(summary);
    fold.addEventListener('toggle', () => {
      if (fold.open && !fold.querySelector('table')) fold.append(stageTable(stage.results));
    });
    box.append(fold);
    return fold;
  });
  svg?.querySelectorAll('g.stage').forEach((group, index) => {
    const fold = folds[index];
    if (!fold) return;
    group.classList.add('has-results');
    group.addEventListener('click', () => {
      fold.open = true;
      fold.scrollIntoView({ block: 'nearest' });
    });
  });
  if (box.childElementCount > 0) container.append(box);
}
