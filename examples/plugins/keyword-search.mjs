// A search engine written as a plain JavaScript class: no import of irserve is needed.
// Register it with `"file_imports": ["keyword-search.mjs"]` and a service whose engine is
// "KeywordSearch". It searches a small in-memory list of documents given in the service config.
export class KeywordSearch {
  constructor({ name, config }) {
    this.name = name;
    /** @type {Record<string, string>} */
    this.docs = config.docs ?? {};
  }

  /** One ranking (document id -> score) per request, in request order. */
  async searchBatch(requests) {
    return requests.map(({ query, limit }) => {
      const terms = query.toLowerCase().split(/\W+/).filter(Boolean);
      const scored = Object.entries(this.docs)
        .map(([id, text]) => {
          const words = text.toLowerCase().split(/\W+/);
          return [id, terms.filter((t) => words.includes(t)).length];
        })
        .filter(([, score]) => score > 0)
        .sort((a, b) => b[1] - a[1])
        .slice(0, limit);
      return Object.fromEntries(scored);
    });
  }
}
