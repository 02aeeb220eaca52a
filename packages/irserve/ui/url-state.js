// The view in the page's URL (after `#`, so it never reaches a server's log): query, pipelines,
// collection, limit, page and query id. A copied URL opens the same view and runs it. The API
// key is never put there.

const FIELDS = ['q', 'a', 'b', 'collection', 'limit', 'page', 'qid'];

/** The view a URL's hash names (`#q=wing&a=bm25&limit=20`), or undefined when it names none. */
export function readUrlState(hash = location.hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  if (!FIELDS.some((field) => params.has(field))) return undefined;
  const whole = (name) => {
    const value = Number(params.get(name));
    return Number.isInteger(value) && value > 0 ? value : undefined;
  };
  return {
    query: params.get('q') ?? '',
    pipelines: [params.get('a') ?? '', params.get('b') ?? ''],
    collection: params.get('collection') ?? undefined,
    limit: whole('limit'),
    page: whole('page') ?? 1,
    queryId: params.get('qid') ?? '',
  };
}

/** Writes `view` into the URL's hash, replacing the history entry (no entry per keystroke). */
export function writeUrlState({ query, pipelines, collection, limit, page, queryId }) {
  const params = new URLSearchParams();
  params.set('q', query);
  params.set('a', pipelines[0] ?? '');
  params.set('b', pipelines[1] ?? '');
  params.set('collection', collection ?? '');
  params.set('limit', String(limit));
  if (page > 1) params.set('page', String(page));
  if (queryId) params.set('qid', queryId);
  const hash = `#${params.toString()}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
}
