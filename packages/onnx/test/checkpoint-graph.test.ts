import { afterAll, describe, expect, it } from 'vitest';
import { SessionPool, type ModelLease } from '@irserve/onnx';
import {
  CHECKPOINTS,
  EXPORTS,
  HEAD_OUTPUT,
  expected,
  readReference,
  referenceBatch,
  runExport,
} from './checkpoint-helpers.js';
import { maxDiff } from './helpers.js';

/** Every architecture with every head it has, and the storage variants of one BERT. */
const ARCHITECTURES = ['bert', 'roberta', 'xlm-roberta', 'electra', 'distilbert'];
const VARIANTS = ['bert-fp16', 'bert-bf16', 'bert-sharded', 'bert-bin', 'bert-bin-legacy'];
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
      expect(maxDiff(got!.data, expected(ref, head))).toBeLessThan(1e-4);
      // One row alone gives that row's values: the other rows change nothing.
      const alone = await lease.session.run(referenceBatch(ref, [1]), [output]);
      expect(maxDiff(alone[output]!.data, expected(ref, head, [1]))).toBeLessThan(1e-4);
    },
  );
});

describe('graphs built from checkpoints, against torch.onnx.export of the same weights', () => {
  const exported = ARCHITECTURES.flatMap((name) =>
    Object.keys(readReference(name).outputs).map((head) => [name, head] as const),
  );
  it.each(exported)('%s, head %s: equal to the exported graph', async (name, head) => {
    const ref = readReference(name);
    const lease = await open(name, head);
    const batch = referenceBatch(ref);
    const output = HEAD_OUTPUT[head]!;
    const ours = (await lease.session.run(batch, [output]))[output]!;
    const theirs = await runExport(`${EXPORTS}${name}-${head}.onnx`, batch);
    expect(ours.dims).toEqual(theirs.dims);
    expect(maxDiff(ours.data, theirs.data)).toBeLessThan(2e-5);
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
