// SPLADE-like passage and query vectors, following published SPLADE statistics: about 120
// non-zero terms per passage and 25-40 per query over a Zipfian vocabulary of 30k tokens
// (`t<rank>`); frequent tokens weigh less than rare ones (SPLADE's learned IDF), weights are
// log-normal around that and capped at 3.5. With `topics`, passages are about topics, as real
// ones are: each draws 40% of its terms from its topic's 200 mid- and low-frequency tokens, the
// rest from the whole vocabulary; topics are assigned at random, so the corpus comes in no
// useful order. Without, every term comes from the whole vocabulary (the worst case for any
// pruning). Half the terms of a query come from one passage (so it has relevant passages, as
// real queries do), half from the vocabulary's distribution. Used by bench/sparse.mjs and
// bench/scale.mjs.
import { gaussianOf, zipfSampler } from './random.mjs';

const TOPIC_TERMS = 200;
const TOPIC_SHARE = 0.4;

/** `{ t<rank>: weight }` of weights by rank, in their order. */
export function vectorOf(weights) {
  const vector = {};
  for (const [rank, weight] of weights) vector[`t${rank}`] = weight;
  return vector;
}

/** The JSON of `vectorOf(weights)`, written directly (JSON.stringify's own output). */
export function vectorJson(weights) {
  let json = '{';
  for (const [rank, weight] of weights) json += `${json.length > 1 ? ',' : ''}"t${rank}":${weight}`;
  return `${json}}`;
}

/**
 * @example
 * const corpus = spladeCorpus({ random: seeded(1), topics: 400 });
 * const passage = corpus.passageVector(); // { t12: 0.84, t907: 1.2, ... }
 * const query = corpus.queryVector(passage);
 */
export function spladeCorpus({ random, vocab = 30_000, terms = 120, topics = 0 }) {
  const gaussian = gaussianOf(random);
  const zipf = zipfSampler(random, vocab);
  const idfWeight = (rank, spread) =>
    Math.min(3.5, (0.15 + 0.3 * Math.log1p(rank / 30)) * Math.exp(spread * gaussian()));
  // Each topic's tokens: mid- and low-frequency ranks (a topic is not about "the").
  const topicTerms = Array.from({ length: topics }, () => {
    const chosen = new Set();
    while (chosen.size < TOPIC_TERMS) {
      const rank = zipf();
      if (rank >= 100) chosen.add(rank);
    }
    return [...chosen];
  });
  return {
    /** A passage's weights by token rank, in the order drawn (a Map: far faster than keys). */
    passageWeights() {
      const weights = new Map();
      const count = Math.max(20, Math.round(terms + 25 * gaussian()));
      const topic = topics > 0 ? topicTerms[Math.floor(random() * topics)] : undefined;
      for (let guard = 0; weights.size < count && guard < count * 4; guard++) {
        const rank =
          topic && random() < TOPIC_SHARE ? topic[Math.floor(random() * topic.length)] : zipf();
        weights.set(rank, Math.round(idfWeight(rank, 0.5) * 1000) / 1000);
      }
      return weights;
    },
    passageVector() {
      return vectorOf(this.passageWeights());
    },
    queryVector(passage) {
      const source = Object.keys(passage);
      const vector = {};
      const count = 25 + Math.floor(random() * 16);
      for (let size = 0; size < count;) {
        const rank =
          random() < 0.5 ? Number(source[Math.floor(random() * source.length)].slice(1)) : zipf();
        if (vector[`t${rank}`] === undefined) size++;
        vector[`t${rank}`] = idfWeight(rank, 0.4);
      }
      return vector;
    },
  };
}
