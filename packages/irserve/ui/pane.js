// One pipeline pane: runs its pipeline, keeps the answer, and draws the page of results asked
// for, its trace, its nDCG@10 and its error.
import { runPipeline } from './api.js';
import { ndcgAt10 } from './judgements.js';
import { rankedList } from './lib/core/ranked-list.js';
import { drawPager, pageOf } from './pager.js';
import { drawResults } from './results.js';
import { drawStages } from './stages.js';
import { drawTrace } from './trace.js';

const $ = (selector, root) => root.querySelector(selector);

/**
 * A pane over `root`: `run(view)` runs the pipeline typed in it for `view` (`query`,
 * `collection`, `limit`, `page`, `relevance`, `pattern`, `onPage`); `draw(view)` redraws the
 * last answer (another page, other judgements) without running it again.
 */
export function createPane(root, editor) {
  const pane = { root, editor, last: undefined };

  pane.draw = (view) => {
    if (!pane.last) return;
    const { ranked } = pane.last;
    drawPager($('.pager', root), { page: view.page, total: ranked.length, onPage: view.onPage });
    drawResults($('.results', root), {
      docs: pageOf(ranked, view.page),
      collection: pane.last.request.collection,
      relevance: view.relevance,
      pattern: view.pattern,
    });
    const badge = $('.ndcg', root);
    badge.hidden = !view.relevance;
    if (view.relevance)
      ndcgAt10(pane.last.envelope.scores, view.relevance).then(
        (value) => (badge.textContent = `nDCG@10 ${value.toFixed(4)}`),
      );
  };

  pane.clear = () => {
    pane.last = undefined;
    for (const selector of ['.results', '.trace-box', '.pager'])
      $(selector, root).replaceChildren();
    $('.ndcg', root).hidden = true;
  };

  pane.run = async (view) => {
    const errorBox = $('.error', root);
    const pipeline = editor.input.value.trim();
    errorBox.hidden = true;
    if (!pipeline) return pane.clear();
    const request = { pipeline, query: view.query, collection: view.collection, limit: view.limit };
    try {
      const envelope = await runPipeline(request);
      editor.setError(null);
      pane.last = { request, envelope, ranked: rankedList(envelope.scores ?? {}) };
      const traceBox = $('.trace-box', root);
      drawTrace(traceBox, envelope.explain, envelope.requestId);
      drawStages(traceBox, envelope.explain, $('svg.trace', traceBox));
      pane.draw(view);
    } catch (error) {
      pane.clear();
      if (typeof error.details?.column === 'number')
        editor.setError({ column: error.details.column, message: error.message });
      errorBox.textContent = `${error.code ?? 'error'}: ${error.message}`;
      errorBox.hidden = false;
    }
  };
  return pane;
}
