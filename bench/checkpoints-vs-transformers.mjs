// The irserve half of bench/checkpoints-vs-transformers.py (run that; it writes the folders and
// transformers' outputs, then this): builds irserve's graph of each folder and head, runs the
// rows as one padded batch, and prints the largest absolute difference from transformers'
// outputs (each row run alone, unpadded), at the rows' real tokens.
//
//   node bench/checkpoints-vs-transformers.mjs <cases.json>
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';

const root = new URL('../', import.meta.url);
const onnx = await import(new URL('packages/onnx/dist/index.js', root).href);

const OUTPUT = {
  hidden: 'last_hidden_state',
  'masked-lm': 'logits',
  classifier: 'logits',
  colbert: 'token_embeddings',
  'next-token': 'logits',
  'first-step': 'logits',
};

/** The largest difference of `got` (the padded batch) from each row's expected values. */
function worstDiff(kase, batch, got) {
  const perToken = got.dims.length === 3;
  const width = perToken ? got.dims[2] : got.dims[1];
  let worst = 0;
  kase.rows.forEach((row, r) => {
    const want = kase.expected[r];
    const pads = batch.length - row.ids.length;
    const first = perToken ? r * batch.length + (batch.paddingSide === 'left' ? pads : 0) : r;
    const values = got.data.subarray(first * width, first * width + want.length);
    if (values.length !== want.length) worst = Infinity;
    for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(values[i] - want[i]));
  });
  return worst;
}

async function compare(pool, kase) {
  const lease = await pool.acquire(kase.folder, { head: kase.head, intra_op_threads: 1 });
  try {
    const rows = kase.rows.map((row) => ({ ids: row.ids, typeIds: row.types, truncated: false }));
    const batch = onnx.padRows(rows, kase.pad, kase.side);
    const output = OUTPUT[kase.head];
    const { [output]: got } = await lease.session.run(batch, [output]);
    return { built: lease.built, diff: worstDiff(kase, batch, got) };
  } finally {
    await lease.release();
  }
}

const manifest = JSON.parse(await readFile(process.argv[2], 'utf8'));
const pool = new onnx.SessionPool();
console.log(
  `transformers ${manifest.transformers}, torch ${manifest.torch}, load average ${loadavg()[0].toFixed(2)}\n`,
);
console.log('| model_type | saved by | stored as | head | largest difference |');
console.log('| --- | --- | --- | --- | --- |');
let failed = false;
for (const kase of manifest.cases) {
  let cell;
  try {
    const { diff } = await compare(pool, kase);
    cell = diff.toExponential(1);
    if (!(diff < 1e-4)) failed = true;
  } catch (error) {
    cell = `error: ${error.message}`;
    failed = true;
  }
  console.log(
    `| ${kase.architecture} | ${kase.class} | ${kase.variant} | ${kase.head} | ${cell} |`,
  );
}
console.log(failed ? '\nsome differ by 1e-4 or more' : '\nall within 1e-4');
process.exit(failed ? 1 : 0);
