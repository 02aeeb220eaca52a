// A corpus of ColBERT-like token matrices in irserve-build-plaid-index's pre-encoded input
// layout: `.npz` shards (`np.savez(features=, doclens=, ids=)`: float16 token vectors, one row
// per token; tokens per passage; integer passage ids), 10,000 passages a shard, streamed.
// Tokens are 128-d unit vectors around token "types" (4,096 random unit vectors, drawn with a
// Zipfian skew as words are): each passage has a topic of 32 types that half its tokens come
// from, each token its type plus noise (cosine about 0.94), as bench/plaidx.mjs draws them.
// Passage lengths follow MS MARCO's (log-normal around 52 words, 1.3 word pieces a word, plus
// the two markers, at most ColBERT's 180). A query is 32 noisy copies of tokens of a random
// passage, saved as raw float32 (`queries.f32`, 32 x 128 floats each).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gaussianOf, seeded, zipfSampler } from '../../random.mjs';
import { npzWriter } from './npz-writer.mjs';

const { npyPreamble } = await import(
  new URL('../../../../packages/dense/dist/formats/npy.js', import.meta.url).href
);

export const TOKEN_DIM = 128;
export const QUERY_TOKENS = 32;
const TYPES = 4096;
const TOPIC_TYPES = 32;
const SHARD_PASSAGES = 10_000;
/** Passages generated and written at once. */
const BLOCK_PASSAGES = 500;
const TOKEN_NOISE = 0.35;

/** Noise vectors drawn once; a token takes one at a random rotation (fast, 2 M patterns). */
const NOISE_POOL = 16_384;

function tokenModel(random) {
  const gaussian = gaussianOf(random);
  const types = new Float32Array(TYPES * TOKEN_DIM);
  for (let t = 0; t < TYPES; t++)
    unit(types, t * TOKEN_DIM, types, t * TOKEN_DIM, () => gaussian());
  const noise = Float32Array.from({ length: NOISE_POOL * TOKEN_DIM }, () => gaussian());
  const sigma = TOKEN_NOISE / Math.sqrt(TOKEN_DIM);
  /** sigma times a pooled noise vector, rotated: its d-th value. */
  const noiseOf = () => {
    const row = Math.floor(random() * NOISE_POOL) * TOKEN_DIM;
    const shift = Math.floor(random() * TOKEN_DIM);
    return (d) => sigma * noise[row + ((d + shift) % TOKEN_DIM)];
  };
  const zipf = zipfSampler(random, TYPES, 0.8);
  return {
    /** A passage's token count. */
    length: () => {
      const words = 52 * Math.exp(0.45 * gaussian());
      return Math.max(8, Math.min(180, Math.round(words * 1.3) + 2));
    },
    topic: () => Array.from({ length: TOPIC_TYPES }, () => zipf()),
    /** One token of `topic` into out[at..]. */
    token(topic, out, at) {
      const type = random() < 0.5 ? topic[Math.floor(random() * TOPIC_TYPES)] : zipf();
      unit(out, at, types, type * TOKEN_DIM, noiseOf());
    },
    /** A noisy copy of the token at source[from..] into out[at..]. */
    copy: (source, from, out, at) => unit(out, at, source, from, noiseOf()),
  };
}

/** out[at..at+128) = normalise(mean[from..] + noise(d)) (a random vector when mean is out). */
function unit(out, at, mean, from, noise) {
  const plain = mean === out && from === at;
  let norm = 0;
  for (let d = 0; d < TOKEN_DIM; d++) {
    const x = (plain ? 0 : mean[from + d]) + noise(d);
    out[at + d] = x;
    norm += x * x;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let d = 0; d < TOKEN_DIM; d++) out[at + d] *= scale;
}

/**
 * float16 bits of `values` (rounded half away from zero; tiny values flush through subnormals
 * to zero): what the token shards store, as ColBERT's are.
 */
function float16Bits(values) {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const out = new Uint16Array(values.length);
  for (let i = 0; i < bits.length; i++) {
    const x = bits[i];
    const sign = (x >>> 16) & 0x8000;
    const exponent = ((x >>> 23) & 0xff) - 112;
    const mantissa = x & 0x7fffff;
    if (exponent >= 31) out[i] = sign | 0x7c00;
    else if (exponent > 0) out[i] = sign | ((exponent << 10) + ((mantissa + 0x1000) >>> 13));
    else if (exponent > -11) out[i] = sign | (((mantissa | 0x800000) >>> (14 - exponent)) + 0);
    else out[i] = sign;
  }
  return out;
}

const bytesOf = (typed) => new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);

/**
 * Writes `size` passages (ids `0` .. `size - 1`) as `.npz` shards under `dir/tokens` and
 * `queries` queries to `dir/token-queries.f32`; returns their paths and sizes.
 */
export async function writeTokenCorpus({ dir, size, queries, seed = 11 }) {
  const random = seeded(seed);
  const model = tokenModel(random);
  const shards = join(dir, 'tokens');
  await mkdir(shards, { recursive: true });
  const query = new Float32Array(queries * QUERY_TOKENS * TOKEN_DIM);
  let queriesMade = 0;
  let tokens = 0;
  for (let first = 0, shard = 0; first < size; first += SHARD_PASSAGES, shard++) {
    const passages = Math.min(SHARD_PASSAGES, size - first);
    const doclens = Int32Array.from({ length: passages }, () => model.length());
    const total = doclens.reduce((a, b) => a + b, 0);
    tokens += total;
    const npz = await npzWriter(join(shards, `part-${String(shard).padStart(5, '0')}.npz`));
    await npz.member('features.npy', featureBlocks());
    await npz.member('doclens.npy', [npyPreamble('<i4', [passages]), bytesOf(doclens)]);
    const ids = Int32Array.from({ length: passages }, (_, p) => first + p);
    await npz.member('ids.npy', [npyPreamble('<i4', [passages]), bytesOf(ids)]);
    await npz.close();

    /** The features member: its header, then float16 tokens a block of passages at a time. */
    async function* featureBlocks() {
      yield npyPreamble('<f2', [total, TOKEN_DIM]);
      for (let p = 0; p < passages; p += BLOCK_PASSAGES) {
        const lengths = doclens.subarray(p, p + BLOCK_PASSAGES);
        const block = new Float32Array(lengths.reduce((a, b) => a + b, 0) * TOKEN_DIM);
        let row = 0;
        for (const length of lengths) {
          const topic = model.topic();
          const from = row;
          for (let t = 0; t < length; t++, row++) model.token(topic, block, row * TOKEN_DIM);
          // About `queries` passages in all give a query (paraphrasing their tokens).
          if (queriesMade < queries && random() < (queries * 2) / size) {
            const at = queriesMade++ * QUERY_TOKENS * TOKEN_DIM;
            for (let t = 0; t < QUERY_TOKENS; t++) {
              const source = (from + (t % length)) * TOKEN_DIM;
              model.copy(block, source, query, at + t * TOKEN_DIM);
            }
          }
        }
        yield bytesOf(float16Bits(block));
      }
    }
  }
  const queriesPath = join(dir, 'token-queries.f32');
  await writeFile(queriesPath, query.subarray(0, queriesMade * QUERY_TOKENS * TOKEN_DIM));
  return { corpus: shards, queries: queriesPath, passages: size, tokens };
}
