import { afterAll, describe, expect, it } from 'vitest';
import { SessionPool, padRows, type EncodedBatch, type ModelLease } from '@irserve/onnx';
import {
  CHECKPOINTS,
  EXPORTS,
  HEAD_OUTPUT,
  expected,
  readReference,
  referenceBatch,
  referenceDiff,
  runExport,
} from './checkpoint-helpers.js';
import { maxDiff } from './helpers.js';

/** Every architecture with every head it has, and the storage variants of one BERT. */
const ARCHITECTURES = [
  'bert',
  'roberta',
  'xlm-roberta',
  'electra',
  'distilbert',
  'qwen3',
  'qwen2',
  't5',
  'mt5',
];
const VARIANTS = [
  'bert-fp16',
  'bert-bf16',
  'bert-sharded',
  'bert-bin',
  'bert-bin-legacy',
  'qwen3-embedding',
];
const CASES = [...ARCHITECTURES, ...VARIANTS].flatMap((name) =>
  Object.keys(readReference(name).outputs).map((head) => [name, head] as const),
);

const pool = new SessionPool();
const leases: ModelLease[] = [];

async function open(name: string, head: string): Promise<ModelLease> {
  const lease = await pool.acquire(`${CHECKPOINTS}${name}`, {
    head: head as 'hidden',
    intra_op_threads: 1,
  });
  leases.push(lease);
  return lease;
}

afterAll(async () => {
  for (const lease of leases) await lease.release();
});

describe('graphs built from checkpoints, against the independent reference', () => {
  it.each(CASES)(
    '%s, head %s: within 1e-4 of the float64 forward pass (padded batch)',
    async (name, head) => {
      const ref = readReference(name);
      const lease = await open(name, head);
      expect(lease.folder.format).toBe('checkpoint');
      expect(lease.built).toEqual({ modelType: expect.any(String), head });
      const output = HEAD_OUTPUT[head]!;
      const { [output]: got } = await lease.session.run(referenceBatch(ref), [output]);
      expect(got!.dims).toEqual(ref.outputs[head]!.dims);
      expect(referenceDiff(ref, head, got!)).toBeLessThan(1e-4);
      // One row alone gives that row's values: the other rows change nothing.
      const alone = await lease.session.run(referenceBatch(ref, [1]), [output]);
      expect(referenceDiff(ref, head, alone[output]!, [1])).toBeLessThan(1e-4);
    },
  );
});

describe('graphs built from checkpoints, against torch.onnx.export of the same weights', () => {
  const exported = ARCHITECTURES.flatMap((name) =>
    Object.keys(readReference(name).outputs).map((head) => [name, head] as const),
  );
  /** Where the reference compares a row's values (a decoder's padding is not compared). */
  const real = (ref: ReturnType<typeof readReference>, head: string, data: Float32Array) =>
    ref.compare && ref.outputs[head]!.dims.length === 3
      ? data.filter((_, i) => {
          const [, length, width] = ref.outputs[head]!.dims as [number, number, number];
          const token = Math.floor(i / width);
          return ref.attention_mask[Math.floor(token / length)]![token % length] === 1;
        })
      : data;
  it.each(exported)('%s, head %s: equal to the exported graph', async (name, head) => {
    const ref = readReference(name);
    const lease = await open(name, head);
    const batch = referenceBatch(ref);
    const output = HEAD_OUTPUT[head]!;
    const ours = (await lease.session.run(batch, [output]))[output]!;
    const theirs = await runExport(`${EXPORTS}${name}-${head}.onnx`, batch);
    expect(ours.dims).toEqual(theirs.dims);
    expect(maxDiff(real(ref, head, ours.data), real(ref, head, theirs.data))).toBeLessThan(2e-5);
  });
});

