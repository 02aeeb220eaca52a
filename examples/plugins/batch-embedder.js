// A batch engine: the whole batch is handled in one call, as a GPU model would. Here a tiny
// "embedding" (letter histogram) stands in for a model; what matters is the shape: one call per
// batch, one result per request. Set batch_size / max_wait_time on the service to tune batching.
export class LetterHistogramScorer {
  constructor({ config }) {
    this.batches = 0;
    this.dimensions = config.dimensions ?? 26;
  }

  embed(text) {
    const vector = new Float64Array(this.dimensions);
    for (const ch of text.toLowerCase()) {
      const index = ch.charCodeAt(0) - 97;
      if (index >= 0 && index < this.dimensions) vector[index] += 1;
    }
    const norm = Math.hypot(...vector) || 1;
    return vector.map((x) => x / norm);
  }

  async scoreBatch(requests) {
    this.batches++;
    return requests.map(({ query, passages }) => {
      const q = this.embed(query);
      return passages.map((passage) =>
        this.embed(passage).reduce((sum, x, i) => sum + x * q[i], 0),
      );
    });
  }

  async start() {
    // Load a model here: the server accepts requests only after every start() resolved.
  }

  async close() {
    // Release GPU memory, close files.
  }
}
