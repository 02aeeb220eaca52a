// Passages of text shaped like MS MARCO's: lengths log-normal around 52 words (mean about 56,
// as MS MARCO's passages), words drawn from a Zipfian vocabulary (exponent 1) of 3 million
// words whose most frequent ranks are English stop words (about a quarter of the words, as in
// English text) and the rest made-up words that no stemmer changes. Queries are 2-8 distinct
// non-stop words of a random passage, so every query has relevant passages, as real ones do.
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gaussianOf, seeded, zipfSampler } from '../../random.mjs';

const VOCABULARY = 3_000_000;
/** Lucene's English stop words, the most frequent ranks of the vocabulary. */
const STOPWORDS = (
  'the a and of to in is that it for was on are as with be by this at not or but ' +
  'if no an into such their then there these they will'
).split(' ');

/** A made-up word for rank r (consonant-vowel syllables, so it reads and tokenizes as a word). */
function makeWord(rank) {
  if (rank < STOPWORDS.length) return STOPWORDS[rank];
  const consonants = 'bcdfghjklmnprstvz';
  const vowels = 'aeiou';
  let out = '';
  for (let r = rank; r > 0 || out === ''; r = Math.floor(r / 85)) {
    out += consonants[r % 17] + vowels[Math.floor(r / 17) % 5];
  }
  return out + 'q';
}

/**
 * Writes `size` passages (`{"id": "<n>", "text": ...}` lines) and `queries` queries (a JSON
 * array of strings) to `dir`; returns their paths.
 */
export async function writeTextCorpus({ dir, size, queries, seed = 1 }) {
  const random = seeded(seed);
  const gaussian = gaussianOf(random);
  const zipf = zipfSampler(random, VOCABULARY);
  const made = new Array(VOCABULARY); // words are made once per rank
  const word = (rank) => (made[rank] ??= makeWord(rank));
  const sources = new Map(
    Array.from({ length: queries }, (_, q) => [Math.floor(random() * size), q]),
  );
  const picked = [];
  const corpus = join(dir, 'passages.jsonl');
  const out = createWriteStream(corpus);
  for (let i = 0; i < size; i++) {
    const length = Math.max(3, Math.min(250, Math.round(52 * Math.exp(0.45 * gaussian()))));
    const words = Array.from({ length }, () => word(zipf()));
    if (sources.has(i)) picked.push(words);
    if (!out.write(`${JSON.stringify({ id: String(i), text: words.join(' ') })}\n`))
      await new Promise((resolve) => out.once('drain', resolve));
  }
  await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
  const texts = Array.from({ length: queries }, (_, q) => {
    const words = [...new Set(picked[q % picked.length].filter((w) => !STOPWORDS.includes(w)))];
    const count = Math.min(words.length, 2 + Math.floor(random() * 7));
    for (let i = words.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [words[i], words[j]] = [words[j], words[i]];
    }
    return words.slice(0, count).join(' ');
  });
  const queriesPath = join(dir, 'text-queries.json');
  await writeFile(queriesPath, JSON.stringify(texts));
  return { corpus, queries: queriesPath };
}