describe('checkpoint folders in the pool', () => {
  it('shares one graph per folder and head; another head is another graph', async () => {
    const own = new SessionPool();
    const a = await own.acquire(`${CHECKPOINTS}bert`, { head: 'hidden' });
    const b = await own.acquire(`${CHECKPOINTS}bert`, { head: 'hidden' });
    const c = await own.acquire(`${CHECKPOINTS}bert`, { head: 'classifier' });
    expect(a.session).toBe(b.session);
    expect(c.session).not.toBe(a.session);
    expect(own.size).toBe(2);
    await Promise.all([a.release(), b.release(), c.release()]);
    expect(own.size).toBe(0);
  });

  it("builds the head config.json's architectures name when none is asked for", async () => {
    const own = new SessionPool();
    const mlm = await own.acquire(`${CHECKPOINTS}bert`);
    const classifier = await own.acquire(`${CHECKPOINTS}roberta`);
    const plain = await own.acquire(`${CHECKPOINTS}xlm-roberta`);
    expect([mlm.built?.head, classifier.built?.head, plain.built?.head]).toEqual([
      'masked-lm',
      'classifier',
      'colbert',
    ]);
    await Promise.all([mlm.release(), classifier.release(), plain.release()]);
  });

  it('caps the longest input at the position table (RoBERTa counts from pad_token_id + 1)', async () => {
    const own = new SessionPool();
    const bert = await own.acquire(`${CHECKPOINTS}bert`, { head: 'hidden' });
    const roberta = await own.acquire(`${CHECKPOINTS}roberta`, { head: 'hidden' });
    expect([bert.folder.maxLength, roberta.folder.maxLength]).toEqual([64, 64]);
    await Promise.all([bert.release(), roberta.release()]);
  });
});

describe('decoder graphs', () => {
  /** The reference rows padded on the right instead of the left. */
  function rightPadded(name: string): EncodedBatch {
    const ref = readReference(name);
    const batch = referenceBatch(ref);
    const rows = ref.input_ids.map((ids, r) =>
      ids.filter((_, t) => ref.attention_mask[r]![t] === 1),
    );
    const padded = padRows(
      rows.map((ids) => ({ ids, typeIds: [], truncated: false })),
      Number(batch.inputIds[0]),
      'right',
    );
    return padded;
  }

  it.each(['qwen3', 'qwen2'])(
    '%s: right padding gives the values of left padding',
    async (name) => {
      const ref = readReference(name);
      const lease = await open(name, 'next-token');
      const { logits } = await lease.session.run(rightPadded(name), ['logits']);
      expect(maxDiff(logits!.data, expected(ref, 'next-token'))).toBeLessThan(1e-4);
      const hidden = await open(name, 'hidden');
      const batch = rightPadded(name);
      const states = (await hidden.session.run(batch, ['last_hidden_state'])).last_hidden_state!;
      const want = expected(ref, 'hidden');
      const width = states.dims[2]!;
      for (let r = 0; r < batch.size; r++) {
        const pads = ref.attention_mask[r]!.filter((m) => m === 0).length;
        for (let t = 0; t < batch.lengths[r]!; t++) {
          const ours = states.data.subarray(
            (r * batch.length + t) * width,
            (r * batch.length + t + 1) * width,
          );
          const at = (r * batch.length + t + pads) * width;
          expect(maxDiff(ours, want.subarray(at, at + width))).toBeLessThan(1e-4);
        }
      }
    },
  );

  it('keeps only the logits of the tokens asked for, in their order', async () => {
    const ref = readReference('qwen3');
    const own = new SessionPool();
    const lease = await own.acquire(`${CHECKPOINTS}qwen3`, {
      head: 'next-token',
      tokens: ['yes', 'no'],
    });
    try {
      const { logits } = await lease.session.run(referenceBatch(ref), ['logits']);
      expect(logits!.dims).toEqual([3, 2]);
      const [yes, no] = [lease.tokenizer.tokenId('yes')!, lease.tokenizer.tokenId('no')!];
      const vocab = ref.outputs['next-token']!.dims[1]!;
      const full = expected(ref, 'next-token');
      const want = Float32Array.from(
        [0, 1, 2].flatMap((r) => [full[r * vocab + yes]!, full[r * vocab + no]!]),
      );
      expect(maxDiff(logits!.data, want)).toBeLessThan(1e-4);
      await expect(
        own.acquire(`${CHECKPOINTS}qwen3`, { head: 'next-token', tokens: ['absolutely'] }),
      ).rejects.toThrow(/the tokenizer has no token "absolutely"/);
    } finally {
      await lease.release();
    }
  });

  it('refuses a head the architecture has not', async () => {
    await expect(
      new SessionPool().acquire(`${CHECKPOINTS}qwen3`, { head: 'masked-lm' }),
    ).rejects.toThrow(
      /a qwen3 checkpoint has no masked-lm head \(irserve builds hidden, next-token, classifier for it\)/,
    );
    await expect(
      new SessionPool().acquire(`${CHECKPOINTS}qwen2`, { head: 'classifier' }),
    ).rejects.toThrow(/tensor score\.weight is missing/);
  });
});
